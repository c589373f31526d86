#!/usr/bin/env bash
# Builds the CPU backend and its concurrency test with ThreadSanitizer into build-tsan/ and runs
# it: many host threads calling cdist / knn / match / spmv / apsp at once must show no data race.
#   scripts/tsan.sh [extra gtest arguments]
# libgomp is not built with ThreadSanitizer, so the synchronisation inside an OpenMP team is
# invisible to it and would be reported as races: OpenMP teams are one thread here
# (OMP_NUM_THREADS=1), and what is checked is the library's state shared between host threads.
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDIST_ENABLE_CUDA=OFF \
  -DCUDIST_BUILD_TOOLS=OFF -DCUDIST_BUILD_EXAMPLES=OFF "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" >/dev/null
cmake --build build-tsan -j"$(nproc)" --target concurrency_test_cpu
OMP_NUM_THREADS=1 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  build-tsan/tests/trust/concurrency_test_cpu "$@"
