#!/usr/bin/env bash
# Everything the GPU machine is for, in one call: build with every core, run the CUDA tests,
# run compute-sanitizer (memcheck, racecheck) over them, run the benchmark suites and the torch
# peers on the same inputs, and leave logs, JSON and the merged table in $OUT.
#
#   scripts/gpu_check.sh [build] [test] [demo] [sanitize] [bench] [python] [archs] [upload]
#                        (default: all but archs, the sm_80 + sm_120 compile check)
#   BENCH_SUITES="dense knn" scripts/gpu_check.sh bench                 (a subset of the suites)
#   BENCH_SUITES=knn BENCH_CASES="K2c K4" scripts/gpu_check.sh bench    (a subset of their cases)
#   scripts/gpu_check.sh build sanitize   (all four tools over every binary, 4 shards each, one run
#                                          per core: 414 s with the build on the H100, one call)
#   SANITIZE_TOOLS=memcheck SANITIZE_SHARDS=1 SANITIZE_JOBS=8 ...     (a subset, other widths)
#   SANITIZE_BINARIES="sparse|split" ...                               (a subset of the test binaries)
#   scripts/gpu_check.sh build multigpu   (2+ GPUs: device-set tests, then 2 GPUs vs 1 on k=10 knn,
#                                          and Dask with a worker per GPU against it: carry .whl)
#   scripts/gpu_check.sh prebuilt test ... (instead of build: the binaries scripts/prebuilt.sh packed
#                                          on the machine without a GPU; carry .prebuilt)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
steps=${*:-build test demo sanitize bench python}
want() { [[ " $steps " == *" $1 "* ]]; }
BUILD=${BUILD_DIR:-build-gpu}  # outside the repo to survive re-sent trees on a warm machine
status=0

note() { echo "== $*" | tee -a "$OUT/summary.log"; }

if want prebuilt; then
  scripts/prebuilt.sh unpack | tee -a "$OUT/summary.log"
  [ -x /tmp/cudist-this/build-sm90/tools/cudist/cudist ] || { note "prebuilt: no pack of this tree"; exit 1; }
  BUILD=/tmp/cudist-this/build-sm90
fi

if want build; then
  note "build ($(nproc) cores) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
  started=$(date +%s)
  cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCUDIST_BUILD_EXAMPLES=ON > "$OUT/build.log" 2>&1 &&
    cmake --build $BUILD -j"$(nproc)" >> "$OUT/build.log" 2>&1
  rc=$?; note "build exit $rc in $(( $(date +%s) - started )) s"
  cp $BUILD/.ninja_log "$OUT/ninja_log.txt"  # per-target times, for docs/tuning.md
  [ $rc -eq 0 ] || { tail -40 "$OUT/build.log"; exit 1; }
fi

if want test; then
  ctest --test-dir $BUILD -L cuda --output-on-failure -j4 --timeout 600 > "$OUT/ctest_cuda.log" 2>&1
  rc=$?; note "ctest cuda exit $rc: $(grep -E 'tests passed|tests failed' "$OUT/ctest_cuda.log")"
  [ $rc -eq 0 ] || { grep -E "Failed|FAILED|\*\*\*" "$OUT/ctest_cuda.log" | head -40; status=1; }
fi

if want demo; then
  $BUILD/tools/cudist/cudist demo 2>&1 | tee -a "$OUT/summary.log"
  note "cudist demo exit ${PIPESTATUS[0]}"
fi

