#!/usr/bin/env bash
# Train's speed against ND4J's OpenMP pool size: the launcher runs `Train` once per OMP_NUM_THREADS value, the values
# interleaved round by round so that drift in the machine falls on all of them, and prints examples/s (the mean of
# each run's epochs after the first, which carries the JIT warm-up) and the ratio to the first value.
# Usage: bench/train-omp-threads.sh [THREADS (default "1 2")] [ROUNDS (2)] [NPROC (1)] [EPOCHS (3)]
# Environment: JAVA (java), LAUNCHER_JAR (launcher/target/launcher.jar), TRAIN_CP (examples/target/examples.jar),
# LOG_DIR (a temporary folder; each run's output is kept there). Results: bench/gpu-host-train-logs/README.md.
set -euo pipefail
threads=(${1:-1 2})
rounds=${2:-2}
nproc=${3:-1}
epochs=${4:-3}
java=${JAVA:-java}
launcher=${LAUNCHER_JAR:-launcher/target/launcher.jar}
cp=${TRAIN_CP:-examples/target/examples.jar}
logs=${LOG_DIR:-$(mktemp -d)}
mkdir -p "$logs"
[ "$epochs" -ge 2 ] || { echo "EPOCHS is $epochs: at least 2 are needed (the first is warm-up)" >&2; exit 2; }

declare -A sum count
for ((r = 1; r <= rounds; r++)); do
  for t in "${threads[@]}"; do
    log="$logs/omp$t-round$r.log"
    ckpt=$(mktemp -d)
    OMP_NUM_THREADS=$t "$java" -jar "$launcher" --nproc-per-node="$nproc" --classpath "$cp" Train \
      --epochs "$epochs" --checkpoint-dir "$ckpt" >"$log" 2>&1 || { echo "OMP_NUM_THREADS=$t failed: $log" >&2; exit 1; }
    rm -rf "$ckpt"
    # "epoch 2/3 done in 1.9 s (11,048 examples/s over 1 rank)": epochs 2.. only.
    rate=$(grep -o 'epoch [0-9]*/[0-9]* done in [0-9.]* s ([0-9,]* examples/s' "$log" | awk -F'[ /(]' '$2 > 1 {
      gsub(",", "", $9); s += $9; n++ } END { if (n) printf "%.0f", s / n }')
    [ -n "$rate" ] || { echo "no epoch rate in $log" >&2; exit 1; }
    echo "round $r OMP_NUM_THREADS=$t: $rate examples/s ($log)"
    sum[$t]=$((${sum[$t]:-0} + rate))
    count[$t]=$((${count[$t]:-0} + 1))
  done
done

base=$((sum[${threads[0]}] / count[${threads[0]}]))
echo
echo "| OMP_NUM_THREADS | examples/s ($nproc rank(s), mean of $rounds runs) | ratio to OMP_NUM_THREADS=${threads[0]} |"
echo "| --- | --- | --- |"
for t in "${threads[@]}"; do
  mean=$((sum[$t] / count[$t]))
  echo "| $t | $mean | $(awk -v a="$mean" -v b="$base" 'BEGIN { printf "%.2f", a / b }') |"
done
