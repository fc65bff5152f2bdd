#!/usr/bin/env bash
# The whole GPU DDP experiment of bench/ddp-gpu-vs-pytorch.md, on the GPU machine from a bundle made by
# bench/ddp-gpu-bundle.sh: the device engine's GPU tests, `launcher.jar bench ddp` on each configuration (the
# first one with a GPU-time trace), the same configurations under PyTorch DDP, then the side-by-side table.
# Logs and traces under $OUT (default /tmp/ddp4j-out). STEPS picks what runs (default "tests ddp4j pytorch");
# "sweep" times SWEEP_CONFIG (default 8x16.75M:1500) under each of SWEEP_VARIANTS, label=ENV,...[+bench args]
# separated by spaces, interleaved REPEAT times (the tuning of the engine's stream priority, the backend's
# algorithm and channels under overlap); "placement" runs the launcher with --nproc-per-node=gpu and prints
# which GPU, CPUs and memory nodes each rank got.
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(cd "$here/.." && pwd)
out=${OUT:-/tmp/ddp4j-out}
mkdir -p "$out"
# NVLink multicast stays off on shared machines (the device README says why).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
java="$bundle/jre/bin/java"
nproc=${NPROC:-$(nvidia-smi -L | wc -l)}
configs=${CONFIGS:-"8x16.75M:1500 8x16.75M:10900 4x67.25M:6100 16x4.1875M:22200"}
ddpcp="$here/ddp-runtime.jar:$here/ddp-bench.jar"
testcp="$bundle/launcher.jar:$ddpcp:$here/ddp-bench-tests.jar:$bundle/lib/collectives-test-classes.jar"
for j in "$bundle"/lib/junit-*.jar "$bundle"/lib/opentest4j-*.jar "$bundle"/lib/apiguardian-*.jar "$bundle"/lib/assertj-*.jar; do
  testcp="$testcp:$j"
done
for step in ${STEPS:-tests ddp4j pytorch}; do
  start=$(date +%s)
  case $step in
    tests) timeout 100 "$java" -cp "$testcp" dev.ddp4j.bench.ddp.DdpGpuTestMain > "$out/tests.log" 2>&1; rc=$? ;;
    ddp4j)
      rc=0; first=1
      for c in $configs; do
        trace=(); [ $first = 1 ] && trace=(--trace "$out/trace-${c%%:*}-${c##*:}us")
        first=0
        timeout 60 "$java" -jar "$bundle/launcher.jar" bench ddp --classpath "$ddpcp" \
          --nproc-per-node="$nproc" --layers "${c%%:*}" --backward-us "${c##*:}" "${trace[@]}" \
          >> "$out/ddp4j.log" 2>&1 || rc=$?
      done ;;
    sweep)
      rc=0; c=${SWEEP_CONFIG:-8x16.75M:1500}
      variants=${SWEEP_VARIANTS:-"base ch32:DDP4J_MAX_NCHANNELS=32 ch128:DDP4J_MAX_NCHANNELS=128 twoshot:DDP4J_ALGO=twoshot copyengine:DDP4J_ALGO=copyengine normalprio:+--comm-priority=normal"}
      for rep in $(seq "${REPEAT:-2}"); do
        for v in $variants; do
          label=${v%%:*}; spec=${v#"$label"}; spec=${spec#:}
          envs=${spec%%+*}; extra=""; [[ $spec == *+* ]] && extra=${spec#*+}
          echo "SWEEP variant=$label rep=$rep env=$envs args=$extra" >> "$out/sweep.log"
          env ${envs//,/ } timeout 60 "$java" -jar "$bundle/launcher.jar" bench ddp --classpath "$ddpcp" \
            --nproc-per-node="$nproc" --layers "${c%%:*}" --backward-us "${c##*:}" ${extra//,/ } \
            >> "$out/sweep.log" 2>&1 || rc=$?
        done
      done ;;
    placement)
      DDP4J_DEBUG=INFO timeout 60 "$java" -jar "$bundle/launcher.jar" --nproc-per-node=gpu \
        --classpath "$here/ddp-bench-tests.jar" dev.ddp4j.bench.ddp.PlacementReport \
        > "$out/placement.log" 2>&1; rc=$?
      command -v numactl >> "$out/placement.log" 2>&1 || echo "numactl: not installed" >> "$out/placement.log" ;;
    pytorch)
      args=(); for c in $configs; do args+=(--config "$c"); done
      timeout 120 python3 "$here/pytorch_ddp_synthetic.py" --nproc "$nproc" "${args[@]}" > "$out/pytorch.log" 2>&1; rc=$? ;;
    *) echo "unknown step $step"; rc=2 ;;
  esac
  echo "step $step: rc=$rc in $(( $(date +%s) - start )) s" | tee -a "$out/steps.txt"
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > "$out/gpus.txt" 2>&1
echo "==== tests"; grep -E "^(SUCCESSFUL|FAILED|ABORTED|SKIPPED)|tests (successful|failed)|# (reduce|overlap)" "$out/tests.log"
echo "==== calibration"; grep -h CALIBRATION "$out/ddp4j.log" "$out/pytorch.log" | sort -t: -k1,1 -s | head -40
echo "==== trace"; grep -h TRACE "$out/ddp4j.log"
[ -f "$out/placement.log" ] && { echo "==== placement"; cat "$out/placement.log" | tail -20; }
[ -f "$out/sweep.log" ] && { echo "==== sweep"; grep -E "^SWEEP|^RESULT" "$out/sweep.log" | paste - - | awk '{print $2, $3, $(NF-2), $(NF-1), $NF}'; }
echo "==== table"; python3 "$here/ddp-gpu-table.py" "$out/ddp4j.log" "$out/pytorch.log" | tee "$out/table.md"
grep -hE "Exception|Error|error" "$out/ddp4j.log" "$out/pytorch.log" | head -20
