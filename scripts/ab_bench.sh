#!/usr/bin/env bash
# Same-run before/after: the benchmark suites of this tree and of earlier revisions, built and
# run one after the other on one GPU in one device call. Timings from different runs (another
# machine, another day, other clocks) differ by more than many changes move them; a regression
# is pinned to a change only by measuring both sides in the same run.
#
#   here:    scripts/ab_bench.sh pack REV...   git archive of each REV into .ab/ (.gitignore'd: carry it)
#   device:  BENCH_SUITES="knn" scripts/ab_bench.sh run
#            builds the cudist tool of every .ab/*.tar and of this tree (sm_90, no tests), runs
#            `cudist bench` with each, and prints one table: case, time per revision.
#            BENCH_CASES="K4" runs only those cases (revisions from 3f1832c on know --case).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = pack ]; then
  shift
  mkdir -p .ab
  for rev in "$@"; do
    name=$(git rev-parse --short "$rev")
    # The data folder is not packed: the runs read this tree's.
    git archive --format=tar -o ".ab/$name.tar" "$rev" -- . ':(exclude)data' ':(exclude)python'
    echo "ab_bench: .ab/$name.tar ($(du -h ".ab/$name.tar" | cut -f1))"
  done
  exit 0
fi
[ "${1:-}" = run ] || { echo "usage: scripts/ab_bench.sh pack REV... | run" >&2; exit 2; }

OUT=${OUT:-$PWD/ab-out}
mkdir -p "$OUT"
suites=()
for s in ${BENCH_SUITES:-}; do suites+=(--suite "$s"); done
for c in ${BENCH_CASES:-}; do suites+=(--case "$c"); done
work=/tmp/ab_bench
mkdir -p $work

# Builds the tool of the source tree $1 into $2 and runs the suites into $OUT/$3.json.
build_and_run() {
  local src=$1 build=$2 name=$3 started
  started=$(date +%s)
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCUDIST_BUILD_TESTS=OFF -DCUDIST_BUILD_EXAMPLES=OFF > "$work/$name.build.log" 2>&1 &&
    cmake --build "$build" -j"$(nproc)" --target cudist_cli >> "$work/$name.build.log" 2>&1 ||
    { tail -30 "$work/$name.build.log"; return 1; }
  echo "ab_bench: $name built in $(( $(date +%s) - started )) s"
  "$build/tools/cudist/cudist" bench "${suites[@]}" --json "$OUT/$name.json" > "$work/$name.bench.log" 2>&1 ||
    { tail -30 "$work/$name.bench.log"; return 1; }
}

names=()
for tar in .ab/*.tar; do
  [ -e "$tar" ] || continue
  name=$(basename "$tar" .tar)
  rm -rf "${work:?}/$name"; mkdir -p "$work/$name"
  tar -xf "$tar" -C "$work/$name"
  ln -s "$PWD/data" "$work/$name/data"
  build_and_run "$work/$name" "$work/$name/build" "$name"
  names+=("$name")
done
build_and_run "$PWD" "${BUILD_DIR:-build-gpu}" this
names+=(this)

python3 - "$OUT" "${names[@]}" <<'PY'
import json, sys
out, names = sys.argv[1], sys.argv[2:]
runs = {n: {c["id"]: c for c in json.load(open(f"{out}/{n}.json"))["cases"]} for n in names}
ids = list(runs[names[-1]])
print("case  " + "".join(f"{n:>12}" for n in names) + "   (us, one run each, same GPU)")
for i in ids:
    cells = "".join(f"{runs[n][i]['time_us']:12.1f}" if i in runs[n] else f"{'-':>12}" for n in names)
    print(f"{i:<6}{cells}")
PY
