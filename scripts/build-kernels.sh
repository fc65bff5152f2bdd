#!/usr/bin/env bash
# Compiles a .cu file into the fat binary its module loads (sm_90 machine code + compute_90 PTX, which newer GPUs
# JIT-compile), and records the SHA-256 of the source, of each header it includes with #include "..." (from the
# source's folder), and of the binary beside it as NAME.sha256; the modules' KernelBinaryTest /
# SyntheticKernelBinaryTest fail the build when a source or header changed without this script being run.
# Needs nvcc (CUDA 13.0 here); run it after every edit of a .cu file and commit both outputs.
# Usage: scripts/build-kernels.sh [SOURCE.cu RESOURCE_DIR]   (default: the cuda backend's all-reduce kernels)
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-collectives/src/main/cuda/ddp4j_allreduce.cu}
res=${2:-collectives/src/main/resources/dev/ddp4j/collectives/cuda}
name=$(basename "$src" .cu)
mkdir -p "$res"
nvcc -fatbin -O3 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
  -o "$res/$name.fatbin" "$src"
{
  echo "source $(sha256sum < "$src" | cut -d' ' -f1)"
  for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$src"); do
    echo "include $inc $(sha256sum < "$(dirname "$src")/$inc" | cut -d' ' -f1)"
  done
  echo "fatbin $(sha256sum < "$res/$name.fatbin" | cut -d' ' -f1)"
  echo "nvcc $(nvcc --version | tail -1)"
} > "$res/$name.sha256"
cat "$res/$name.sha256"
