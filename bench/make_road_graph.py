#!/usr/bin/env python3
"""Writes the road-like graph of benchmark A3 (data/sparse/road_grid_15k.mtx): a 123 x 122 grid
of junctions, each moved at random by up to 0.35 of the spacing, joined to its four neighbours
by roads whose weight is their length; 7% of the roads are left out, as real networks have
blocks and dead ends. Planar, like a road map: 15006 vertices, about 28000 undirected edges
(56000 directed). Deterministic (seed 15), so the C++ suite and scipy's peer read the same graph.

    python3 bench/make_road_graph.py [output.mtx]
"""
import sys
from pathlib import Path

import numpy as np

ROWS, COLS, JITTER, DROP, SEED = 123, 122, 0.35, 0.07, 15


def road_grid():
    rng = np.random.default_rng(SEED)
    xy = np.stack(np.meshgrid(np.arange(ROWS), np.arange(COLS), indexing="ij"), -1).reshape(-1, 2)
    xy = xy + rng.uniform(-JITTER, JITTER, xy.shape)
    ids = np.arange(ROWS * COLS).reshape(ROWS, COLS)
    pairs = np.concatenate([np.stack([ids[:, :-1].ravel(), ids[:, 1:].ravel()], 1),
                            np.stack([ids[:-1, :].ravel(), ids[1:, :].ravel()], 1)])
    pairs = pairs[rng.random(len(pairs)) >= DROP]
    lengths = np.linalg.norm(xy[pairs[:, 0]] - xy[pairs[:, 1]], axis=1)
    return pairs, lengths


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "data" / "sparse" / "road_grid_15k.mtx"
    pairs, lengths = road_grid()
    n = ROWS * COLS
    with open(out, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real symmetric\n")
        f.write(f"% road-like planar graph for benchmark A3, written by bench/make_road_graph.py\n")
        f.write(f"{n} {n} {len(pairs)}\n")
        for (i, j), w in zip(pairs, lengths):  # lower triangle, 1-based, as the format wants
            f.write(f"{max(i, j) + 1} {min(i, j) + 1} {w:.6f}\n")
    print(f"{out}: {n} vertices, {len(pairs)} undirected edges")


if __name__ == "__main__":
    main()
