#!/usr/bin/env bash
# Planning time against its budgets (8 GPUs < 100 ms, 64 hosts x 8 GPUs < 2 s) and the ring search against brute force.
# Usage: bench/planning-bench.sh [RUNS]   (default 15 runs per topology). Builds the bench module first if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/classpath.txt ] || mvn -B -q -pl bench -am package -DskipTests
exec java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.ddp4j.bench.plan.PlanningBench "$@"
