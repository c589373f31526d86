#!/usr/bin/env bash
# CUTLASS / CuTe headers for the prototypes under bench/prototypes/ (issue 11 allows them as a
# build dependency): PyPI's nvidia-cutlass wheel ships them under cutlass_library/source/include.
# The wheel is downloaded here into .whl/ (ignored by git), which a device call carries (the GPU
# machine has no network), and unpacked once; prints the include directory.
#
#   nvcc ... -I"$(scripts/cutlass_headers.sh)" ...      here, or on the device with carry [".whl"]
set -euo pipefail
cd "$(dirname "$0")/.."
version=4.2.0.0
wheel=.whl/nvidia_cutlass-$version-py3-none-any.whl
dir=${CUTLASS_DIR:-/tmp/cutlass-$version}
if [ ! -f "$wheel" ]; then
  grep -qx '/.whl/' .gitignore || { echo "cutlass_headers: .whl/ must be ignored (.gitignore)" >&2; exit 1; }
  mkdir -p .whl
  python3 -m pip download -q --no-deps -d .whl "nvidia-cutlass==$version" >&2 ||
    { echo "cutlass_headers: $wheel is missing and could not be downloaded" >&2; exit 1; }
fi
if [ ! -f "$dir/include/cutlass/version.h" ]; then
  rm -rf "$dir.partial" && mkdir -p "$dir.partial"
  python3 - "$wheel" "$dir.partial" <<'PY'
import os, sys, zipfile
prefix = "cutlass_library/source/include/"
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.startswith(prefix) and not name.endswith("/"):
            target = sys.argv[2] + "/include/" + name[len(prefix):]
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with z.open(name) as src, open(target, "wb") as dst:
                dst.write(src.read())
PY
  rm -rf "$dir" && mv "$dir.partial" "$dir"
fi
echo "$dir/include"
