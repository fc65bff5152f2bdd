#!/usr/bin/env bash
# Builds ddp-runtime's synthetic-model kernels (the spin backward and SGD step of launcher.jar bench ddp) with
# scripts/build-kernels.sh; commit the fat binary and its .sha256.
exec "$(dirname "$0")/build-kernels.sh" ddp-runtime/src/main/cuda/ddp4j_synthetic.cu \
  ddp-runtime/src/main/resources/dev/ddp4j/runtime/cuda
