#!/usr/bin/env bash
# Launcher overhead: `launcher.jar --nproc-per-node=N StoreBarrier` vs N plain `java` runs in parallel.
# Usage: bench/launcher-overhead.sh [N] [ROUNDS] [OTHER_LAUNCHER_JAR]   (default 4 workers, 5 rounds). Needs the
# packaged build. With OTHER_LAUNCHER_JAR (e.g. a copy of an older launcher/target/launcher.jar), that launcher is
# timed in the same rounds too, for a before/after ratio. Results: bench/launcher-overhead.md.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f launcher/target/launcher.jar ] && [ -f examples/target/examples.jar ] && [ -f bench/target/classpath.txt ] ||
  mvn -B -q package -DskipTests
exec java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.ddp4j.bench.launcher.LaunchOverheadBenchmark \
  launcher/target/launcher.jar examples/target/examples.jar dev.ddp4j.examples.StoreBarrier "${1:-4}" "${2:-5}" \
  ${3:+"$3"}
