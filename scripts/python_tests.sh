#!/usr/bin/env bash
# Builds and installs the Python package (pip, scikit-build-core + nanobind, no network needed
# once scripts/setup.sh has run), then runs its tests. In CI (CI=true) the package is built
# CPU-only to save time; elsewhere with the CUDA backend when nvcc is found.
#   CUDIST_PYTHON_CUDA=ON|OFF scripts/python_tests.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
cuda=${CUDIST_PYTHON_CUDA:-$([ "${CI:-}" = true ] && echo OFF || echo ON)}
args=(--no-build-isolation --no-deps -q . -C build-dir=build-python
      -C "cmake.define.CUDIST_ENABLE_CUDA=$cuda")
command -v ccache >/dev/null && args+=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache
                                       -C cmake.define.CMAKE_CUDA_COMPILER_LAUNCHER=ccache)
python3 -m pip install "${args[@]}"
python3 -m pytest python/tests -q -rs "$@"
