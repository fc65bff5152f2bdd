#!/usr/bin/env bash
# Bytes per step and final accuracy of all-reduce vs PowerSGD rank 1 and 4, on 2 cpu ranks of this machine under the
# launcher: the same MLP and batches for each hook. Builds the bench module (and launcher.jar) first if missing.
# Usage: bash bench/powersgd.sh [PowerSgdBench options, e.g. --width 512]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/classpath.txt ] && [ -f launcher/target/launcher.jar ] || mvn -B -q -pl bench -am package -DskipTests
cp="bench/target/classes:$(cat bench/target/classpath.txt)"
java -jar launcher/target/launcher.jar --nproc-per-node="${RANKS:-2}" --classpath "$cp" \
  dev.ddp4j.bench.ddp.PowerSgdBench "$@" | sed -n 's/^\[rank0\]: \{0,1\}//p'
