#!/usr/bin/env bash
# Sets up, builds everything and runs every test: the C++ tests of both backends (CUDA tests skip
# with a message where there is no GPU), a consumer project against the installed CMake package,
# and the Python package's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
scripts/consumer_test.sh build  # the installed CMake package, used by examples/ as a consumer
if [ -f pyproject.toml ]; then
  scripts/python_tests.sh
fi
