#!/usr/bin/env python3
"""cudist.dask.knn with one Dask worker per GPU against the in-process cudist.knn on the same job,
printed as JSON (issue 14: the Dask overhead, <= 15%, is measured against the in-process call).

Both sides start from host (NumPy) arrays and end with host results: the in-process call copies
its inputs to the GPU itself; the Dask job's inputs are first persisted in the workers' memory,
block i on worker i (as a real job's would be, loaded by the workers), then each knn task copies
its blocks to its worker's GPU, and the merged result is gathered to this process. Wall-clock
median of --repeats runs after one warm-up run of each (CUDA contexts, the workers' first import).

On the GPU machine (one worker per GPU, pinned with CUDA_VISIBLE_DEVICES, or dask-cuda's
LocalCUDACluster when it is installed)::

    python3 bench/dask_knn.py > bench/results/<date>-<machine>-dask-knn.json
    python3 bench/dask_knn.py --in-process-device cuda:all   # against the multi-GPU call
    python3 bench/dask_knn.py --in-process-device cuda:all --query-chunks 2 --database-chunks 1 \
        --replicate-database                                 # the queries split, as in process

A quick run on a CPU (both sides on the CPU backend; the figures mean little there)::

    python3 bench/dask_knn.py --device cpu --queries 2000 --database 20000 --repeats 1

--timeline adds --repeats Dask jobs taken apart (JSON "timeline", each phase's median, and a table
on stderr): the client's graph build and submission, the scheduler's update-graph, each task as
the scheduler sent it, the worker ran it and the scheduler heard of it, and the result's gather;
then, in a task on the workers' own blocks, the task's body against knn on aligned copies made
beforehand (what taking the blocks as they arrive costs). One machine's clock is assumed: the
times of the client, the scheduler and the workers are compared directly.
"""
import argparse
import json
import math
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
    process per GPU, each seeing only its own (CUDA_VISIBLE_DEVICES), with one thread and an equal
    share of the host's memory. (A worker's default limit is the host's memory times its share of
    the cores, 8 GB of 256 on the 32-core 2 x H200 machine: it would spill a 5 GB database block
    to disk at 60% of that.)"""
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        memory = distributed.system.MEMORY_LIMIT // gpus
        workers = {gpu: {"cls": distributed.Nanny,
                         "options": {"nthreads": 1, "memory_limit": memory,
                                     "env": {"CUDA_VISIBLE_DEVICES": str(gpu)}}}
                   for gpu in range(gpus)}
        scheduler = {"cls": distributed.Scheduler, "options": {"dashboard_address": None}}
        return distributed.SpecCluster(workers=workers, scheduler=scheduler), "pinned workers"
    return LocalCUDACluster(CUDA_VISIBLE_DEVICES=list(range(gpus)), threads_per_worker=1,
                            dashboard_address=None), "dask_cuda.LocalCUDACluster"


def cpu_workers(workers):
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                       dashboard_address=None)
    return cluster, "LocalCluster"


def blocks_spread_over_workers(client, array, rows):
    """`array` in blocks of `rows` rows, block i held by worker i mod W, as a job whose workers
    load their own parts holds them. Left to itself, persist may put every block on one worker, and
    the scheduler then runs every task there in turn rather than move a block: it prices a move at
    distributed.scheduler.bandwidth, 100 MB/s by default, so a 100 MB block's move looks slower
    than waiting for the GPU next to it (2 x H200 run 209: both query blocks on one worker, half
    the machine idle, 2.44x the in-process call)."""
    workers = sorted(client.scheduler_info()["workers"])
    blocks = []
    for i, start in enumerate(range(0, len(array), rows)):
        part = array[start:start + rows]
        future = client.scatter(part, workers=[workers[i % len(workers)]])
        blocks.append(da.from_delayed(future, shape=part.shape, dtype=part.dtype))
    return da.concatenate(blocks)


def median_seconds(run, repeats, pause=0.0, windows=None):
    """The median wall-clock time of `repeats` runs of `run` after a warm-up run; each run's
    (start, end) in time.time() is appended to `windows` where given."""
    run()  # warm-up
    times = []
    for _ in range(repeats):
        time.sleep(pause)
        start, wall = time.perf_counter(), time.time()
        run()
        times.append(time.perf_counter() - start)
        if windows is not None:
            windows.append((wall, time.time()))
    return statistics.median(times), times


def block_task_workers(records, windows):
    """For each timed run's window, the workers its knn block tasks ran on, from the scheduler's
    task stream: a run whose tasks all ran on one worker ran them in turn."""
    runs = []
    for start, end in windows:
        ran_on = {record["worker"] for record in records
                  if distributed.utils.key_split(record["key"]) == "knn_block"
                  and start <= record["startstops"][0]["start"] <= end}
        runs.append(sorted(ran_on))
    return runs


def _scheduler_transitions(dask_scheduler, since):
    """When the scheduler sent each task to a worker ("processing") and heard that it had
    finished ("memory"), for the transitions after `since`."""
    times = {}
    for entry in dask_scheduler.transition_log:  # (key, start, finish, ..., timestamp)
        if entry[-1] >= since and entry[2] in ("processing", "memory"):
            times.setdefault(entry[0], {})[entry[2]] = entry[-1]
    return times


def _in_task_split(XA, XB, k, device, repeats):
    """On a worker, with its blocks as a knn task receives them: the task's body, against knn on
    aligned copies made beforehand, medians of `repeats` after a warm-up of each."""
    from cudist import _dask_blocks

    def seconds(run):
        return median_seconds(run, repeats)[0]

    aligned = [np.require(X, requirements="AC") for X in (XA, XB)]
    return {
        "blocks": [{"bytes": X.nbytes, "address_mod_64": X.ctypes.data % 64,
                    "aligned": bool(X.flags.aligned), "c_contiguous": bool(X.flags.c_contiguous)}
                   for X in (XA, XB)],
        "task_body_s": seconds(lambda: _dask_blocks.knn_block(XA, XB, 0, k, "euclidean", device,
                                                               {})),
        "knn_on_aligned_copies_s": seconds(lambda: cudist.knn(*aligned, k, device=device)),
    }


def timeline(client, build):
    """One Dask job taken apart: `build()` makes its collections, computed on `client` phase by
    phase as dask.compute would (client.compute, then gather). Times are seconds from the start
    of build()."""
    with distributed.get_task_stream(client) as stream:
        t0 = time.time()
        collections = build()
        built = time.time()
        futures = client.compute(list(collections))
        submitted = time.time()
        distributed.wait(futures)
        known = time.time()
        client.gather(futures)
        gathered = time.time()
    sent = client.run_on_scheduler(_scheduler_transitions, since=t0)
    graph = [event["metrics"] for stamp, event in client.get_events("scheduler")
             if stamp >= t0 and event.get("action") == "update-graph"][-1]
    tasks = []
    for record in stream.data:
        times = sent.get(record["key"], {})
        task = {"key": distributed.utils.key_split(record["key"]), "worker": record["worker"],
                "sent": times.get("processing", math.nan) - t0}
        for step in record["startstops"]:  # compute, and transfer / deserialize where any
            task[step["action"] + "_start"] = step["start"] - t0
            task[step["action"] + "_s"] = step["stop"] - step["start"]
        task["done"] = record["startstops"][-1]["stop"] - t0
        task["scheduler_heard"] = times.get("memory", math.nan) - t0
        tasks.append(task)
    tasks.sort(key=lambda task: task["compute_start"])
    busy, end = 0.0, -math.inf  # the time some worker computes: the union of the tasks' spans
    for task in tasks:
        start = max(task["compute_start"], end)
        end = max(end, task["done"])
        busy += max(0.0, end - start)
    last = max(task["done"] for task in tasks)
    received = graph["start_timestamp_seconds"] - t0
    phases = {
        "build_s": built - t0,
        "submit_s": submitted - built,  # expression pickled and queued to the scheduler
        # The client's batched send and the comm; below 0 when the scheduler had it before
        # client.compute returned (the send runs on the client's event loop).
        "to_scheduler_s": received - (submitted - t0),
        "update_graph_s": graph["duration_seconds"],  # unpickle, materialise, order, states
        "to_first_task_s": tasks[0]["compute_start"] - received - graph["duration_seconds"],
        "tasks_compute_s": busy,
        "between_tasks_s": last - tasks[0]["compute_start"] - busy,  # no task running
        "results_known_s": known - t0 - last,  # worker -> scheduler -> client
        "gather_s": gathered - known,
        "total_s": gathered - t0,
        "outside_tasks_s": gathered - t0 - busy,  # the job's time with no task computing
    }
    return {"phases": phases, "tasks": tasks}


def timelines(client, build, probe, repeats, pause):
    """`repeats` timelines, `pause` seconds apart: each phase's median over them, every run's
    phases, the last run's tasks; then `probe` (a delayed value)."""
    runs = []
    for _ in range(repeats):
        time.sleep(pause)
        runs.append(timeline(client, build))
    phases = {name: statistics.median(run["phases"][name] for run in runs)
              for name in runs[0]["phases"]}
    return {"phases_median": phases, "runs": [run["phases"] for run in runs],
            "tasks": runs[-1]["tasks"], "in_task": client.compute(probe).result()}


