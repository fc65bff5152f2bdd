#!/usr/bin/env bash
# Builds the bench module's synthetic-model kernels (the spin backward and SGD step of launcher.jar bench ddp) with
# scripts/build-kernels.sh; commit the fat binary and its .sha256.
exec "$(dirname "$0")/build-kernels.sh" bench/src/main/cuda/ddp4j_synthetic.cu \
  bench/src/main/resources/dev/ddp4j/bench/ddp
