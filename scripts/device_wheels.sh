#!/usr/bin/env bash
# Downloads, here, the wheels that the GPU machine lacks for cudist.dask's runs there (it has no
# network; `scripts/gpu_check.sh multigpu` installs what it finds in .whl/, which the device call
# must carry). Only the packages its image does not hold: the rest of dask's and distributed's
# needs (cloudpickle, toolz, fsspec, msgpack, psutil, pyyaml, ...) are there already. Pinned to
# the versions that the CPU tests run with here, so both sides run the same dask.
#
#   scripts/device_wheels.sh      then: run(carry=[".whl"], command="... scripts/gpu_check.sh build multigpu")
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.whl/' .gitignore || { echo "device_wheels: .whl/ must be ignored (.gitignore)" >&2; exit 1; }
version() { python3 -c "import importlib.metadata as m; print(m.version('$1'))"; }
mkdir -p .whl
for pkg in dask distributed partd locket tornado tblib zict; do
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
      -d .whl "$pkg==$(version "$pkg")"
done
ls .whl
