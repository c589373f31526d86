#!/usr/bin/env bash
# Builds the GPU machine's binaries here, where build time costs no device time, and carries them
# there. A device call that builds spends 87 s (16 cores, everything) to 185 s (two trees side by
# side for an A/B) of its limited time compiling; with the binaries carried it only runs them.
#
#   here:    scripts/prebuilt.sh pack [REV] [TARGET...]
#              builds the targets (default: the cudist tool, every CUDA test and benchmark) for sm_90 with a
#              portable CPU backend, from this tree, or from REV's tree (for an A/B's other side),
#              and packs the binaries and ctest's files into .prebuilt/NAME.tar.xz (NAME: this or
#              REV's short hash). Carry .prebuilt.
#   device:  scripts/prebuilt.sh unpack
#              puts every pack where its binaries expect it: this tree's in /tmp/cudist-this/build-sm90
#              (scripts/gpu_check.sh prebuilt test ... unpacks and runs them), REV's tool as
#              /tmp/cudist-REV/build-sm90/tools/cudist/cudist.
#
# The binaries name their source tree's data folder and ctest names the binaries by absolute
# paths, so each tree is built under a path that exists on both machines: /tmp/cudist-NAME, a link
# to this checkout (this tree) or a worktree of REV, linked on the device to its copy of the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

case "${1:-}" in
  pack)
    shift
    name=this
    if [ $# -gt 0 ] && git rev-parse --verify -q "$1^{commit}" > /dev/null; then  # REV, not a target
      name=$(git rev-parse --short "$1")
      if [ ! -e "/tmp/cudist-$name/.git" ]; then
        git worktree prune
        git worktree add -f --detach "/tmp/cudist-$name" "$1" > /dev/null
      fi
      shift
    else
      ln -sfn "$repo" /tmp/cudist-this
    fi
    src=/tmp/cudist-$name
    build=$src/build-sm90
    # A shared library: the sm_90 code is ~100 MB, once in libcudist.so instead of in every binary
    # (the carried files may take 64 MiB; xz makes the library ~17 MB).
    cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DCUDIST_NATIVE_CPU=OFF -DCUDIST_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=ON > /dev/null
    targets=("$@")
    if [ ${#targets[@]} -eq 0 ]; then  # the tool, and for this tree every CUDA test and benchmark
      targets=(cudist_cli)
      [ $name = this ] && mapfile -t -O 1 targets < <(ninja -C "$build" -t targets all |
        grep -v cmake_object_order | sed -n 's/^\([a-z0-9_]*_test_cuda\|bench_[a-z0-9_]*\): .*/\1/p')
    fi
    cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
    mkdir -p .prebuilt
    # ctest's lists of each binary's tests, made here (gtest_discover_tests would make them on the
    # device with its own CMake, whose GoogleTest module lists none of them: run 125).
    ctest --test-dir "$build" -N > /dev/null
    # The binaries, the library and ctest's files.
    (cd "$build" && find . ! -path '*/CMakeFiles/*' \( -name 'libcudist.so*' -o -type f \( -name CTestTestfile.cmake \
        -o -name '*_include.cmake' -o -name '*_tests.cmake' -o \( -perm -u+x ! -name '*.so*' ! -name '*.sh' \) \) \) -print0 |
      XZ_OPT=-T0 tar --null -cJf "$repo/.prebuilt/$name.tar.xz" -T -)
    echo "prebuilt: .prebuilt/$name.tar.xz ($(du -h ".prebuilt/$name.tar.xz" | cut -f1)), built from $src"
    ;;
  unpack)
    for pack in .prebuilt/*.tar.xz; do
      [ -e "$pack" ] || continue
      name=$(basename "$pack" .tar.xz)
      if [ "$name" = this ]; then
        ln -sfn "$repo" /tmp/cudist-this
      else  # REV's binaries read only the data folder of their tree
        mkdir -p "/tmp/cudist-$name" && ln -sfn "$repo/data" "/tmp/cudist-$name/data"
      fi
      mkdir -p "/tmp/cudist-$name/build-sm90" && tar -xJf "$pack" -C "/tmp/cudist-$name/build-sm90"
      # The packed test lists newer than the binaries and ctest's include files: ctest reads them
      # instead of listing the tests again.
      find "/tmp/cudist-$name/build-sm90" -name '*_tests.cmake' -exec touch {} +
      echo "prebuilt: $name in /tmp/cudist-$name/build-sm90"
    done
    ;;
  *)
    echo "usage: scripts/prebuilt.sh pack [REV] [TARGET...] | unpack" >&2
    exit 2
    ;;
esac
