#!/usr/bin/env bash
# Adds the GPU DDP bench to a bundle made by scripts/make-bundle.sh (which it runs first if OUT_DIR has no jlink
# runtime yet): OUT_DIR/ddp/ gets ddp-runtime's jar (the device bucket engine), the bench module's classes (the synthetic
# model, its kernel and `bench ddp`'s worker) and test classes (the engine's GPU tests), the PyTorch twin and the run
# script (the launcher.jar is the one make-bundle.sh put at OUT_DIR's top). No ND4J or DL4J goes in: the device engine
# does not load them. Usage: bench/ddp-gpu-bundle.sh [OUT_DIR] (default bundle/). On the GPU machine:
#   bash OUT_DIR/ddp/ddp-gpu-run.sh      (tests, ddp4j bench, PyTorch DDP bench, table; logs under $OUT)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$repo/bundle}" && cd "${1:-$repo/bundle}" && pwd)
jdk=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
[ -x "$out/jre/bin/java" ] || "$repo/scripts/make-bundle.sh" "$out"
(cd "$repo" && mvn -B -o -q package -pl ddp-runtime,launcher,bench -am -DskipTests)
rm -rf "$out/ddp" && mkdir -p "$out/ddp"
cp "$repo/launcher/target/launcher.jar" "$out/launcher.jar"
cp "$repo"/ddp-runtime/target/ddp-runtime-*-SNAPSHOT.jar "$out/ddp/ddp-runtime.jar"
"$jdk/bin/jar" cf "$out/ddp/ddp-bench.jar" -C "$repo/bench/target/classes" .
"$jdk/bin/jar" cf "$out/ddp/ddp-bench-tests.jar" -C "$repo/bench/target/test-classes" .
cp "$repo/bench/pytorch_ddp_synthetic.py" "$repo/bench/ddp-gpu-table.py" "$repo/bench/ddp-gpu-run.sh" "$out/ddp/"
du -sh "$out" "$out/ddp"
total=$(du -sb "$out" | cut -f1)
if [ "$total" -ge $((64 << 20)) ]; then
  echo "bundle is $total bytes, over the 64 MiB limit" >&2
  exit 1
fi