if want sanitize; then
  # Every CUDA test binary under memcheck, racecheck, synccheck and initcheck (SANITIZE_TOOLS
  # chooses, so that a round fits one 10-minute device call), run side by side: the
  # instrumentation costs host time and the GPU has room for all of them. Each run's status goes
  # to sanitizer.log the moment it ends, so a round cut off still reports what finished. The tests
  # shrink their large problems under CUDIST_TESTS_REDUCED, keeping every kernel variant and edge.
  san=/tmp/sanitize; rm -rf $san; mkdir -p $san
  log=$OUT/sanitizer.log
  echo "compute-sanitizer $(compute-sanitizer --version | grep -o "Version.*") on" \
       "$(nvidia-smi --query-gpu=name --format=csv,noheader)" >> "$log"
  export CUDIST_TESTS_REDUCED=1 SANITIZER_LOG=$log SANITIZER_DIR=$san
  for exe in $(find $BUILD/tests -name '*_test_cuda' -type f | grep -E "${SANITIZE_BINARIES:-.}" | sort); do
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
      # racecheck looks for shared-memory hazards inside each kernel. It stalls on launches from
      # several host threads at once (the concurrency test ran > 400 s where it takes 1 s alone,
      # the split tests past 460 s, with "failure to track a kernel launch"), and those tests
      # launch the kernels the single-threaded tests check: racecheck leaves them out (in the
      # concurrency and split binaries, every test).
      [[ $tool == racecheck && ($exe == *concurrency_test_cuda || $exe == *split_test_cuda) ]] && continue
      # SANITIZE_SHARDS=N runs each binary as N gtest shards side by side: memcheck of the sparse
      # binary takes 390 s whole (many small launches), longer than the rest of a round.
      for ((part = 0; part < ${SANITIZE_SHARDS:-4}; part++)); do echo "$tool $exe $part"; done
    done
  done | xargs -P "${SANITIZE_JOBS:-$(nproc)}" -L 1 bash -c '
    tool=$0 exe=$1 part=$2 parts='"${SANITIZE_SHARDS:-4}"'
    run=$SANITIZER_DIR/$0_$(basename $1)_$2 name="$(basename $1)"; [ $parts -gt 1 ] && name+=" [$((part + 1))/$parts]"
    threaded=""; [ $tool = racecheck ] && threaded=":Split*:RunParts*:DeviceSetApi*"
    started=$(date +%s)
    # Left out: the 2^31-entry output tests (too large under instrumentation) and the tests that
    # exhaust or measure GPU memory (they would starve the runs beside them); their kernels are
    # the ones the other tests launch.
    # stdbuf: the test prints line by line, so a run cut off shows the test it was in.
    GTEST_TOTAL_SHARDS=$parts GTEST_SHARD_INDEX=$part timeout '"${SANITIZE_TIMEOUT:-540}"' stdbuf -oL compute-sanitizer --tool $tool --error-exitcode 3 "$exe" \
        --gtest_filter="-*SixtyFourBit*:*Huge*:*GpuOutOfMemory*:*TenThousandCalls*$threaded" > $run.log 2>&1
    rc=$?  # 124: cut off by the timeout
    seconds=$(( $(date +%s) - started ))
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $run.log | tail -1)
    # A shard whose tests make no CUDA call passes with nothing to check, which the tool reports
    # as an error of its own.
    grep -q "terminated before first instrumented API call" $run.log && grep -q "^\[  PASSED  \]" $run.log &&
      ! grep -q "FAILED" $run.log && rc=0 summary="no CUDA call in this part"
    {
      echo "$tool $name: exit $rc in $seconds s; $summary"
      [ $rc -ne 0 ] && grep -m 30 -E "=========|FAILED|Timeout" $run.log | sed "s/^/    /"
      if [ $rc -ne 0 ] || [ $seconds -gt 120 ]; then
        # The slowest tests of a run that was slow or did not finish clean: what to shrink.
        grep -E "\[ +(OK|FAILED) +\] .* \([0-9]+ ms\)" $run.log | sort -t"(" -k2 -n -r | head -5 | sed "s/^/    slow: /"
        tail -3 $run.log | sed "s/^/    last: /"
      fi
    } | flock $SANITIZER_LOG tee -a $SANITIZER_LOG > /dev/null'
  unset CUDIST_TESTS_REDUCED
  clean=$(grep -c ": exit 0 " "$log"); runs=$(grep -c ": exit " "$log")
  [ "$clean" -eq "$runs" ] || status=1
  note "sanitizer (${SANITIZE_TOOLS:-all four tools}): $clean of $runs runs clean"
fi

