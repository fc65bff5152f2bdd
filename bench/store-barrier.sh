#!/usr/bin/env bash
# K clients through one barrier with the store in its own JVM (see bench/store-barrier.md).
# Usage: bench/store-barrier.sh K [reps] [OLD_CLASSPATH]; with OLD_CLASSPATH (another build's jars, e.g. a copy
# of an older bench/target/classpath.txt's content) each rep runs the old build, then this one.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/classpath.txt ] || mvn -B -q -pl bench -am package -DskipTests
k=$1 reps=${2:-3} old=${3:-}
new="bench/target/classes:$(cat bench/target/classpath.txt)"
for ((i = 0; i < reps; i++)); do
  for build in ${old:+old} new; do
    if [ "$build" = old ]; then cp="bench/target/classes:$old"; else cp=$new; fi
    echo "$build build, $(uptime | sed 's/.*load/load/')"
    java -Xss256k -Dbench.warmClients=true -Dbench.serverClasspath="$cp" -cp "$cp" \
      dev.ddp4j.bench.store.RemoteBarrierBench "$k"
  done
done
