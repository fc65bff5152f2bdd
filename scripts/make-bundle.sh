#!/usr/bin/env bash
# Builds a self-contained bundle for GPU machines without Java or network (shared/device/README.md): a jlink
# runtime of JDK 17, launcher.jar (shaded: the cuda backend with JCuda's natives without the 24 MB
# libJNvPTXCompiler, which ddp4j never loads; also `java -jar launcher.jar bench --backend cuda`), the jars and
# test classes the GPU tests add in lib/, NCCL's reference harnesses (shared/device's all-reduce one, bench/'s four collectives) and
# run-gpu.sh.
# Usage: [SLIM_SM=90] scripts/make-bundle.sh [OUT_DIR] (default: bundle/ in this checkout). The result stays under 64 MiB.
# On the GPU machine: bash OUT_DIR/run-gpu.sh (see that script for its steps).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$repo/bundle}" && cd "${1:-$repo/bundle}" && pwd)
jdk=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
m2=${M2_REPO:-$HOME/.m2/repository}
shared=${DDP4J_SHARED_DEVICE_DIR:-/work/shared/device}

(cd "$repo" && mvn -B -o -q package -pl collectives,launcher -am -DskipTests)

if [ ! -x "$out/jre/bin/java" ]; then
  "$jdk/bin/jlink" --add-modules java.base,java.logging,java.management,jdk.unsupported,java.xml,java.naming,jdk.management,java.sql,jdk.crypto.ec,jdk.incubator.vector \
    --strip-debug --no-header-files --no-man-pages --compress=2 --output "$out/jre"
fi

rm -rf "$out/lib" && mkdir -p "$out/lib"
jar() { # group artifact version [classifier]
  local g=${1//.//} f="$2-$3${4:+-$4}.jar"
  cp "$m2/$g/$2/$3/$f" "$out/lib/$f"
}
# The runtime (ddp-api, collectives, JCuda and its natives without libJNvPTXCompiler, JNA, Netty) is the shaded
# launcher.jar, on every class path the scripts build; lib/ holds only what the GPU tests add on top of it.
cp "$repo/launcher/target/launcher.jar" "$out/launcher.jar"
if [ -n "${SLIM_SM:-}" ]; then
  # Only sm_$SLIM_SM machine code in the jar's kernels: with the tracked fatbins moved out of the working tree
  # for the call, bundle and tree then fit the device's 64 MiB carry limit together.
  slim=$(mktemp -d)
  (cd "$slim" && unzip -q "$out/launcher.jar" '*.fatbin' && for f in $(find . -name '*.fatbin'); do
    python3 "$repo/scripts/slim-fatbin.py" "$SLIM_SM" "$f" "$f" && zip -q "$out/launcher.jar" "${f#./}"; done)
  rm -rf "$slim"
fi
"$jdk/bin/jar" cf "$out/lib/collectives-test-classes.jar" -C "$repo/collectives/target/test-classes" .
jar org.junit.jupiter junit-jupiter-api 5.14.1
jar org.junit.jupiter junit-jupiter-engine 5.14.1
jar org.junit.platform junit-platform-commons 1.14.1
jar org.junit.platform junit-platform-engine 1.14.1
jar org.junit.platform junit-platform-launcher 1.14.1
jar org.opentest4j opentest4j 1.3.0
jar org.apiguardian apiguardian-api 1.1.2
jar org.assertj assertj-core 3.27.7

cp "$shared/nccl_bench.sh" "$shared/nccl_bench.cu" "$out/"
cp "$repo/bench/nccl_collectives.sh" "$repo/bench/nccl_collectives.cu" "$out/"
cp "$repo/scripts/run-gpu.sh" "$out/run-gpu.sh"
cp "$repo/bench/cpu-algorithms.sh" "$out/"
cp "$repo/scripts/staged-vs-ipc-table.py" "$out/"
cp "$repo/scripts/cuda-ops-table.py" "$repo/scripts/backend-ab-table.py" "$out/"
du -sh "$out"
total=$(du -sb "$out" | cut -f1)
if [ "$total" -ge $((64 << 20)) ]; then
  echo "bundle is $total bytes, over the 64 MiB limit" >&2
  exit 1
fi