if want bench; then
  rm -f /tmp/bench.json /tmp/torch.json /tmp/cpu.json
  suites=""
  for s in ${BENCH_SUITES:-}; do suites+=" --suite $s"; done
  for c in ${BENCH_CASES:-}; do suites+=" --case $c"; done
  # At most 8 files come back from the device: the raw JSON stays in /tmp, the logs go to
  # summary.log, and report.py writes the merged table and JSON (bench/results/ format) to $OUT.
  $BUILD/tools/cudist/cudist bench $suites --json /tmp/bench.json 2>&1 | tee -a "$OUT/summary.log"
  note "cudist bench exit ${PIPESTATUS[0]}"
  python3 bench/peers/torch_peers.py --json /tmp/torch.json ${BENCH_SUITES:+--suites $BENCH_SUITES} \
      ${BENCH_CASES:+--cases $BENCH_CASES} 2>&1 \
      | tee -a "$OUT/summary.log"
  note "torch peers exit ${PIPESTATUS[0]}"
  if [ -z "${BENCH_SUITES:-}" ] || [[ " $BENCH_SUITES " == *" semiring "* ]]; then
    python3 bench/peers/cpu_peers.py --json /tmp/cpu.json --suites semiring 2>&1 | tee -a "$OUT/summary.log"
    note "scipy graph peers exit ${PIPESTATUS[0]}"
  fi
  if [ -z "${BENCH_SUITES:-}" ] || [[ " $BENCH_SUITES " == *" dense "* || " $BENCH_SUITES " == *" semiring "* ]]; then
    # The open FP32 cases beside cuBLAS's FP32 GEMM at the same instruction count (docs/tuning.md,
    # "The open FP32 cases against NVIDIA's own kernels"): the table goes to summary.log, the JSON
    # stays in /tmp (a full round already returns the 8 files the device gives back).
    (cd bench/peers && python3 fp32_yardsticks.py --bench-json /tmp/bench.json > /tmp/fp32-yardsticks.json) \
        2>&1 | tee -a "$OUT/summary.log"
    note "fp32 yardsticks exit ${PIPESTATUS[0]}"
  fi
  python3 bench/report.py /tmp/bench.json /tmp/torch.json /tmp/cpu.json --out "$OUT" 2>&1 | tee -a "$OUT/summary.log"
fi

if want upload; then
  # Uploads from pageable host memory through cudist's page-locked stages against the driver's
  # pageable copy and the page-locked floor (bench/out_of_core/host_upload.cpp).
  $BUILD/bench/bench_host_upload > "$OUT/host-upload.json" 2>> "$OUT/summary.log"
  note "host upload exit $?: $(tr -d '\n' < "$OUT/host-upload.json")"
fi

if want archs; then
  # Architectures this GPU cannot run: proves the library and tests compile for Ampere (sm_80)
  # and Blackwell RTX (sm_120), whose resource limits differ from Hopper's (not run here).
  started=$(date +%s)
  cmake -S . -B build-archs -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=80;120" \
      -DCUDIST_BUILD_TOOLS=OFF > "$OUT/archs.log" 2>&1 &&
    cmake --build build-archs -j"$(nproc)" >> "$OUT/archs.log" 2>&1
  rc=$?
  note "archs 80;120 build exit $rc in $(( $(date +%s) - started )) s;" \
       "$(cuobjdump --list-elf build-archs/src/libcudist.a 2>/dev/null | grep -o 'sm_[0-9]*' | sort | uniq -c | tr '\n' ' ')"
  [ $rc -eq 0 ] || { tail -40 "$OUT/archs.log"; status=1; }
fi

if want python; then
  if [ -f pyproject.toml ]; then
    # The wheel as a user installs it (static CUDA runtime, fresh venv), sm_90 only to build fast.
    CUDIST_PYTHON_CUDA=ON CUDIST_PYTHON_ARCHS=90 CUDIST_PYTHON_BUILD_DIR=/tmp/cudist-py-build \
      scripts/python_tests.sh -v > "$OUT/python.log" 2>&1
    rc=$?; note "python exit $rc: $(grep '^python_tests:' "$OUT/python.log"); $(tail -1 "$OUT/python.log")"
    /tmp/cudist-py-build/venv/bin/python scripts/python_demo.py 2>&1 | tee -a "$OUT/python.log"
    note "python demo exit ${PIPESTATUS[0]}"
    [ $rc -eq 0 ] || status=1
  fi
