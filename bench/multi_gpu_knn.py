#!/usr/bin/env python3
"""k=10 nearest neighbours on one GPU against a device set (issue 14: 2 GPUs vs 1 on
40000 x 400000 x 128 fp32, target >= 1.85x), printed as JSON. docs/multi_gpu.md explains the split.

    python3 bench/multi_gpu_knn.py > bench/results/<date>-<machine>-multi-gpu-knn.json
    python3 bench/multi_gpu_knn.py --devices cuda:0,1,2,3 --inputs cupy

Then, on the single device, the two shares a 2-GPU split gives one GPU: half the queries against
all of the database (the query split) and all the queries against half of it (the database
split), each as a fraction of the whole job: the best a split can do is bounded by how its share
scales (run 60: the GPUs of the CuPy split each waited 55% of the one-GPU time). --no-shares
leaves them out.

Both runs start from the same inputs (host NumPy arrays, or CuPy arrays on cuda:0 with
--inputs cupy) and end with the results where the inputs live. Each configuration runs once to
warm up (CUDA contexts, allocator pools), then --repeats times; the median wall-clock time is
reported. The two answers must be identical bit for bit, or the script fails.
"""
import argparse
import json
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import cudist


def gpu_names():
    """nvidia-smi -L: one line per GPU ('GPU 0: NVIDIA H200 (UUID: ...)'); none without a driver."""
    try:
        return subprocess.check_output(["nvidia-smi", "-L"], text=True).splitlines()
    except (OSError, subprocess.CalledProcessError):
        return []


def timed(call, repeats, sync):
    call()  # warm-up
    sync()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = call()
        sync()
        times.append(time.perf_counter() - started)
    return statistics.median(times), times, result


def shares(XA, XB, args, sync, single_ms):
    """One GPU's share of each 2-GPU split, timed on the single device, and its fraction of the
    whole job (0.5 would be a share that costs exactly half)."""
    halves = {"half_queries": (XA[: XA.shape[0] // 2], XB),
              "half_database": (XA, XB[: XB.shape[0] // 2])}
    result = {}
    for name, (xa, xb) in halves.items():
        median, _, _ = timed(lambda: cudist.knn(xa, xb, args.k, "euclidean", device=args.single),
                             args.repeats, sync)
        result[name] = {"median_ms": median * 1e3, "of_single": median * 1e3 / single_ms}
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=40_000)
    parser.add_argument("--database", type=int, default=400_000)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--single", default="cuda:0")
    parser.add_argument("--devices", default="cuda:0,1")
    parser.add_argument("--inputs", choices=["numpy", "cupy"], default="numpy")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--no-shares", dest="shares", action="store_false",
                        help="skip timing one GPU's share of each split")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    XA = rng.standard_normal((args.queries, args.dim), dtype=np.float32)
    XB = rng.standard_normal((args.database, args.dim), dtype=np.float32)
    sync = lambda: None  # noqa: E731
    to_host = np.asarray
    if args.inputs == "cupy":
        import cupy
        with cupy.cuda.Device(0):
            XA, XB = cupy.asarray(XA), cupy.asarray(XB)
        sync = lambda: cupy.cuda.Device(0).synchronize()  # noqa: E731
        to_host = cupy.asnumpy

    runs = {}
    answers = {}
    for name, device in (("single", args.single), ("split", args.devices)):
        median, times, (distances, indices) = timed(
            lambda: cudist.knn(XA, XB, args.k, "euclidean", device=device), args.repeats, sync)
        runs[name] = {"device": device, "median_ms": median * 1e3,
                      "times_ms": [t * 1e3 for t in times]}
        answers[name] = (to_host(distances), to_host(indices))
    identical = all(np.array_equal(a, b, equal_nan=True)
                    for a, b in zip(answers["single"], answers["split"]))
    report = {
        "case": f"knn k={args.k}, {args.queries} x {args.database} x {args.dim} fp32, euclidean",
        "machine": platform.node(), "gpus": gpu_names(), "inputs": args.inputs,
        "repeats": args.repeats, "single": runs["single"], "split": runs["split"],
        "speedup": runs["single"]["median_ms"] / runs["split"]["median_ms"],
        "target_speedup": 1.85, "identical_answers": identical,
    }
    if args.shares:
        report["shares_on_single"] = shares(XA, XB, args, sync, runs["single"]["median_ms"])
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
