#!/usr/bin/env bash
# The SASS of a CUDA object compiled here, for reading registers, spills' places and instruction
# counts without device time. The toolkit on this machine has nvcc and ptxas but no disassembler,
# so cuobjdump and nvdisasm (which cuobjdump calls for sm_90a code) come once from NVIDIA's PyPI
# wheels (nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm) into a cache folder.
#
#   scripts/sass.sh OBJECT.o > OBJECT.sass      e.g. after
#   nvcc -c -O3 -DNDEBUG -DCUDIST_WITH_CUDA=1 -I include -I src --expt-relaxed-constexpr -std=c++17 \
#        --generate-code=arch=compute_90,code=sm_90 src/distance/detail/cuda/pairwise_float.cu -o /tmp/pf.o
#   then scripts/sass_banks.py OBJECT.sass NAME_PART  (register-bank reads of a kernel's FFMAs)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/sass.sh OBJECT.o" >&2; exit 2; }
[ -f "$1" ] || { echo "sass.sh: no such object: $1" >&2; exit 2; }
if ! command -v cuobjdump > /dev/null || ! command -v nvdisasm > /dev/null; then
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/cudist-tools
  for tool in cuobjdump nvdisasm; do
    if [ ! -x "$cache/nvidia/cu13/bin/$tool" ]; then
      mkdir -p "$cache"
      python3 -m pip download --quiet --no-deps "nvidia-cuda-$tool" -d "$cache" >&2
      python3 -m zipfile -e "$(ls "$cache"/nvidia_cuda_"$tool"-*.whl | tail -1)" "$cache"
      chmod +x "$cache/nvidia/cu13/bin/$tool"
    fi
  done
  export PATH=$cache/nvidia/cu13/bin:$PATH
fi
cuobjdump -sass "$1"
