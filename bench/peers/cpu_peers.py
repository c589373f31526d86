#!/usr/bin/env python3
"""The CPU peers of case C1 (BENCHMARKS.md): scipy.spatial.distance.cdist and
sklearn.metrics.pairwise.euclidean_distances on the same 4000 x 20000 x 128 float32 problem as
`cudist bench --suite cpu`, on the same machine and threads; median of a few runs."""
import argparse
import json
import time

import numpy as np


def median_us(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e6)
    return sorted(times)[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (4000, 128)).astype(np.float32)
    y = rng.uniform(-1, 1, (20000, 128)).astype(np.float32)
    cases = []
    from scipy.spatial.distance import cdist
    cases.append({"id": "C1", "peer": "scipy cdist", "peer_us": median_us(lambda: cdist(x, y), 1),
                  "note": "float64 output"})
    try:
        from sklearn.metrics.pairwise import euclidean_distances
        us = median_us(lambda: euclidean_distances(x, y), args.repeats)
        cases.append({"id": "C1-sklearn", "peer": "sklearn euclidean_distances", "peer_us": us,
                      "note": "expanded formula (inexact)"})
    except ImportError:
        pass
    for c in cases:
        print(f"{c['id']:10} {c['peer']:28} {c['peer_us'] / 1000:10.1f} ms", flush=True)
    json.dump({"cases": cases}, open(args.json, "w"), indent=2)


if __name__ == "__main__":
    main()