def print_timeline(record, file):
    phases, tasks = record["phases_median"], record["tasks"]
    print(f"phase (median of {len(record['runs'])})   ms", file=file)
    for name, seconds in phases.items():
        print(f"{name.removesuffix('_s'):18} {seconds * 1e3:8.1f}", file=file)
    print("task, last run (ms)          sent    start  compute     done  sched.heard", file=file)
    for task in tasks:
        print(f"{task['key'][:26]:26} {task['sent'] * 1e3:7.1f} {task['compute_start'] * 1e3:8.1f}"
              f" {task['compute_s'] * 1e3:8.1f} {task['done'] * 1e3:8.1f}"
              f" {task['scheduler_heard'] * 1e3:8.1f}", file=file)
    print("in task:", json.dumps(record["in_task"]), file=file)


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
    parser.add_argument("--replicate-database", action="store_true",
                        help="copy every database block to every worker before the timed runs "
                        "(client.replicate), as the in-process call splits many queries against "
                        "a database each GPU holds: with --query-chunks N --database-chunks 1 each "
                        "worker searches the whole database for its queries and no merge is needed; "
                        "the active memory manager is stopped so that the copies stay")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pause", type=float, default=0.1,
                        help="seconds of idle before each timed run (default 0.1): right after a "
                        "job, the client's message releasing its results holds the next job's "
                        "graph back up to 10 ms (the client's batched-send interval), which a "
                        "lone job does not wait; 0 runs them back to back, as before")
    parser.add_argument("--direct-to-workers", action="store_true",
                        help="gather the result from the workers directly instead of through "
                        "the scheduler (Client(direct_to_workers=True))")
    parser.add_argument("--timeline", action="store_true",
                        help="add --repeats Dask jobs taken apart phase by phase (see above)")
    args = parser.parse_args()

    gpus = len(cudist.devices()) - 1
    if args.device == "cuda" and gpus == 0:
        parser.error("--device cuda: no CUDA GPU here, or cudist was built without CUDA")
    workers = args.workers or (gpus if args.device == "cuda" else 2)
    database_chunks = args.database_chunks or workers
    in_process_device = args.in_process_device or args.device

    rng = np.random.default_rng(14)
    # Uniform in [-1, 1), drawn in float32 (a 10M-row database is 5 GB, not 10 GB of float64).
    A = rng.random((args.queries, args.dim), dtype=np.float32) * 2 - 1
    B = rng.random((args.database, args.dim), dtype=np.float32) * 2 - 1

    inprocess_s, inprocess_runs = median_seconds(
        lambda: cudist.knn(A, B, args.k, device=in_process_device), args.repeats, args.pause)
    expected_distances, expected_indices = cudist.knn(A, B, args.k, device=in_process_device)

    cluster, cluster_kind = (one_worker_per_gpu(workers) if args.device == "cuda"
                             else cpu_workers(workers))
    with cluster, distributed.Client(
            cluster, direct_to_workers=args.direct_to_workers) as client:
        client.wait_for_workers(workers)
        XA = blocks_spread_over_workers(client, A, -(-args.queries // args.query_chunks))
        XB = blocks_spread_over_workers(client, B, -(-args.database // database_chunks))
        XA, XB = client.persist([XA, XB])
        distributed.wait([XA, XB])
        if args.replicate_database:
            client.replicate(XB)
            # The active memory manager drops every replica no waiting task needs, each 2 s
            # (its ReduceReplicas policy): the next job then found the database on one worker,
            # and the scheduler ran both tasks there in turn rather than move 205 MB to the other
            # (2 x H200 run 210: one job of three; docs/dask.md).
            client.amm.stop()
        placement = {name: [sorted(client.who_has([f])[f.key]) for f in distributed.futures_of(X)]
                     for name, X in (("query_blocks_on", XA), ("database_blocks_on", XB))}

        def run_dask():
            return dask.compute(*cudist.dask.knn(XA, XB, args.k, device=args.device))

        client.get_task_stream(start=time.time())  # the scheduler records tasks from here on
        windows = []
        dask_s, dask_runs = median_seconds(run_dask, args.repeats, args.pause, windows)
        ran_on = block_task_workers(client.get_task_stream(start=windows[0][0]), windows)
        distances, indices = run_dask()
        if args.timeline:
            probe = dask.delayed(_in_task_split)(XA.to_delayed()[0, 0], XB.to_delayed()[0, 0],
                                                 args.k, args.device, args.repeats)
            parts = timelines(client, lambda: cudist.dask.knn(XA, XB, args.k, device=args.device),
                              probe, args.repeats, args.pause)
            print_timeline(parts, sys.stderr)

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
                 "database_replicated": args.replicate_database,
                 "direct_to_workers": args.direct_to_workers, "pause_s": args.pause,
                 **placement, "median_s": dask_s, "runs_s": dask_runs,
                 "block_tasks_ran_on": ran_on},
        "dask_over_in_process": dask_s / inprocess_s,
        "same_indices_fraction": float(np.mean(indices == expected_indices)),
        "max_abs_distance_difference": float(np.max(np.abs(distances - expected_distances))),
        **({"timeline": parts} if args.timeline else {}),
    }, indent=2))


if __name__ == "__main__":
    main()
