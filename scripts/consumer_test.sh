#!/usr/bin/env bash
# Installs an already-built cudist tree (`cmake --install`, nothing is compiled again) into a
# scratch prefix, then builds examples/ as a separate project against it through
# find_package(cudist) and runs the example: proves the CMake package works for a consumer.
#   scripts/consumer_test.sh [BUILD_DIR]     (default: build/, as scripts/build.sh leaves it)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
build=${1:-build}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" --component dev >/dev/null
with_cuda=$(grep -c 'cudist_WITH_CUDA ON' "$scratch"/prefix/lib*/cmake/cudist/cudistConfig.cmake || true)
cmake -S examples -B "$scratch/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/build" >/dev/null
# A shared library is found through the executable's build RPATH, which CMake sets to the prefix.
"$scratch/build/00_pairwise" | tee "$scratch/out.txt"
grep -q "euclidean distances on" "$scratch/out.txt"
echo "consumer_test: examples/ built and ran against the installed package from $build" \
     "(CUDA backend: $([ "$with_cuda" -gt 0 ] && echo yes || echo no))"
