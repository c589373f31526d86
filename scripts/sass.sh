#!/usr/bin/env bash
# The SASS of a CUDA object compiled here, for reading registers, spills' places and instruction
# counts without device time. The toolkit on this machine has nvcc and ptxas but no disassembler,
# so cuobjdump comes once from NVIDIA's PyPI wheel (nvidia-cuda-cuobjdump) into a cache folder.
#
#   scripts/sass.sh OBJECT.o > OBJECT.sass      e.g. after
#   nvcc -c -O3 -DNDEBUG -DCUDIST_WITH_CUDA=1 -I include -I src --expt-relaxed-constexpr -std=c++17 \
#        --generate-code=arch=compute_90,code=sm_90 src/distance/detail/cuda/pairwise_float.cu -o /tmp/pf.o
#   then scripts/sass_banks.py OBJECT.sass NAME_PART  (register-bank reads of a kernel's FFMAs)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/sass.sh OBJECT.o" >&2; exit 2; }
[ -f "$1" ] || { echo "sass.sh: no such object: $1" >&2; exit 2; }
tool=$(command -v cuobjdump || true)
if [ -z "$tool" ]; then
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/cudist-tools
  tool=$cache/nvidia/cu13/bin/cuobjdump
  if [ ! -x "$tool" ]; then
    mkdir -p "$cache"
    python3 -m pip download --quiet --no-deps nvidia-cuda-cuobjdump -d "$cache" >&2
    python3 -m zipfile -e "$(ls "$cache"/nvidia_cuda_cuobjdump-*.whl | tail -1)" "$cache"
    chmod +x "$tool"
  fi
fi
"$tool" -sass "$1"
