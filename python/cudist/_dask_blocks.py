"""What cudist.dask's tasks run on a worker: the single-process call on one pair of row blocks,
and the exact merges of their results into the answer over all blocks.

Blocks are NumPy or CuPy arrays and every function keeps them in their framework (a CuPy block's
work stays on its GPU). Row indices coming out of a block are made global by adding the row where
the block starts, so merged results index the whole collection as the single-process call does.
"""

import numpy as np

from . import _cudist, distance, neighbors


def _array_module(array):
    """numpy, or cupy for a CuPy array (imported only then)."""
    if type(array).__module__.partition(".")[0] == "cupy":
        import cupy

        return cupy
    return np


def _aligned(array, device):
    """`array`, or, for a call on the CPU, an aligned copy of a NumPy array that dask.distributed
    received into a buffer at an offset that is not a multiple of its element size: the CPU reads
    the block where it lies. A call on GPUs takes such an array as it is, since it copies host
    rows to the device byte for byte anyway (src/core/detail/validate_view.hpp,
    expect_valid_input): no pass over the block, and a large database is still streamed while it
    is searched (docs/dask.md)."""
    if isinstance(array, np.ndarray) and not array.flags.aligned and not _on_gpu(device):
        return array.copy()
    return array


def _on_gpu(device):
    """Whether a call with this device argument on a NumPy block runs on GPUs (None: the block's
    own device, the CPU)."""
    return device is not None and _cudist.canonical_device(str(device)).startswith("cuda")


def knn_block(XA, XB, first_row, k, metric, device, params, rank_values=False):
    """The at most k nearest rows of block XB (which starts at row `first_row`) to each row of XA,
    as (distances, global row indices), nearest first. Fewer than k when XB has fewer rows. With
    rank_values, the values ranked instead of distances (cudist.knn's rank_values): what
    merge_nearest must order for its answer to be the single-process call's."""
    k_here = min(k, XB.shape[0])
    if k_here == 0:
        xp = _array_module(XA)
        dtype = "float64" if XA.dtype == np.float64 else "float32"
        return (xp.empty((XA.shape[0], 0), dtype=dtype), xp.empty((XA.shape[0], 0), dtype="int64"))
    distances, indices = neighbors.knn(_aligned(XA, device), _aligned(XB, device), k_here, metric,
                                       device=device, rank_values=rank_values, **params)
    if first_row:  # in place: the call's own new array, where a sum would allocate another
        indices += first_row
    return distances, indices


def merge_nearest(candidates, k, metric, p, pad=False, last=False):
    """The k best of the (values, indices) candidate lists of adjacent blocks, ranked as the
    single-process call ranks: nearest first (largest first for a similarity), NaN after every
    other, ties by smaller index. The values are the blocks' rank values (knn_block); the last
    merge reports distances (the roots of the squares where knn ranks on squares), the others
    rank values. With pad, rows are filled to k columns with NaN distances and index -1.

    NumPy blocks go through the library's merge (cudist.merge_knn in C++: 40000 x 20 candidates
    in ~1 ms where NumPy's stable argsort took ~15 ms); CuPy blocks stay on their GPU."""
    width = k if pad else min(k, sum(c[0].shape[1] for c in candidates))
    if all(_merges_on_host(c) for c in candidates):
        rows, dtype = candidates[0][0].shape[0], candidates[0][0].dtype
        distances = np.empty((rows, width), dtype=dtype)
        indices = np.empty((rows, width), dtype=np.int64)
        _cudist.merge_knn([c[0] for c in candidates], [c[1] for c in candidates], k, metric, float(p),
                          True, not last, distances, indices)
        return distances, indices
    xp = _array_module(candidates[0][0])
    distances = xp.concatenate([c[0] for c in candidates], axis=1)
    indices = xp.concatenate([c[1] for c in candidates], axis=1)
    # Each list is ranked and the blocks' indices increase from one list to the next, so one
    # stable sort by value keeps the ties in index order.
    key = -distances if metric == "inner_product" else distances  # -NaN is NaN: still sorted last
    order = xp.argsort(key, axis=1, kind="stable")[:, :k]
    distances = xp.take_along_axis(distances, order, axis=1)
    indices = xp.take_along_axis(indices, order, axis=1)
    if last and _cudist.ranks_on_squares(metric, float(p)):
        distances = xp.sqrt(distances)  # correctly rounded, in the values' dtype, as the library's
    missing = width - distances.shape[1]
    if missing > 0:
        rows = distances.shape[0]
        distances = xp.concatenate(
            [distances, xp.full((rows, missing), xp.nan, dtype=distances.dtype)], axis=1)
        indices = xp.concatenate([indices, xp.full((rows, missing), -1, dtype="int64")], axis=1)
    return distances, indices


def _merges_on_host(candidate):
    """Whether a (values, indices) pair is NumPy arrays the library's merge reads as they are:
    aligned (dask.distributed may receive a block at any offset) and of row-major rows."""
    return all(isinstance(a, np.ndarray) and a.flags.aligned and a.strides[-1] == a.itemsize
               for a in candidate)


def first_column(nearest):
    """Column 0 of a (distances, indices) pair's (rows, 1) indices, as a vector (the nearest query
    of each train row)."""
    return nearest[1][:, 0]


def concatenate_vectors(vectors):
    return _array_module(vectors[0]).concatenate(vectors)


def match_rows(best_two, first_query, nearest_query, ratio, max_distance):
    """The matches of a block of queries from their two best trains over all blocks (the
    (distances, indices) pair of the merge: taken whole, no task between), with the
    single-process call's tests (Lowe's ratio test and the distance limit in float64, a NaN
    failing both; with `nearest_query`, the nearest query of every train row, the mutual check).

    Returns (pairs, distances): (count, 2) global (query, train) rows and their distances."""
    best_distances, best_indices = best_two
    xp = _array_module(best_distances)
    d1 = best_distances[:, 0].astype("float64")
    d2 = best_distances[:, 1].astype("float64")
    j1, j2 = best_indices[:, 0], best_indices[:, 1]
    passing = (j1 >= 0) & ~xp.isnan(d1) & ((j2 < 0) | (d1 < ratio * d2)) & (d1 <= max_distance)
    rows = xp.nonzero(passing)[0]
    if nearest_query is not None:
        rows = rows[nearest_query[j1[rows]] == rows + first_query]
    pairs = xp.stack([rows + first_query, j1[rows]], axis=1)
    return pairs, best_distances[rows, 0]


def cdist_block(XA, XB, metric, device, params):
    return distance.cdist(_aligned(XA, device), _aligned(XB, device), metric, device=device, **params)


def pdist_block(X, metric, device, params):
    return distance.pdist(_aligned(X, device), metric, device=device, **params)


def condensed_rows(diagonal, right, rows):
    """The entries of pdist's condensed result that belong to a block of `rows` rows: `diagonal`
    is the block's own pdist, `right` the cdist blocks of these rows against every later block
    (in order). Row r's entries are its columns after r, row after row, as scipy orders them."""
    xp = _array_module(diagonal)
    later = sum(block.shape[1] for block in right)
    square = xp.zeros((rows, rows + later), dtype=diagonal.dtype)
    upper = xp.triu_indices(rows, 1)
    square[upper] = diagonal  # triu_indices runs row by row: pdist's order within the block
    if right:
        square[:, rows:] = xp.concatenate(right, axis=1)
    after_diagonal = xp.arange(rows + later)[None, :] > xp.arange(rows)[:, None]
    return square[after_diagonal]
