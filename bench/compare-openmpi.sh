#!/usr/bin/env bash
# ddp4j's cpu all-reduce against OpenMPI's MPI_Allreduce (float32 sum, in place), same sizes and
# iteration counts, run one after the other in this one invocation, printed side by side with the
# ratio per size (busbw ratio > 1: ddp4j is faster). ddp4j runs twice: over plain direct buffers
# (each rank's own memory, as MPI's), and over shared host memory (ProcessGroup.allocateHost, which
# peers read in place: what MPI_Win_allocate_shared or NCCL's registered buffers are to theirs).
#
#   mvn -B -q package -DskipTests            # builds launcher/target/launcher.jar
#   apt-get install -y openmpi-bin libopenmpi-dev
#   bench/compare-openmpi.sh                  # NP=2 MIN=8 MAX=268435456 REPEAT=3 by default
#
# On a shared machine other load skews single runs, so the two are run alternately REPEAT times and
# each size keeps its best (lowest) time per side. MPIRUN_ARGS adds options to mpirun.
set -euo pipefail
NP=${NP:-2}
REPEAT=${REPEAT:-3}
MPIRUN_ARGS=${MPIRUN_ARGS:-}
MIN=${MIN:-8}
MAX=${MAX:-268435456}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JAR=$ROOT/launcher/target/launcher.jar
[ -f "$JAR" ] || { echo "no $JAR: build it first with mvn -B -q package -DskipTests" >&2; exit 2; }
command -v mpicc >/dev/null || { echo "needs OpenMPI: apt-get install -y openmpi-bin libopenmpi-dev" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mpicc -O2 -o "$WORK/mpi_allreduce" "$ROOT/bench/mpi_allreduce.c"

for round in $(seq "$REPEAT"); do
  for buffers in plain shared; do
    java -jar "$JAR" bench --nproc-per-node="$NP" --backend cpu --op allreduce -b "$MIN" -e "$MAX" \
      --buffers "$buffers" | tee -a "$WORK/ddp4j-$buffers.txt" >&2
  done
  # shellcheck disable=SC2086
  mpirun --allow-run-as-root --oversubscribe $MPIRUN_ARGS -np "$NP" "$WORK/mpi_allreduce" "$MIN" "$MAX" \
    | tee -a "$WORK/mpi.txt" >&2
done

echo "# all-reduce float32 sum in place, $NP ranks, best of $REPEAT alternating runs:" \
  "ddp4j cpu vs OpenMPI $(mpirun --version 2>/dev/null | head -1 | awk '{print $NF}')"
awk '
  FILENAME ~ /mpi/ {
    if ($1 !~ /^#/ && (!($1 in mpiTime) || $3 < mpiTime[$1])) { mpiTime[$1] = $3; mpiBus[$1] = $5 }
    next
  }
  $1 !~ /^#/ {
    s = (FILENAME ~ /shared/) ? "s" : "p"
    k = s SUBSEP $1
    if (!(k in time) || $6 < time[k]) { time[k] = $6; bus[k] = $8 }
    check[$1] = (check[$1] == "" || check[$1] == "OK") ? $9 : check[$1]
    if (!($1 in seen)) { order[n++] = $1; seen[$1] = 1 }
  }
  END {
    printf "%12s %11s %11s %11s %9s %9s %9s %9s %9s %6s\n", "bytes", "plain(us)", "shared(us)", "mpi(us)", \
      "plain GB/s", "shrd GB/s", "mpi GB/s", "plain x", "shared x", "check"
    for (i = 0; i < n; i++) {
      b = order[i]
      if (!(b in mpiTime)) continue
      p = "p" SUBSEP b; q = "s" SUBSEP b
      printf "%12d %11.2f %11.2f %11.2f %9.3f %9.3f %9.3f %9.2f %9.2f %6s\n", b, time[p], time[q], mpiTime[b], \
        bus[p], bus[q], mpiBus[b], (mpiBus[b] > 0 ? bus[p] / mpiBus[b] : 0), (mpiBus[b] > 0 ? bus[q] / mpiBus[b] : 0), check[b]
    }
  }' "$WORK/mpi.txt" "$WORK/ddp4j-plain.txt" "$WORK/ddp4j-shared.txt"
