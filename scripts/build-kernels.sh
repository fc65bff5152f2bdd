#!/usr/bin/env bash
# Compiles a .cu file into the fat binary its module loads: machine code (SASS) for sm_70, 75, 80, 86, 89 and 90
# (Volta V100 to Hopper) plus compute_90 PTX, which newer GPUs JIT-compile; and records the SHA-256 of the source,
# of each header it includes with #include "..." (from the source's folder), of the binary beside it, and the nvcc
# release, as NAME.sha256. The modules' KernelBinaryTest / SyntheticKernelBinaryTest fail the build when a source or
# header changed without this script being run, or when the binary lacks one of those architectures.
#
# Toolchain: nvcc 11.8, whose output loads on every driver of the CUDA 12.0 era and later (>= 525); CUDA 13's nvcc
# dropped sm_70 and its output needs driver 580. On Debian 12 (bookworm), as root:
#   printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: contrib non-free non-free-firmware\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' > /etc/apt/sources.list.d/debian-non-free.sources
#   apt-get update && apt-get install -y --no-install-recommends nvidia-cuda-toolkit g++-11
# (contrib holds nvidia-support, which the toolkit's libcuda1 dependency needs). NVCC names another nvcc 11.8
# (default /usr/bin/nvcc, the package's; /usr/local/bin/nvcc may be a newer CUDA), HOST_CXX its host compiler
# (default g++-11: gcc 11 is the newest that nvcc 11.8 supports; Debian's default g++ is 12).
# Run it after every edit of a .cu file and commit both outputs.
# Usage: scripts/build-kernels.sh [SOURCE.cu RESOURCE_DIR]   (default: the cuda backend's all-reduce kernels)
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-collectives/src/main/cuda/ddp4j_allreduce.cu}
res=${2:-collectives/src/main/resources/dev/ddp4j/collectives/cuda}
nvcc=${NVCC:-/usr/bin/nvcc}
release=$("$nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\),.*/\1/p' || true)
if [ "$release" != "11.8" ]; then
  echo "build-kernels.sh: needs nvcc 11.8 at NVCC=$nvcc (found: ${release:-none}); install Debian bookworm's nvidia-cuda-toolkit from non-free (see this script's header)" >&2
  exit 1
fi
host_cxx=${HOST_CXX:-g++-11}
if ! command -v "$host_cxx" > /dev/null; then
  echo "build-kernels.sh: needs the host compiler HOST_CXX=$host_cxx for nvcc 11.8; install Debian's g++-11 (see this script's header)" >&2
  exit 1
fi
name=$(basename "$src" .cu)
mkdir -p "$res"
gencode=()
for sm in 70 75 80 86 89 90; do gencode+=(-gencode "arch=compute_$sm,code=sm_$sm"); done
# nvcc runs ptxas, cudafe++ and fatbinary from PATH: its own folder first, not a newer CUDA's in /usr/local/bin.
# -compress-all compresses the machine code too (by default only the PTX): the binaries are about a quarter the size.
PATH="$(dirname "$nvcc"):$PATH" "$nvcc" -ccbin "$host_cxx" -fatbin -O3 "${gencode[@]}" -gencode arch=compute_90,code=compute_90 \
  -Xfatbin=-compress-all -o "$res/$name.fatbin" "$src"
{
  echo "source $(sha256sum < "$src" | cut -d' ' -f1)"
  for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$src"); do
    echo "include $inc $(sha256sum < "$(dirname "$src")/$inc" | cut -d' ' -f1)"
  done
  echo "fatbin $(sha256sum < "$res/$name.fatbin" | cut -d' ' -f1)"
  echo "nvcc $("$nvcc" --version | tail -1) host $("$host_cxx" -dumpfullversion)"
} > "$res/$name.sha256"
cat "$res/$name.sha256"