fi
if want multigpu; then
  # Device sets on every GPU present (docs/multi_gpu.md): the C++ split tests (cuda:all is a real
  # split here), the Python ones, then bench/multi_gpu_knn.py (issue 14: >= 1.85x on 2 GPUs).
  ctest --test-dir $BUILD -L cuda -R "Split|DeviceSet|device_set" --output-on-failure \
      > "$OUT/ctest_multigpu.log" 2>&1
  rc=$?; note "multigpu ctest exit $rc: $(grep -E 'tests passed|tests failed' "$OUT/ctest_multigpu.log")"
  [ $rc -eq 0 ] || status=1
  # Each GPU's uploads alone and all at once (the NumPy call's halves of y ran at different rates).
  note "multigpu uploads: $($BUILD/bench/bench_multi_gpu_upload 2>> "$OUT/summary.log")"
  # --upgrade: into an existing --target, pip leaves the package there as it was (a warm machine
  # ran the previous tree's build that way, run 40).
  python3 -m pip install -q --upgrade --no-build-isolation --no-deps --target /tmp/cudist-py \
      -C build-dir=/tmp/cudist-py-build -C cmake.define.CUDIST_CUDA_ARCHITECTURES=90 . \
      > "$OUT/multigpu_python.log" 2>&1 &&
    PYTHONPATH=/tmp/cudist-py python3 -m pytest -v -rs python/tests/test_device_sets.py \
      >> "$OUT/multigpu_python.log" 2>&1
  rc=$?; note "multigpu python exit $rc: $(tail -1 "$OUT/multigpu_python.log")"
  [ $rc -eq 0 ] || status=1
  # With the calls' host-side steps (CUDIST_TIMELINE), summarised per configuration into
  # multi-gpu-knn-steps.txt: where the NumPy call's time goes outside the kernels.
  rm -f /tmp/multi-gpu-knn-timeline.json
  # --no-shares: the shares' one-GPU calls would be summarised with the whole job's; they come
  # from a run of their own, untraced.
  CUDIST_TIMELINE=/tmp/multi-gpu-knn-timeline.json PYTHONPATH=/tmp/cudist-py python3 bench/multi_gpu_knn.py \
      --no-shares > "$OUT/multi-gpu-knn.json" 2>> "$OUT/summary.log"
  rc=$?; note "multigpu bench exit $rc: $(grep -E '"(speedup|identical_answers)"' "$OUT/multi-gpu-knn.json" | tr -d '\n ')"
  [ $rc -eq 0 ] || status=1
  python3 scripts/timeline_summary.py --tree /tmp/multi-gpu-knn-timeline.json > "$OUT/multi-gpu-knn-steps.txt" 2>&1
  PYTHONPATH=/tmp/cudist-py python3 bench/multi_gpu_knn.py --repeats 5 > "$OUT/multi-gpu-knn-shares.json" \
      2>> "$OUT/summary.log"
  note "multigpu shares exit $?: $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["shares_on_single"])' \
      "$OUT/multi-gpu-knn-shares.json" 2>&1)"
  # Issue 14's Dask figure: one worker per GPU against the in-process multi-GPU call on the same
  # job. The machine has no network: dask travels as wheels in .whl/ (carry it).
  if ls .whl/*.whl > /dev/null 2>&1; then
    python3 -m pip install -q --upgrade --no-index --no-deps --target /tmp/dask-site .whl/*.whl >> "$OUT/multigpu_python.log" 2>&1
    PYTHONPATH=/tmp/cudist-py:/tmp/dask-site python3 bench/dask_knn.py --in-process-device cuda:all \
        > "$OUT/dask-knn-multi-gpu.json" 2>> "$OUT/multigpu_python.log"
    rc=$?; note "multigpu dask exit $rc: $(grep -E '"dask_over_in_process"' "$OUT/dask-knn-multi-gpu.json" | tr -d '\n ')"
    [ $rc -eq 0 ] || status=1
    # The same job with the queries split and the database on every worker, as the in-process
    # call splits it, results fetched from the workers directly (docs/dask.md, "Where it stands").
    PYTHONPATH=/tmp/cudist-py:/tmp/dask-site python3 bench/dask_knn.py --in-process-device cuda:all \
        --query-chunks "$(nvidia-smi -L | wc -l)" --database-chunks 1 --replicate-database --direct-to-workers \
        > "$OUT/dask-knn-multi-gpu-queries.json" 2>> "$OUT/multigpu_python.log"
    rc=$?; note "multigpu dask, queries split: exit $rc: $(grep -E '"dask_over_in_process"' "$OUT/dask-knn-multi-gpu-queries.json" | tr -d '\n ')"
    [ $rc -eq 0 ] || status=1
  else
    note "multigpu dask: skipped (no dask wheels in .whl/)"
  fi
fi
note "gpu_check status $status"
exit $status
