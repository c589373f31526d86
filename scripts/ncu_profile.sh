#!/usr/bin/env bash
# Profiles one kernel of each named benchmark case with ncu in one device call, and leaves per
# case the kernel's full-set details, its hottest SASS lines (scripts/ncu_hotspots.py) and every
# collected metric (the raw page, CSV) as text in $OUT: what docs/tuning.md asks for before each
# performance change.
#
#   scripts/ncu_profile.sh CASE=KERNEL_REGEX ...    e.g. K2=BoundedSearchKernel S3=ThreadPerRowSpmv
#   scripts/ncu_profile.sh CASE=                     every kernel of the case, durations only
#   scripts/ncu_profile.sh CASE@SKIP=KERNEL_REGEX    skip SKIP launches of the kernel first
#   NCU_SKIP=2 ...   the default SKIP (2: past the warm-up calls)
#   NCU_REPEATS=1 ...  timed runs of each case (the bench's --repeats; default the bench's own)
#   Everything lands in $OUT/ncu-profile.tgz (the device returns a few files per call, not dozens).
#   builds the cudist tool into $BUILD_DIR (default build-gpu) first if it is not there.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/ncu-out}
BUILD=${BUILD_DIR:-build-gpu}
mkdir -p "$OUT"
tool=$BUILD/tools/cudist/cudist
repeats=${NCU_REPEATS:+--repeats $NCU_REPEATS}
if [ ! -x "$tool" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCUDIST_BUILD_TESTS=OFF -DCUDIST_BUILD_EXAMPLES=OFF > "$OUT/ncu_build.log" 2>&1 &&
    cmake --build "$BUILD" -j"$(nproc)" --target cudist_cli >> "$OUT/ncu_build.log" 2>&1 ||
    { tail -30 "$OUT/ncu_build.log"; exit 1; }
fi

for spec in "$@"; do
  case_id=${spec%%=*}  # files are named after it
  kernel=${spec#*=}
  bench_case=${case_id%%@*}
  skip=${NCU_SKIP:-2}
  [[ $case_id == *@* ]] && skip=${case_id#*@}
  if [ -z "$kernel" ]; then
    ncu --kernel-name-base demangled --metrics gpu__time_duration.sum --print-summary per-kernel \
        "$tool" bench --case "$bench_case" $repeats > "$OUT/$case_id-kernels.txt" 2>&1
    echo "ncu_profile: $case_id every kernel: exit $?"
    continue
  fi
  ncu --kernel-name-base demangled -k "regex:$kernel" --launch-skip "$skip" --launch-count 1 \
      --set full --import-source yes -f -o "/tmp/$case_id" "$tool" bench --case "$bench_case" $repeats \
      > "$OUT/$case_id-ncu.log" 2>&1
  echo "ncu_profile: $case_id $kernel: exit $?"
  ncu --import "/tmp/$case_id.ncu-rep" --page details > "$OUT/$case_id-details.txt" 2>&1
  python3 scripts/ncu_hotspots.py "/tmp/$case_id.ncu-rep" --top 40 > "$OUT/$case_id-hotspots.txt" 2>&1
  # The whole SASS with per-line counts: the opcode table says what, this says where.
  ncu --import "/tmp/$case_id.ncu-rep" --page source --print-source sass --csv > "$OUT/$case_id-sass.csv" 2>&1
  # Every collected metric by its own name (requests, wavefronts and sectors per unit, which the
  # details page folds into "Mem Busy" and "Max Bandwidth").
  ncu --import "/tmp/$case_id.ncu-rep" --page raw --csv > "$OUT/$case_id-raw.csv" 2>&1
done
tar -czf "$OUT/ncu-profile.tgz" -C "$OUT" --remove-files $(cd "$OUT" && ls *-kernels.txt *-details.txt *-hotspots.txt *-sass.csv *-raw.csv *-ncu.log 2>/dev/null)
