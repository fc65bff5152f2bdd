#!/usr/bin/env bash
# Group creation: how long Ddp.init() takes from the last rank's arrival to the last rank ready (store connect, links,
# plan agreement), under this launcher and, interleaved in the same rounds, an older launcher jar; medians and ratio.
# Usage: bench/group-creation.sh [RANKS...] [ROUNDS] [OLD_LAUNCHER_JAR]   (default: ranks 2 8 32, 5 rounds; with two
# or more numbers the last is ROUNDS). Results: bench/group-creation.md.
# Needs only java, a launcher jar and the probe's classes, so a GPU box with a bundled JRE runs it:
#   JAVA           java to run (default: java on PATH); the launcher starts its workers with the same one
#   LAUNCHER       this build's launcher jar (default launcher/target/launcher.jar)
#   PROBE_CP       a jar or folder holding only dev/ddp4j/bench/groupcreation/* (default: copied out of
#                  bench/target/classes into bench/target/group-creation-probe/). It must not hold product classes:
#                  each launcher puts its own jar after it, so the probe runs against that launcher's build.
#   MPS=1          start the CUDA MPS daemon first and share the GPU (DDP4J_CUDA_SHARE_GPUS=1), as
#                  bench/cuda-plan-mps.sh does; with DDP4J_BACKEND=cuda for the cuda backend (auto picks it too).
set -euo pipefail
cd "$(dirname "$0")/.."
nums=() old=-
for a in "$@"; do
  case $a in *.jar) old=$a ;; *) nums+=("$a") ;; esac
done
rounds=5 ranks=(2 8 32)
if [ ${#nums[@]} -ge 2 ]; then rounds=${nums[-1]}; ranks=("${nums[@]:0:${#nums[@]}-1}");
elif [ ${#nums[@]} -eq 1 ]; then ranks=("${nums[0]}"); fi
java=${JAVA:-java}
launcher=${LAUNCHER:-launcher/target/launcher.jar}
probe=${PROBE_CP:-}
if [ -z "$probe" ]; then
  [ -f "$launcher" ] && [ -d bench/target/classes/dev/ddp4j/bench/groupcreation ] || mvn -B -q package -DskipTests
  probe=bench/target/group-creation-probe
  rm -rf "$probe" && mkdir -p "$probe/dev/ddp4j/bench"
  cp -r bench/target/classes/dev/ddp4j/bench/groupcreation "$probe/dev/ddp4j/bench/"
fi
if [ "${MPS:-0}" = 1 ]; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog DDP4J_CUDA_SHARE_GPUS=1
  mkdir -p /tmp/mps /tmp/mpslog && { nvidia-cuda-mps-control -d || true; }
fi
exec "$java" -cp "$probe" dev.ddp4j.bench.groupcreation.GroupCreationBenchmark \
  "$java" "$launcher" "$probe" "$rounds" "$old" "${ranks[@]}"
