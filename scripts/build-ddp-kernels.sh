#!/usr/bin/env bash
# Compiles ddp-runtime's synthetic-model kernels (ddp-runtime/src/main/cuda/ddp4j_synthetic.cu: the spin
# backward and the SGD step of launcher.jar bench ddp) into the fat binary the runtime loads (sm_90 machine code
# + compute_90 PTX), and records the SHA-256 of the source and of the binary beside it; SyntheticKernelBinaryTest
# fails the build when the source changed without this script being run. Needs nvcc; commit both outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
src=ddp-runtime/src/main/cuda/ddp4j_synthetic.cu
res=ddp-runtime/src/main/resources/dev/ddp4j/runtime/cuda
mkdir -p "$res"
nvcc -fatbin -O3 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
  -o "$res/ddp4j_synthetic.fatbin" "$src"
{
  echo "source $(sha256sum < "$src" | cut -d' ' -f1)"
  echo "fatbin $(sha256sum < "$res/ddp4j_synthetic.fatbin" | cut -d' ' -f1)"
  echo "nvcc $(nvcc --version | tail -1)"
} > "$res/ddp4j_synthetic.sha256"
cat "$res/ddp4j_synthetic.sha256"
