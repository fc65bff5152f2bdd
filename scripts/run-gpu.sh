#!/usr/bin/env bash
# Runs on the GPU machine from a bundle made by scripts/make-bundle.sh: the cuda backend's tests, its all-reduce
# bench and NCCL's reference bench in one go, logs under $OUT (default /tmp/ddp4j-out), a short summary last.
# STEPS picks what runs (default "topo tests bench nccl"); "check" runs the harness's quick correctness pass instead
# of the JUnit tests; VARIANTS is the bench's comma-separated variants (default "auto"); "sweep" runs the bench from
# SWEEP_MIN_BYTES (default 32 MiB) for each of SWEEP_VARIANTS (e.g. "oneshot:blocks=64:step=262144,twoshot").
# TESTS names the test classes of the "tests" step (default: all). "staged" runs the bench again with
# DDP4J_P2P_DISABLE=1 (the host-staged path) into bench-staged.log; the summary then puts it beside bench.log.
# "launcher" runs `java -jar launcher.jar bench --backend B` for each of BENCH_OPS (default all four collectives) and
# each B of BENCH_BACKENDS (default "cuda nccl": ddp4j's kernels and the machine's NCCL, one process per GPU each)
# from BENCH_MIN (16) to BENCH_MAX (1G) x BENCH_FACTOR (4); "ncclops" runs NCCL's four collectives over the same
# sizes (bench/nccl_collectives.cu); "ring" benches DDP4J_ALGO=ring beside the default (ring-bench.log).
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/ddp4j-out}
mkdir -p "$out"
# NVLink multicast stays off on shared machines (the device README says why).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
java="$here/jre/bin/java"
cp="$here/launcher.jar:$here/lib/*"
steps=${STEPS:-topo tests bench nccl}
nproc=$(nvidia-smi -L | wc -l)
for step in $steps; do
  start=$(date +%s)
  case $step in
    topo) nvidia-smi topo -m > "$out/topo.txt" 2>&1; nvidia-smi > "$out/smi.txt" 2>&1; rc=$? ;;
    check) timeout 300 "$java" -cp "$cp" dev.ddp4j.collectives.cuda.harness.GpuHarness check --nproc "$nproc" --quick > "$out/check.log" 2>&1; rc=$? ;;
    tests) timeout 420 "$java" -cp "$cp" dev.ddp4j.collectives.cuda.GpuTestMain ${TESTS:-} > "$out/tests.log" 2>&1; rc=$? ;;
    staged) DDP4J_P2P_DISABLE=1 timeout 300 "$java" -cp "$cp" dev.ddp4j.collectives.cuda.harness.GpuHarness bench --nproc "$nproc" --variants auto --max-bytes "${STAGED_MAX_BYTES:-536870912}" > "$out/bench-staged.log" 2>&1; rc=$? ;;
    bench) timeout 300 "$java" -cp "$cp" dev.ddp4j.collectives.cuda.harness.GpuHarness bench --nproc "$nproc" --variants "${VARIANTS:-auto}" > "$out/bench.log" 2>&1; rc=$? ;;
    sweep) timeout 200 "$java" -cp "$cp" dev.ddp4j.collectives.cuda.harness.GpuHarness bench --nproc "$nproc" --min-bytes "${SWEEP_MIN_BYTES:-33554432}" --variants "$SWEEP_VARIANTS" > "$out/sweep.log" 2>&1; rc=$? ;;
    nccl) timeout 200 bash "$here/nccl_bench.sh" > "$out/nccl.log" 2>&1; rc=$? ;;
    launcher)
      # Each op through ddp4j's own kernels (--backend cuda, launcher-bench.log) and through the machine's NCCL
      # (--backend nccl, launcher-bench-nccl.log), one process per GPU each, alternated in this one step.
      rc=0
      for op in ${BENCH_OPS:-allreduce broadcast allgather reducescatter}; do
        for backend in ${BENCH_BACKENDS:-cuda nccl}; do
          log="$out/launcher-bench.log"; [ "$backend" = cuda ] || log="$out/launcher-bench-$backend.log"
          echo "\$ java -jar launcher.jar bench --nproc-per-node=$nproc --backend $backend --op $op -b ${BENCH_MIN:-16} -e ${BENCH_MAX:-1G} -f ${BENCH_FACTOR:-4}" >> "$log"
          timeout 240 "$java" -jar "$here/launcher.jar" bench --nproc-per-node="$nproc" --backend "$backend" --op "$op" \
            -b "${BENCH_MIN:-16}" -e "${BENCH_MAX:-1G}" -f "${BENCH_FACTOR:-4}" >> "$log" 2>&1 || rc=$?
        done
      done ;;
    ncclops) timeout 240 bash "$here/nccl_collectives.sh" "${BENCH_MIN_BYTES:-16}" "${BENCH_MAX_BYTES:-1073741824}" "${BENCH_FACTOR:-4}" "${NCCL_OPS:-allreduce,broadcast,allgather,reducescatter}" > "$out/nccl-collectives.log" 2>&1; rc=$? ;;
    ring)
      # DDP4J_ALGO=ring beside the default, 8 B to 1 GiB, through the launcher's bench (2 or more GPUs); on one GPU
      # the harness's bench with two ranks sharing it (DDP4J_CUDA_SHARE_GPUS: kernel and flag costs, no NVLink).
      rc=0
      if [ "$nproc" -ge 2 ]; then
        for algo in "" ring; do
          echo "\$ DDP4J_ALGO=$algo java -jar launcher.jar bench --nproc-per-node=$nproc --backend cuda --op allreduce -b 8 -e 1G -f 4" >> "$out/ring-bench.log"
          DDP4J_ALGO=$algo timeout 240 "$java" -jar "$here/launcher.jar" bench --nproc-per-node="$nproc" --backend cuda \
            --op allreduce -b 8 -e 1G -f 4 >> "$out/ring-bench.log" 2>&1 || rc=$?
        done
      else
        DDP4J_CUDA_SHARE_GPUS=1 timeout 240 "$java" -cp "$cp" dev.ddp4j.collectives.cuda.harness.GpuHarness bench --nproc 2 \
          --variants auto,ring,twoshot --max-bytes 1073741824 > "$out/ring-bench.log" 2>&1; rc=$?
      fi ;;
    *) echo "unknown step $step"; rc=2 ;;
  esac
  echo "step $step: rc=$rc in $(( $(date +%s) - start )) s" | tee -a "$out/steps.txt"
