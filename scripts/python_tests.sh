#!/usr/bin/env bash
# Builds the Python package as a wheel (pip wheel, scikit-build-core + nanobind, no network needed
# once scripts/setup.sh has run), installs it into a fresh virtual environment (numpy, scipy,
# torch, pytest come from the system's site-packages) and runs the tests there, so they test what
# a user installs. In CI (CI=true) the wheel is built CPU-only to save time; elsewhere with the
# CUDA backend when nvcc is found.
#   CUDIST_PYTHON_CUDA=ON|OFF           CUDA backend (default: OFF in CI, else ON when nvcc is found)
#   CUDIST_PYTHON_ARCHS=90|all-wheel    CUDA architectures (default: this machine's GPU, else PTX;
#                                       all-wheel, the list of a released wheel, takes ~7x as long)
#   CUDIST_PYTHON_BUILD_DIR=DIR         build tree, wheel and venv (default: build-python)
#   scripts/python_tests.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
cuda=${CUDIST_PYTHON_CUDA:-$([ "${CI:-}" = true ] && echo OFF || echo ON)}
dir=$(realpath -m "${CUDIST_PYTHON_BUILD_DIR:-build-python}")
args=(--no-build-isolation --no-deps -q . -w "$dir/wheel" -C build-dir="$dir/cmake"
      -C "cmake.define.CUDIST_ENABLE_CUDA=$cuda")
args+=(-C "cmake.define.CUDIST_CUDA_ARCHITECTURES=${CUDIST_PYTHON_ARCHS:-}")  # "": as a plain build
command -v ccache >/dev/null && args+=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache
                                       -C cmake.define.CMAKE_CUDA_COMPILER_LAUNCHER=ccache)
rm -rf "$dir/wheel" "$dir/venv"
python3 -m pip wheel "${args[@]}"
wheel=$(ls "$dir"/wheel/cudist-*.whl)
python3 -m venv --system-site-packages "$dir/venv"
# --system-site-packages leaves out the user's site-packages (pip --user, where some machines keep
# numpy and torch): a .pth file lists every site directory of this python after the venv's own,
# so the wheel's cudist still comes first.
python3 -c 'import site, sys; print("\n".join(p for p in site.getsitepackages() + [site.getusersitepackages()] if p))' \
  > "$("$dir/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/base_site.pth"
"$dir/venv/bin/python" -m pip install -q --no-index --no-deps --force-reinstall "$wheel"
# From outside the source tree, so `import cudist` can only find the installed wheel. The
# extension may need only the C/C++ and OpenMP runtimes (python/README.md "What a wheel needs"):
# the CUDA runtime is linked in and finds the driver (libcuda) itself.
(cd "$dir" && venv/bin/python - "$wheel" <<'PY'
import pathlib, re, subprocess, sys, sysconfig
import cudist
ext = pathlib.Path(cudist._cudist.__file__)
assert ext.is_relative_to(sysconfig.get_paths()["purelib"]), f"imported {ext}, not the wheel"
dynamic = subprocess.run(["readelf", "-d", str(ext)], capture_output=True, text=True, check=True)
needed = re.findall(r"\(NEEDED\).*\[(.+)\]", dynamic.stdout)
allowed = r"(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|libgomp|ld-linux-x86-64)\.so\.\d+"
unexpected = [lib for lib in needed if not re.fullmatch(allowed, lib)]
assert not unexpected, f"{ext.name} needs {unexpected}: not found on a user's machine"
print(f"python_tests: {pathlib.Path(sys.argv[1]).name} imports from a fresh venv;"
      f" CUDA backend {cudist._cudist.cuda_compiled()}; needs {' '.join(needed)}")
PY
)
"$dir/venv/bin/python" -m pytest python/tests -q -rs "$@"
