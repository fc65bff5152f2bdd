#!/usr/bin/env bash
# DdpModel step time with and without data parallelism at 1, 2 and 4 ranks on this machine (CPU backend), and the
# share of all-reduce time hidden behind backward. Builds the bench module (and launcher.jar) first if missing.
# Usage: bash bench/ddp-step-bench.sh [DdpStepBench options, e.g. --width 1024]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/classpath.txt ] && [ -f launcher/target/launcher.jar ] || mvn -B -q -pl bench -am package -DskipTests
cp="bench/target/classes:$(cat bench/target/classpath.txt)"
for n in ${RANKS:-1 2 4}; do
  java -jar launcher/target/launcher.jar --nproc-per-node="$n" --classpath "$cp" \
    dev.ddp4j.bench.ddp.DdpStepBench "$@" | sed -n 's/^\[rank0\]: \{0,1\}//p'
done
