#!/bin/bash
# Builds and runs nccl_collectives.cu (beside this script) on the GPU machine: NCCL's all_reduce, broadcast,
# all_gather and reduce_scatter over every visible GPU, timed as `launcher.jar bench --backend cuda` times ddp4j.
# Usage: bash nccl_collectives.sh [MIN_BYTES MAX_BYTES FACTOR [OPS]]
here=$(cd "$(dirname "$0")" && pwd)
inc=$(dirname "$(find / -name nccl.h -not -path '/proc/*' 2>/dev/null | head -1)")
lib=$(dirname "$(ldconfig -p | awk '/libnccl.so /{print $NF; exit}')")
bin=$(mktemp -d)/nccl_collectives
nvcc -O2 -arch=sm_90 -o "$bin" "$here/nccl_collectives.cu" -I"$inc" -L"$lib" -lnccl || exit 1
"$bin" "$@"
