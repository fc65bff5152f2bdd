#!/usr/bin/env bash
# Runs one job step under a real Slurm on this machine: writes a minimal slurm.conf into a fresh
# folder, starts slurmctld and NODES slurmd daemons (as root, all on localhost, each its own node
# name and port), waits until every node is idle, runs
#   srun --nodes=NODES --ntasks-per-node=1 COMMAND...
# and stops the daemons on exit, whatever happens. Exit status: srun's, or
#   3  the daemons did not start or the nodes never became idle (their logs are printed)
#   4  not root, or slurm-wlm is not installed (the message says which)
#
# Environment: NODES (default 2), CTLD_PORT and SLURMD_PORT (the first of NODES consecutive ports;
# defaults 16817 and 16818), WORK (a folder for configuration, state and logs; default a new temp
# folder, removed on exit unless KEEP=1).
# No accounting, no munge: auth/none and cred/none, proctrack/linuxproc, task/none.
set -uo pipefail

NODES=${NODES:-2}
CTLD_PORT=${CTLD_PORT:-16817}
SLURMD_PORT=${SLURMD_PORT:-16818}
READY_TIMEOUT_S=${READY_TIMEOUT_S:-60}

if [ "$(id -u)" != 0 ]; then
  echo "slurm-job.sh: needs root to run slurmctld/slurmd (running as $(id -un))" >&2
  exit 4
fi
for bin in slurmctld slurmd srun sinfo; do
  if ! command -v "$bin" >/dev/null 2>&1; then
    echo "slurm-job.sh: $bin is not installed (expected: apt-get install -y slurm-wlm)" >&2
    exit 4
  fi
done
if [ $# -eq 0 ]; then
  echo "usage: slurm-job.sh COMMAND [ARGS...]" >&2
  exit 2
fi

WORK=${WORK:-$(mktemp -d /tmp/ddp4j-slurm.XXXXXX)}
mkdir -p "$WORK/state" "$WORK/log"
export SLURM_CONF="$WORK/slurm.conf"
PIDS=()

dump_logs() {
  for f in "$WORK"/log/*.log; do
    [ -f "$f" ] || continue
    echo "---- $f (last 40 lines) ----" >&2
    tail -n 40 "$f" >&2
  done
}

stop_daemons() {
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null
  done
  for pid in "${PIDS[@]}"; do
    # slurmd/slurmctld stop within a second on SIGTERM; SIGKILL whatever is left after 10 s.
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null
  done
  if [ "${KEEP:-0}" != 1 ]; then
    rm -rf "$WORK"
  fi
}
trap stop_daemons EXIT
trap 'exit 130' INT TERM

HOST=$(hostname -s)
cat > "$SLURM_CONF" <<CONF
ClusterName=ddp4j-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/linear
SchedulerType=sched/builtin
ReturnToService=2
SlurmdParameters=config_overrides
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/state/slurmd-%n
SlurmctldPidFile=$WORK/state/slurmctld.pid
SlurmdPidFile=$WORK/state/slurmd-%n.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd-%n.log
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MailProg=/bin/true
CONF
# Slurm hands the node names to the job (SLURM_JOB_NODELIST) and the launcher takes the first as
# the master address, so the first node is named after this host (or localhost) to resolve, and the
# others extend its name so that they sort after it (Slurm lists nodes by name).
FIRST=$HOST
getent hosts "$FIRST" >/dev/null 2>&1 || FIRST=localhost
NAMES=()
for i in $(seq 1 "$NODES"); do
  name="$FIRST-n$i"
  [ "$i" = 1 ] && name=$FIRST
  NAMES+=("$name")
  echo "NodeName=$name NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$((SLURMD_PORT + i - 1)) CPUs=2 State=UNKNOWN" >> "$SLURM_CONF"
done
echo "PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >> "$SLURM_CONF"

slurmctld -D -i -f "$SLURM_CONF" >"$WORK/log/slurmctld.stdout.log" 2>&1 &
PIDS+=($!)
for name in "${NAMES[@]}"; do
  mkdir -p "$WORK/state/slurmd-$name"
  slurmd -D -N "$name" -f "$SLURM_CONF" >"$WORK/log/slurmd-$name.stdout.log" 2>&1 &
  PIDS+=($!)
done

deadline=$((SECONDS + READY_TIMEOUT_S))
while :; do
  for pid in "${PIDS[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "slurm-job.sh: a Slurm daemon (pid $pid) exited during startup; logs:" >&2
      dump_logs
      exit 3
    fi
  done
  idle=$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)
  [ "$idle" -ge "$NODES" ] && break
  if [ $SECONDS -ge $deadline ]; then
    echo "slurm-job.sh: only $idle of $NODES Slurm nodes became idle within ${READY_TIMEOUT_S} s; sinfo:" >&2
    sinfo -N -l >&2 2>&1
    dump_logs
    exit 3
  fi
  sleep 0.5
done
echo "slurm-job.sh: $NODES Slurm node(s) idle: ${NAMES[*]}" >&2

srun --nodes="$NODES" --ntasks-per-node=1 --time=5 --kill-on-bad-exit=1 "$@"
rc=$?
if [ $rc -ne 0 ]; then
  echo "slurm-job.sh: srun exited $rc" >&2
  dump_logs
fi
exit $rc
