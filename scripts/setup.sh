#!/usr/bin/env bash
# Installs what building and testing cudist needs, where it is missing: a C++17 compiler, CMake,
# Ninja, GoogleTest, CLI11, nlohmann-json (Debian/Ubuntu packages) and, for the Python package and
# its tests, numpy, scipy, pytest, nanobind, scikit-build-core, scikit-learn, dask[array] and
# distributed (PyPI; cudist.dask's tests run on a dask.distributed LocalCluster), and matplotlib
# for the benchmark pictures (cudist bench --plot). CUDA is
# optional: with nvcc on PATH (or in /usr/local/cuda/bin) the CUDA backend is built too.
set -euo pipefail

# What is needed, and how to tell it is already there (a command, or a header where a machine may
# have it from another source than Debian's package).
need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v ninja >/dev/null || need_apt+=(ninja-build)
command -v g++ >/dev/null || need_apt+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need_apt+=(libgtest-dev)
[ -f /usr/include/CLI/CLI.hpp ] || need_apt+=(libcli11-dev)
[ -f /usr/include/nlohmann/json.hpp ] || need_apt+=(nlohmann-json3-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

py_missing=$(python3 - <<'PY'
import importlib.util
mods = {"numpy": "numpy", "scipy": "scipy", "pytest": "pytest", "nanobind": "nanobind",
        "scikit_build_core": "scikit-build-core", "sklearn": "scikit-learn",
        "dask": "dask[array]", "distributed": "distributed", "matplotlib": "matplotlib"}
print(" ".join(pkg for mod, pkg in mods.items() if importlib.util.find_spec(mod) is None))
PY
)
if [ -n "$py_missing" ]; then
  echo "setup: pip installing $py_missing"
  (set -f; python3 -m pip install -q $py_missing)  # no globbing: "dask[array]" is a name
fi
