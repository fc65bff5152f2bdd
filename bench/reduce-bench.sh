#!/usr/bin/env bash
# JMH micro-benchmarks of the host reductions (dev.ddp4j.bench.reduce.ReductionBench): ns per Reductions.reduce call
# per element type, op, memory kind (HEAP | NATIVE) and count. Arguments go to JMH, e.g.
#   bench/reduce-bench.sh -p type=FLOAT64,INT32,INT64 -p op=SUM,MAX -rf csv -rff out.csv
# DDP4J_CPU_VECTOR=0 times the scalar loops of FLOAT32/FLOAT64 over native memory. Results: bench/reduce-kernels.md.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/classpath.txt ] || mvn -B -q -pl bench -am package -DskipTests
exec java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" org.openjdk.jmh.Main ReductionBench "$@"
