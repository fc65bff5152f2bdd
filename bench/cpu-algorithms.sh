#!/usr/bin/env bash
# The cpu backend's all-reduce algorithms side by side: for each rank count, the plan's own choice
# ("planner", DDP4J_ALGO unset) and each algorithm forced, same sizes, run one after the other in this
# one invocation, best of REPEAT alternating runs per size. The last column says how far the plan's
# choice is from the fastest forced algorithm at that size (planner time / best time; 1.00 = it
# picked the fastest, or as fast). This is how CostParams.CPU is checked. A "shared" column runs the
# plan's choice over shared host memory (bench --buffers shared: large all-reduces read peers' buffers
# in place), and the last column is its time over the plan's on plain buffers (SHARED=0 skips it).
#
#   mvn -B -q package -DskipTests                 # builds launcher/target/launcher.jar
#   bench/cpu-algorithms.sh                       # RANKS="2 4 8" MIN=8 MAX=67108864 REPEAT=2
#
# JAVA picks the java to run (default: java on the PATH); JAR the launcher jar.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JAVA=${JAVA:-java}
JAR=${JAR:-$ROOT/launcher/target/launcher.jar}
RANKS=${RANKS:-"2 4 8"}
MIN=${MIN:-8}
MAX=${MAX:-67108864}
REPEAT=${REPEAT:-2}
SHARED=${SHARED:-1}
[ -f "$JAR" ] || { echo "no $JAR: build it first with mvn -B -q package -DskipTests" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

for n in $RANKS; do
  algos="planner ring twoshot"
  [ "$n" -gt 2 ] && algos="$algos tree"
  [ "$n" -eq 2 ] && algos="$algos oneshot"
  for round in $(seq "$REPEAT"); do
    for a in $algos; do
      if [ "$a" = planner ]; then
        env -u DDP4J_ALGO -u NCCL_ALGO DDP4J_DEBUG=INFO "$JAVA" -jar "$JAR" bench --nproc-per-node="$n" \
          --backend cpu --op allreduce -b "$MIN" -e "$MAX" >"$WORK/run.txt" 2>"$WORK/err.txt"
        grep -m1 -o "all-reduce algorithm by size: .*" "$WORK/err.txt" >"$WORK/choice-$n.txt" || true
      else
        DDP4J_ALGO=$a "$JAVA" -jar "$JAR" bench --nproc-per-node="$n" --backend cpu --op allreduce \
          -b "$MIN" -e "$MAX" >"$WORK/run.txt" 2>/dev/null
      fi
      grep -v '^#' "$WORK/run.txt" | awk -v a="$a" '{print a, $1, $6, $9}' >>"$WORK/times-$n.txt"
    done
    if [ "$SHARED" = 1 ]; then
      env -u DDP4J_ALGO -u NCCL_ALGO "$JAVA" -jar "$JAR" bench --nproc-per-node="$n" --backend cpu \
        --op allreduce -b "$MIN" -e "$MAX" --buffers shared >"$WORK/run.txt" 2>/dev/null
      grep -v '^#' "$WORK/run.txt" | awk '{print "shared", $1, $6, $9}' >>"$WORK/times-$n.txt"
    fi
  done
  echo "# $n ranks, float32 sum in place, time (us), best of $REPEAT; plan: $(sed 's/all-reduce algorithm by size: //' "$WORK/choice-$n.txt")"
  awk -v algos="$algos" -v shared="$SHARED" '
    { k = $1 SUBSEP $2; if (!(k in t) || $3 < t[k]) t[k] = $3; if ($4 != "OK") bad[$1] = 1; sizes[$2] = 1 }
    END {
      na = split(algos, A, " ")
      printf "%12s", "bytes"; for (i = 1; i <= na; i++) printf " %10s", A[i]; printf " %12s", "plan/best"
      if (shared == 1) printf " %10s %14s", "shared", "shared/planner"
      printf "\n"
      n = 0; for (s in sizes) S[++n] = s + 0
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (S[j] < S[i]) { x = S[i]; S[i] = S[j]; S[j] = x }
      for (i = 1; i <= n; i++) {
        best = -1; printf "%12d", S[i]
        for (j = 1; j <= na; j++) {
          v = t[A[j] SUBSEP S[i]]; printf " %10.2f", v
          if (j > 1 && (best < 0 || v < best)) best = v
        }
        printf " %12.2f", t["planner" SUBSEP S[i]] / best
        if (shared == 1) printf " %10.2f %14.2f", t["shared" SUBSEP S[i]], t["shared" SUBSEP S[i]] / t["planner" SUBSEP S[i]]
        printf "\n"
      }
      for (a in bad) printf "# check FAILED for %s\n", a
    }' "$WORK/times-$n.txt"
done
