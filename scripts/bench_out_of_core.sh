#!/usr/bin/env bash
# Issue 14's out-of-core measurement in one command, on the GPU machine: builds the benchmark and
# runs a cdist whose output is 1.1x the GPU's memory into host memory (page-locked and ordinary),
# reported as a share of the measured device-to-host bandwidth. The output must fit in host memory
# (an H100's 1.1x is 88 GB: fine with 128 GiB; an H200's 155 GB needs the 2 x H200 machine).
#   scripts/bench_out_of_core.sh [bench_out_of_core options, e.g. --factor 1.2 --modes pinned]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh --target bench_out_of_core
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-')
out="bench/results/$(date +%F)-${gpu}-out-of-core.json"
build/bench/bench_out_of_core "$@" | tee "$out"
echo "wrote $out" >&2
