#!/usr/bin/env python3
"""knn from a database in host memory against the same rows already on the GPU, by database size,
printed as JSON: how much of the copy the streamed database hides (docs/multi_gpu.md, "A database
streamed from host memory": float32 databases of 16 MiB and more are copied a part at a time while
the search runs). Sizes on both sides of that threshold show its step.

    python3 bench/knn_host_database.py > bench/results/<date>-<machine>-knn-host-database.json

Queries (--queries x --dim float32) and results stay in host memory for the host run; with CuPy
inputs everything stays on the GPU. Each call runs once to warm up, then --repeats times; medians.

--one-byte-off adds the host database one byte past an aligned address, as dask.distributed hands
a NumPy block over (streamed as it is, since host rows go to the GPU byte for byte), and, as
device_copy_then_search_ms, a device copy of all of it made by CuPy (cupy.asarray) followed by the
search: what a caller who moves such a block to the GPU first pays. CuPy's copy from pageable
memory runs at ~9 GB/s on the H200 machine where cudist's own reaches ~30, so this is not what
cudist's binding took for such a block before it streamed them (its own device copy at ~30 GB/s,
then the search; docs/dask.md).
"""
import argparse
import json

import cupy
import numpy as np

import cudist
from multi_gpu_knn import timed


def median_ms(call, repeats):
    return timed(call, repeats, cupy.cuda.Device().synchronize)[0] * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10000)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--megabytes", type=float, nargs="+", default=[8, 16.7, 16.9, 32, 64, 205])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--one-byte-off", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    XA = rng.standard_normal((args.queries, args.dim), dtype=np.float32)
    rows = []
    for mb in args.megabytes:
        n = int(mb * 1e6) // (4 * args.dim)
        XB = rng.standard_normal((n, args.dim), dtype=np.float32)
        XA_d, XB_d = cupy.asarray(XA), cupy.asarray(XB)
        host = median_ms(lambda: cudist.knn(XA, XB, args.k, "euclidean", device="cuda"), args.repeats)
        device = median_ms(lambda: cudist.knn(XA_d, XB_d, args.k, "euclidean", device="cuda"), args.repeats)
        d_host, i_host = cudist.knn(XA, XB, args.k, "euclidean", device="cuda")
        d_dev, i_dev = cudist.knn(XA_d, XB_d, args.k, "euclidean", device="cuda")
        same = bool(np.array_equal(i_host, cupy.asnumpy(i_dev)) and np.array_equal(d_host, cupy.asnumpy(d_dev)))
        row = {"database_mb": round(n * 4 * args.dim / 1e6, 2), "rows": n, "host_ms": host,
               "device_ms": device, "host_over_device": host / device, "identical": same}
        if args.one_byte_off:
            del XB_d
            buffer = np.empty(XB.nbytes + 1, dtype=np.uint8)
            shifted = np.ndarray(XB.shape, dtype=XB.dtype, buffer=buffer, offset=1)
            shifted[...] = XB
            row["host_one_byte_off_ms"] = median_ms(
                lambda: cudist.knn(XA, shifted, args.k, "euclidean", device="cuda"), args.repeats)
            row["device_copy_then_search_ms"] = median_ms(
                lambda: cudist.knn(XA, cupy.asarray(shifted), args.k, "euclidean", device="cuda"),
                args.repeats)
            d_off, i_off = cudist.knn(XA, shifted, args.k, "euclidean", device="cuda")
            row["one_byte_off_identical"] = bool(np.array_equal(i_off, i_host) and np.array_equal(d_off, d_host))
            del buffer, shifted
        rows.append(row)
    print(json.dumps({"benchmark": "knn_host_database", "gpu": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                      "queries": args.queries, "dim": args.dim, "k": args.k, "sizes": rows}, indent=2))


if __name__ == "__main__":
    main()
