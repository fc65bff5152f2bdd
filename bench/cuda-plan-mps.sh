#!/usr/bin/env bash
# On the one-GPU machine, under CUDA MPS: the cuda backend running the planner's plan with 2, 4 and 8 ranks sharing
# the GPU (DDP4J_CUDA_SHARE_GPUS=1), over injected topologies (the fixtures of collectives/src/test/resources/topology,
# DDP4J_P2P_DISABLE_PAIRS), so that the direct, LL and ring kernels all run against the harness's reference; then
# the GPU test classes; then (STEPS=bench) the 2-rank all-reduce bench of this build against OLD (a jar of the
# previous build's classes put ahead of bundle/launcher.jar), alternated; (STEPS=many) 9, 12 and 16 ranks on the one
# GPU, more than the 8 GPUs of the largest fixture before it (STEPS=many32: 32, the kernels' MAX_RANKS); STEPS=hosts
# runs a group on fake hosts. Timings under MPS share one GPU's HBM: they compare builds, they are not NVLink figures.
# Usage: OUT=dir STEPS="check tests bench" bash bench/cuda-plan-mps.sh
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/ddp4j-plan}; mkdir -p "$out"
# CHECK_TIMEOUT (seconds, default 240 a check), TESTS_TIMEOUT, BENCH_TIMEOUT and ROUNDS bound the steps. JAVA, NEW_CP and OLD_CP override the bundle's runtime and the two builds' class paths.
java=${JAVA:-$here/bundle/jre/bin/java}; cp=${NEW_CP:-$here/bundle/launcher.jar:$here/bundle/lib/*}
oldcp=${OLD_CP:-$here/bundle-old/ddp4j-old.jar:$cp}
topo="$here/collectives/src/test/resources/topology"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog DDP4J_CUDA_SHARE_GPUS=1 DDP4J_TIMEOUT_SECONDS=60
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
summary=()
check() { # name nproc extra-args... (env before the call)
  local name=$1 n=$2; shift 2
  local start=$(date +%s)
  DDP4J_DEBUG=INFO timeout "${CHECK_TIMEOUT:-240}" "$java" -cp "$cp" dev.ddp4j.collectives.cuda.harness.GpuHarness check --nproc "$n" "$@" > "$out/check-$name.log" 2>&1
  local rc=$? pass=$(grep -c PASS "$out/check-$name.log") fail=$(grep -c FAIL "$out/check-$name.log")
  local route=$(grep -o "cuda route: [^(;]*\(; hierarchical[^(]*\)\?" "$out/check-$name.log" | head -1)
  local algos=$(grep -o "all-reduce by size: .*" "$out/check-$name.log" | head -1)
  summary+=("$(printf '%-22s n=%d rc=%d pass=%d fail=%d %ss | %s | %s' "$name" "$n" "$rc" "$pass" "$fail" "$(( $(date +%s) - start ))" "$route" "$algos")")
}
for step in ${STEPS:-check tests}; do
  case $step in
    check)
      check shared-2 2
      [ -n "${WITH_H200_FIXTURE:-}" ] && DDP4J_TOPO_FILE=$topo/h200-2gpu-nv18.txt check h200-2 2 --quick
      DDP4J_TOPO_FILE=$topo/a100-4gpu-nvlink-pairs.txt check a100-4 4 --quick
      DDP4J_TOPO_FILE=$topo/a100-4gpu-nv4-pix.txt check a100-4-pix 4 --quick
      DDP4J_TOPO_FILE=$topo/pcie-4gpu-two-sockets.txt check pcie-4 4 --quick
      # The ring kernels with each channel's own order: 2 orders on the PIX box, 16 of the 36 on the DGX.
      DDP4J_TOPO_FILE=$topo/a100-4gpu-nv4-pix.txt DDP4J_ALGO=ring check a100-4-pix-ring 4 --quick --algos ring
      DDP4J_TOPO_FILE=$topo/dgx-h100-8gpu-nvswitch.txt DDP4J_ALGO=ring check dgx-h100-8-ring 8 --quick --algos ring
      DDP4J_P2P_DISABLE_PAIRS=0-1,2-3 check shared-4-no01-23 4 --quick
      DDP4J_TOPO_FILE=$topo/dgx-h100-8gpu-nvswitch.txt check dgx-h100-8 8 --quick
      DDP4J_TOPO_FILE=$topo/dgx-h100-8gpu-nvswitch.txt DDP4J_P2P_DISABLE_PAIRS=0-1 check dgx-h100-8-no01 8 --quick
      DDP4J_ALGO=ring check shared-8-ring 8 --quick --algos ring ;;
    many)
      # More ranks than GPUs in any fixture but the 16-GPU one, all sharing the H200 under MPS: the resident-channel
      # split (132 SMs among 9-16 ranks), the flag rows and slots of up to 16 ranks, the byte-a-position ring order.
      # The default plan on logical NV18 GPUs (ll, oneshot, twoshot), the 16 x V100 NVSwitch fixture's plan, and the
      # ring kernels forced around 16 ranks.
      check shared-9 9 --quick
      check shared-12 12 --quick
      DDP4J_TOPO_FILE=$topo/dgx2-v100-16gpu-nvswitch.txt check dgx2-16 16 --quick
      DDP4J_ALGO=ring check shared-16-ring 16 --quick --algos ring ;;
    many32)
      # The kernels' MAX_RANKS: 32 ranks on one GPU, 4 channels each (run it on its own: 32 JVMs and contexts).
      CHECK_TIMEOUT=${CHECK_TIMEOUT:-540} check shared-32 32 --quick ;;
    hier)
      # The hierarchical route: islands of NVLink pairs (4 x A100 fixture: hierarchical at every size),
      # their column through host memory (SYS pairs denied), the sockets of 8 PCIe GPUs as islands of
      # four (hierarchical below 16 MiB, ring above).
      DDP4J_TOPO_FILE=$topo/a100-4gpu-nvlink-pairs.txt check hier-a100-4 4
      DDP4J_TOPO_FILE=$topo/a100-4gpu-nvlink-pairs.txt DDP4J_P2P_DISABLE_PAIRS=0-2,0-3,1-2,1-3 check hier-a100-4-sys-off 4 --quick
      DDP4J_TOPO_FILE=$topo/pcie-8gpu-two-sockets.txt check hier-pcie-8 8 --quick ;;
    hosts)
      # A cuda group on fake hosts (--ranks-per-host: DDP4J_HOST_ID=host{rank/K}, LOCAL_RANK={rank%K}): the hosts
      # as the hierarchy's islands over IPC, the column between them over the sockets (NCCL refuses two ranks of
      # one communicator on one GPU); with auto, NCCL's column fails on the shared GPU and falls back with a WARN.
      DDP4J_INTER_HOST=socket DDP4J_SOCKET_IFNAME=lo check hosts-2x2-socket 4 --ranks-per-host 2
      DDP4J_INTER_HOST=socket DDP4J_SOCKET_IFNAME=lo check hosts-2x4-socket 8 --ranks-per-host 4 --quick
      DDP4J_INTER_HOST=auto DDP4J_SOCKET_IFNAME=lo check hosts-2x2-auto 4 --ranks-per-host 2 --quick
      grep -h "could not create its NCCL communicator" "$out/check-hosts-2x2-auto.log" | head -2 >> "$out/hosts-fallback.txt" ;;
    hosthop)
      # Ring hops without peer access through host memory (HostHop), the other hops over IPC.
      DDP4J_P2P_DISABLE=1 check hosthop-all-2 2 --quick
      DDP4J_P2P_DISABLE_PAIRS=0-1 check hosthop-01-3 3 --quick
      DDP4J_TOPO_FILE=$topo/a100-4gpu-nvlink-pairs.txt DDP4J_P2P_DISABLE_PAIRS=0-2,0-3,1-2,1-3 check a100-4-sys-off 4 --quick
      DDP4J_TOPO_FILE=$topo/dgx-h100-8gpu-nvswitch.txt DDP4J_P2P_DISABLE_PAIRS=0-4,1-5,2-6,3-7,0-5,1-4 check hosthop-8 8 --quick ;;
    hostbench)
      # 2 ranks with DDP4J_P2P_DISABLE=1: this build's ring through host memory against OLD's host-staged path.
      for round in 1 2; do
        for build in new old; do
          c=$cp; [ $build = old ] && c=$oldcp
          DDP4J_P2P_DISABLE=1 timeout 200 "$java" -cp "$c" dev.ddp4j.collectives.cuda.harness.GpuHarness bench --nproc 2 \
            --variants auto --max-bytes 268435456 > "$out/hostbench-$build-$round.log" 2>&1
          summary+=("hostbench $build round $round rc=$?")
        done
      done ;;
    tests)
      timeout "${TESTS_TIMEOUT:-300}" "$java" -cp "$cp" dev.ddp4j.collectives.cuda.GpuTestMain ${TESTS:-} > "$out/tests.log" 2>&1
      summary+=("tests rc=$? $(grep -E '[0-9]+ (tests )?(succeeded|failed|aborted)' "$out/tests.log" | tr '\n' ' ')") ;;
    bench)
      for round in $(seq "${ROUNDS:-2}"); do
        for build in new old; do
          c=$cp; [ $build = old ] && c=$oldcp
          timeout "${BENCH_TIMEOUT:-200}" "$java" -cp "$c" dev.ddp4j.collectives.cuda.harness.GpuHarness bench --nproc 2 --variants auto \
            --max-bytes 268435456 > "$out/bench-$build-$round.log" 2>&1
          summary+=("bench $build round $round rc=$?")
        done
      done ;;
  esac
done
echo quit | nvidia-cuda-mps-control
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
