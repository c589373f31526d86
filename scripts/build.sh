#!/usr/bin/env bash
# Configures and builds cudist into build/ (CUDA backend when nvcc is found).
#   scripts/build.sh [cmake --build arguments, e.g. --target cudist_cli]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
ci_flags=()
# CI has no GPU: its CUDA code is compiled to prove it builds, never run, so ptxas skips its
# optimisation passes there to keep CI's 2-core build short.
[ "${CI:-}" = true ] && ci_flags=(-DCMAKE_CUDA_FLAGS=-Xptxas=-O0)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "${ci_flags[@]}" >/dev/null
cmake --build build -j"$(nproc)" "$@"
