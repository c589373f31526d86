#!/usr/bin/env python3
"""The CPU peers of BENCHMARKS.md, on the same machine and in the same run as `cudist bench`:
  cpu suite, C1: scipy.spatial.distance.cdist and sklearn's euclidean_distances on the same
      4000 x 20000 x 128 float32 problem as `cudist bench --suite cpu`;
  semiring suite, A1 / A2 / A3: scipy.sparse.csgraph all-pairs shortest paths on the same graphs
      as the APSP cases (Floyd-Warshall on a complete graph, Dijkstra on uscounties and the road grid).
Median of a few runs."""
import argparse
import json
import pathlib
import time

import numpy as np

DATA = pathlib.Path(__file__).resolve().parents[2] / "data"


def median_us(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e6)
    return sorted(times)[len(times) // 2]


def distance_peers(repeats):
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (4000, 128)).astype(np.float32)
    y = rng.uniform(-1, 1, (20000, 128)).astype(np.float32)
    from scipy.spatial.distance import cdist
    cases = [{"id": "C1", "peer": "scipy cdist", "peer_us": median_us(lambda: cdist(x, y), 1),
              "note": "float64 output"}]
    try:
        from sklearn.metrics.pairwise import euclidean_distances
        cases.append({"id": "C1-sklearn", "peer": "sklearn euclidean_distances",
                      "peer_us": median_us(lambda: euclidean_distances(x, y), repeats),
                      "note": "expanded formula (inexact)"})
    except ImportError:
        pass
    return cases


def graph_peers(dense_n, sample_n):
    """scipy.sparse.csgraph on A2's graph, and on a complete graph for A1: Floyd-Warshall is
    O(n^3) on one core, so at A1's size (hours) it runs on sample_n vertices and the time is
    scaled by (dense_n / sample_n)^3, which the note says."""
    import scipy.io
    from scipy.sparse import csgraph
    rng = np.random.default_rng(3)
    w = rng.integers(1, 1000, (sample_n, sample_n)).astype(np.float64)
    us = median_us(lambda: csgraph.floyd_warshall(w, directed=True), 1)
    scale = (dense_n / sample_n) ** 3
    counties = scipy.io.mmread(DATA / "sparse" / "uscounties.mtx").tocsr()
    roads = scipy.io.mmread(DATA / "sparse" / "road_grid_15k.mtx").tocsr()
    return [
        {"id": "A1-scipy", "peer": "scipy floyd_warshall", "peer_us": us * scale,
         "note": f"measured on {sample_n} vertices ({us / 1e6:.2f} s) and scaled by "
                 f"({dense_n}/{sample_n})^3; float64"},
        {"id": "A2-scipy", "peer": "scipy shortest_path (Dijkstra)",
         "peer_us": median_us(lambda: csgraph.shortest_path(counties, method="D", directed=False), 1),
         "note": "all sources on the sparse graph; float64"},
        {"id": "A3-scipy", "peer": "scipy shortest_path (Dijkstra)",
         "peer_us": median_us(lambda: csgraph.shortest_path(roads, method="D", directed=False), 1),
         "note": "all sources on the sparse graph; float64"},
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--suites", nargs="*", default=["cpu", "semiring"])
    ap.add_argument("--apsp-sample", type=int, default=2048,
                    help="vertices of the complete graph scipy's Floyd-Warshall runs on for A1")
    ap.add_argument("--quick", action="store_true", help="A1 at 4096 vertices, as `cudist bench --quick`")
    args = ap.parse_args()
    cases = []
    if "cpu" in args.suites:
        cases += distance_peers(args.repeats)
    if "semiring" in args.suites:
        dense_n = 4096 if args.quick else 16384
        cases += graph_peers(dense_n, min(args.apsp_sample, dense_n))
    for c in cases:
        print(f"{c['id']:10} {c['peer']:32} {c['peer_us'] / 1000:12.1f} ms", flush=True)
    json.dump({"cases": cases}, open(args.json, "w"), indent=2)


if __name__ == "__main__":
    main()
