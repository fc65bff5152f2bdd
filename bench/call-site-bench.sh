#!/usr/bin/env bash
# What the stall inspector costs per collective (its ledger) and per heartbeat (a call site from another thread).
# Usage: bench/call-site-bench.sh [ROUNDS]   (default 5). Builds the bench module first if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/classpath.txt ] || mvn -B -q -pl bench -am package -DskipTests
exec java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.ddp4j.collectives.stall.CallSiteBench "$@"
