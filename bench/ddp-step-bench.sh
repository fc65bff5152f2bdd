#!/usr/bin/env bash
# DdpModel step time with and without data parallelism at 1, 2 and 4 ranks on this machine (CPU backend), and the
# share of all-reduce time hidden behind backward. Build first: mvn -B -q install -DskipTests
# Usage: bash bench/ddp-step-bench.sh [DdpStepBench options, e.g. --width 1024]
set -euo pipefail
cd "$(dirname "$0")/.."
for n in 1 2 4; do
  java -jar launcher/target/launcher.jar --nproc-per-node="$n" --classpath examples/target/examples.jar \
    dev.ddp4j.examples.bench.DdpStepBench "$@" | sed -n 's/^\[rank0\]: \{0,1\}//p'
done
