#!/usr/bin/env bash
# Store benchmark: set/get latency on loopback, then K clients connecting and passing one barrier.
# Usage: bench/store-bench.sh [K...]   (default K = 64 512 2048). Builds the bench module first if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/classpath.txt ] || mvn -B -q -pl bench -am package -DskipTests
exec java -Xss256k -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.ddp4j.bench.store.StoreBench "$@"
