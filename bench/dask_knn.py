#!/usr/bin/env python3
"""cudist.dask.knn with one Dask worker per GPU against the in-process cudist.knn on the same job,
printed as JSON (issue 14: the Dask overhead, <= 15%, is measured against the in-process call).

Both sides start from host (NumPy) arrays and end with host results: the in-process call copies
its inputs to the GPU itself; the Dask job's inputs are first persisted in the workers' memory
(as a real job's would be, loaded by the workers), then each knn task copies its blocks to its
worker's GPU, and the merged result is gathered to this process. Wall-clock median of --repeats
runs after one warm-up run of each (CUDA contexts, the workers' first import).

On the GPU machine (one worker per GPU, pinned with CUDA_VISIBLE_DEVICES, or dask-cuda's
LocalCUDACluster when it is installed)::

    python3 bench/dask_knn.py > bench/results/<date>-<machine>-dask-knn.json
    python3 bench/dask_knn.py --in-process-device cuda:all   # against the multi-GPU call

A quick run on a CPU (both sides on the CPU backend; the figures mean little there)::

    python3 bench/dask_knn.py --device cpu --queries 2000 --database 20000 --repeats 1
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

# bench/ holds a folder named sparse/, which would shadow pydata's sparse (imported by dask.array
# when present) while this script's folder leads sys.path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import distributed  # noqa: E402
import numpy as np  # noqa: E402

import cudist  # noqa: E402
import cudist.dask  # noqa: E402


def gpu_names():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return [line.strip() for line in out.splitlines() if line.strip()]


def one_worker_per_gpu(gpus):
    """dask-cuda's LocalCUDACluster where it is installed, else the same by hand: one worker
    process per GPU, each seeing only its own (CUDA_VISIBLE_DEVICES), with one thread."""
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        workers = {gpu: {"cls": distributed.Nanny,
                         "options": {"nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": str(gpu)}}}
                   for gpu in range(gpus)}
        scheduler = {"cls": distributed.Scheduler, "options": {"dashboard_address": None}}
        return distributed.SpecCluster(workers=workers, scheduler=scheduler), "pinned workers"
    return LocalCUDACluster(CUDA_VISIBLE_DEVICES=list(range(gpus)), threads_per_worker=1,
                            dashboard_address=None), "dask_cuda.LocalCUDACluster"


def cpu_workers(workers):
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                       dashboard_address=None)
    return cluster, "LocalCluster"


def median_seconds(run, repeats):
    run()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def main():
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--queries", type=int, default=40000)
    parser.add_argument("--database", type=int, default=400000)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                        help="where the workers compute (and, by default, the in-process call)")
    parser.add_argument("--in-process-device", default=None,
                        help="the in-process call's device (default: --device)")
    parser.add_argument("--workers", type=int, default=None,
                        help="Dask workers (default: one per GPU; 2 on the CPU)")
    parser.add_argument("--query-chunks", type=int, default=1)
    parser.add_argument("--database-chunks", type=int, default=None,
                        help="blocks of the database (default: one per worker)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    gpus = len(cudist.devices()) - 1
    if args.device == "cuda" and gpus == 0:
        parser.error("--device cuda: no CUDA GPU here, or cudist was built without CUDA")
    workers = args.workers or (gpus if args.device == "cuda" else 2)
    database_chunks = args.database_chunks or workers
    in_process_device = args.in_process_device or args.device

    rng = np.random.default_rng(14)
    A = rng.uniform(-1, 1, (args.queries, args.dim)).astype(np.float32)
    B = rng.uniform(-1, 1, (args.database, args.dim)).astype(np.float32)

    inprocess_s, inprocess_runs = median_seconds(
        lambda: cudist.knn(A, B, args.k, device=in_process_device), args.repeats)
    expected_distances, expected_indices = cudist.knn(A, B, args.k, device=in_process_device)

    cluster, cluster_kind = (one_worker_per_gpu(workers) if args.device == "cuda"
                             else cpu_workers(workers))
    with cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(workers)
        XA = da.from_array(A, chunks=(-(-args.queries // args.query_chunks), -1))
        XB = da.from_array(B, chunks=(-(-args.database // database_chunks), -1))
        XA, XB = client.persist([XA, XB])
        distributed.wait([XA, XB])

        def run_dask():
            return dask.compute(*cudist.dask.knn(XA, XB, args.k, device=args.device))

        dask_s, dask_runs = median_seconds(run_dask, args.repeats)
        distances, indices = run_dask()

    print(json.dumps({
        "benchmark": "dask_knn",
        "host": platform.node(),
        "gpus": gpu_names(),
        "job": {"queries": args.queries, "database": args.database, "dim": args.dim,
                "k": args.k, "dtype": "float32", "metric": "euclidean"},
        "in_process": {"device": in_process_device, "median_s": inprocess_s,
                       "runs_s": inprocess_runs},
        "dask": {"cluster": cluster_kind, "workers": workers, "device": args.device,
                 "query_chunks": len(XA.chunks[0]), "database_chunks": len(XB.chunks[0]),
                 "median_s": dask_s, "runs_s": dask_runs},
        "dask_over_in_process": dask_s / inprocess_s,
        "same_indices_fraction": float(np.mean(indices == expected_indices)),
        "max_abs_distance_difference": float(np.max(np.abs(distances - expected_distances))),
    }, indent=2))


if __name__ == "__main__":
    main()