done
echo "==== summary"
[ -f "$out/check.log" ] && { grep -c PASS "$out/check.log"; grep -E "FAIL|Exception|^#" "$out/check.log" | head -20; }
[ -f "$out/tests.log" ] && sed -n '/==== cuda package tests/,$p' "$out/tests.log" | grep -vE "^\s*$" | head -30
[ -f "$out/bench.log" ] && grep -vE "^(----|\s*at |INFO|[A-Z][a-z][a-z] [0-9])" "$out/bench.log" | head -80
[ -f "$out/sweep.log" ] && grep -vE "^(----|\s*at |INFO|[A-Z][a-z][a-z] [0-9])" "$out/sweep.log" | grep -vE "bytes +count" | head -80
[ -f "$out/nccl.log" ] && cat "$out/nccl.log"
[ -f "$out/bench-staged.log" ] && [ -f "$out/bench.log" ] && python3 "$here/staged-vs-ipc-table.py" "$out/bench.log" "$out/bench-staged.log"
[ -f "$out/ring-bench.log" ] && grep -vE "^(----|\s*at |INFO|[A-Z][a-z][a-z] [0-9])" "$out/ring-bench.log" | head -80
[ -f "$out/launcher-bench.log" ] && [ -f "$out/nccl-collectives.log" ] && python3 "$here/cuda-ops-table.py" "$out/launcher-bench.log" "$out/nccl-collectives.log"
[ -f "$out/launcher-bench.log" ] && [ -f "$out/launcher-bench-nccl.log" ] && python3 "$here/backend-ab-table.py" "$out/launcher-bench.log" "$out/launcher-bench-nccl.log"
[ -f "$out/launcher-bench-nccl.log" ] && grep -E "Exception|cannot run|FAIL" "$out/launcher-bench-nccl.log" | head -5
