#!/usr/bin/env bash
# Compiles the cuda backend's kernels (collectives/src/main/cuda/ddp4j_allreduce.cu) into the fat binary the
# backend loads (sm_90 machine code + compute_90 PTX, which newer GPUs JIT-compile), and records the SHA-256 of
# the source and of the binary beside it; KernelBinaryTest fails the build when the source changed without this
# script being run. Needs nvcc (CUDA 13.0 here); run it after every edit of the .cu file and commit both outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
src=collectives/src/main/cuda/ddp4j_allreduce.cu
res=collectives/src/main/resources/dev/ddp4j/collectives/cuda
mkdir -p "$res"
nvcc -fatbin -O3 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
  -o "$res/ddp4j_allreduce.fatbin" "$src"
{
  echo "source $(sha256sum < "$src" | cut -d' ' -f1)"
  echo "fatbin $(sha256sum < "$res/ddp4j_allreduce.fatbin" | cut -d' ' -f1)"
  echo "nvcc $(nvcc --version | tail -1)"
} > "$res/ddp4j_allreduce.sha256"
cat "$res/ddp4j_allreduce.sha256"
