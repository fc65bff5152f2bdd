#!/usr/bin/env bash
# Store benchmark: set/get latency on loopback, then K clients connecting and passing one barrier.
# Usage: bench/store-bench.sh [K...]   (default K = 64 512 2048). Builds launcher.jar first if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f launcher/target/launcher.jar ] || mvn -B -q -pl launcher -am package -DskipTests
exec java -Xss256k -cp launcher/target/launcher.jar dev.ddp4j.collectives.store.StoreBench "$@"
