"""cudist on Dask: knn, cdist, pdist and match over dask.array collections too large for one call.

Each function takes dask arrays of rows (NumPy or CuPy chunks), chunked along the rows only (the
feature dimension must be one chunk), and returns dask arrays; nothing is computed until the
caller computes them, on whatever Dask scheduler is active (a dask.distributed Client: a
LocalCluster, one worker per GPU, or a multi-node cluster; see docs/dask.md)::

    import dask.array as da
    import cudist.dask

    XA = da.from_array(queries, chunks=(100_000, -1))
    XB = da.from_array(database, chunks=(1_000_000, -1))
    distances, indices = cudist.dask.knn(XA, XB, k=10, device="cuda")
    distances, indices = dask.compute(distances, indices)

The graph has one task per pair of row blocks, running the single-process call (cudist.knn,
cdist, pdist) on the worker's device: `device` is passed to it as given, so device="cuda" is each
worker's current GPU (pin one GPU per worker), and CuPy chunks are used on their own GPU. The
blocks' top-k (for match, best two, and for the mutual check every train row's nearest query) are
merged by a tree reduction in the graph, `split_every` inputs per merge, with the single-process
call's ranking, so the results equal it: same distances, same indices except where distances tie
within the last ulp of different keys (the single-process call ranks by the key before its final
root or scaling).

seuclidean and mahalanobis need V / VI given: their defaults are estimated from all rows, which
no single task sees.
"""

import itertools
import math
import operator

import dask
import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from . import _cudist, _dask_blocks, distance, neighbors
from ._distance_inputs import result_dtype
from ._metric_args import metric_name, metric_params

__all__ = ["cdist", "knn", "match", "pdist"]

_ESTIMATED_DEFAULTS = {"seuclidean": "V", "mahalanobis": "VI"}


def _task(function, nout=None):
    return dask.delayed(function, pure=True, nout=nout)


def _fields(name, tuples, chunks, metas):
    """Dask arrays of the fields of delayed tuples: block i of array j is tuples[i][j], one getitem
    task after each tuple's task. (Unpacking the delayed tuples, then from_delayed and concatenate
    put an alias level after each getitem: each level a scheduler round trip of ~5 ms per job,
    docs/tuning.md.) `chunks[j]`, `metas[j]`: array j's chunks and meta."""
    token = tokenize(name, *tuples)
    arrays = []
    for j, (array_chunks, meta) in enumerate(zip(chunks, metas)):
        out = f"{name}-{j}-{token}"
        trailing = (0,) * (len(array_chunks) - 1)
        layer = {(out, i) + trailing: (operator.getitem, t.key, j) for i, t in enumerate(tuples)}
        graph = HighLevelGraph.from_collections(out, layer, dependencies=tuples)
        arrays.append(da.Array(graph, out, chunks=array_chunks, meta=meta))
    return tuple(arrays)


class _RowBlocks:
    """A dask array's row blocks as delayed values, with the row where each starts."""

    def __init__(self, who, X, name):
        if not isinstance(X, da.Array):
            raise TypeError(f"cudist.dask.{who}: {name} must be a dask.array.Array, got "
                            f"{type(X).__name__} (dask.array.from_array(X, chunks=(rows, -1)) "
                            "makes one)")
        if X.ndim != 2:
            raise ValueError(f"cudist.dask.{who}: {name} must be a 2-dimensional array, got "
                             f"{X.ndim} dimensions")
        if any(math.isnan(rows) for rows in X.chunks[0]):
            raise ValueError(f"cudist.dask.{who}: {name} has unknown chunk sizes; call "
                             f"{name}.compute_chunk_sizes() first")
        if len(X.chunks[1]) != 1:
            raise ValueError(f"cudist.dask.{who}: {name}'s {X.shape[1]} columns are split into "
                             f"{len(X.chunks[1])} chunks {X.chunks[1]}; chunk the rows only "
                             f"({name}.rechunk({{1: -1}}))")
        self.array = X
        self.sizes = X.chunks[0]
        self.starts = list(itertools.accumulate(self.sizes, initial=0))[:-1]
        self.blocks = X.to_delayed().ravel().tolist()

    def meta(self, ndim, dtype):
        """An empty array of the chunks' framework (NumPy or CuPy), for results' metadata."""
        return da.utils.meta_from_array(self.array._meta, ndim=ndim, dtype=dtype)


def _metric_kwargs(who, metric, kwargs):
    """The canonical metric name, after the checks of the metric's keyword arguments."""
    metric = metric_name(metric)
    metric_params(who, metric, kwargs)
    needed = _ESTIMATED_DEFAULTS.get(metric)
    if needed is not None and kwargs.get(needed) is None:
        raise ValueError(f"cudist.dask.{who}: {metric} needs {needed} given: its default is "
                         "estimated from all rows, which no single task sees")
    return metric


def _device(device):
    """`device` as the tasks get it, after a check of its spelling only: the caller's machine
    may have other devices than the workers ('auto' and 'cuda' are resolved by each worker)."""
    if device is None:
        return None
    _cudist.canonical_device(str(device))
    return str(device)


def _params(kwargs):
    """The keyword arguments as every task gets them. Arrays among them (w, V, VI) go into the
    graph once, as a value each worker fetches once; anything else is written into each task,
    since a value of its own is a task that every block task waits for: a scheduler round trip
    before the first block starts (8-10 ms a job on a CPU LocalCluster, docs/tuning.md)."""
    if any(np.ndim(value) > 0 for value in kwargs.values()):
        return dask.delayed(kwargs, pure=True)
    return kwargs


def _same_columns(who, XA, XB):
    if XA.array.shape[1] != XB.array.shape[1]:
        raise ValueError(f"cudist.dask.{who}: XA has {XA.array.shape[1]} columns but XB has "
                         f"{XB.array.shape[1]}")


def _empty_rows(blocks):
    """No rows of `blocks`' width and dtype: the single-process call checks the rest of the
    arguments (dtypes, metric parameters, k, ratio) on them before any task exists."""
    return np.empty((0, blocks.array.shape[1]), dtype=blocks.array.dtype)


def _distance_dtype(blocks):
    """The dtype of knn's and match's distances for these blocks."""
    return np.float64 if blocks.array.dtype == np.float64 else np.float32


def _result_dtype(blocks, dtype):
    """The dtype of cdist's and pdist's result for these blocks: cudist.cdist's rule (float64
    for NumPy chunks unless `dtype` says float32; CuPy chunks keep their precision)."""
    return np.dtype(result_dtype(blocks.array._meta, dtype, None))


def _rank_p(kwargs):
    """minkowski's p as the merges need it: with p = 2 knn ranks on squares (ranks_on_squares)."""
    return float(kwargs.get("p", 2.0))


def _nearest(XA, XB, k, metric, device, params, split_every, pad, p):
    """Per row block of XA, the delayed (distances, indices) of its k nearest rows of XB: one
    knn task per block of XB, merged split_every at a time, in block order. The blocks report
    the values the ranking orders and the merges rank on them (two squares may round to one
    root: merged roots broke such ties by index, where one call ranks the smaller square first);
    the last merge reports distances (merge_nearest; `p`: _rank_p)."""
    merge = _task(_dask_blocks.merge_nearest, nout=2)
    # One database block holding at least k rows already gives the answer, ranked and indexed
    # as the single-process call: no merge task (it would sort the result once more).
    final = len(XB.blocks) == 1 and k <= XB.array.shape[0]
    results = []
    for a in XA.blocks:
        level = [_task(_dask_blocks.knn_block, nout=2)(a, b, start, k, metric, device, params,
                                                       not final)
                 for b, start in zip(XB.blocks, XB.starts)]
        while len(level) > split_every:
            level = [merge(level[g:g + split_every], k, metric, p)
                     for g in range(0, len(level), split_every)]
        results.append(level[0] if final else merge(level, k, metric, p, pad, last=True))
    return results


def _split_every(who, split_every):
    if split_every < 2:
        raise ValueError(f"cudist.dask.{who}: split_every = {split_every}; a merge needs at "
                         "least 2 inputs")
    return int(split_every)


def knn(XA, XB, k, metric="euclidean", *, pad=False, device=None, split_every=8, **kwargs):
    """cudist.knn over dask arrays: the k nearest rows of XB to each row of XA.

    Returns (distances, indices) as dask arrays of shape (mA, k), chunked as XA's rows, in XA's
    chunks' framework: the same values as cudist.knn on the whole arrays. `split_every` block
    results are merged per task (at least 2).
    """
    A, B = _RowBlocks("knn", XA, "XA"), _RowBlocks("knn", XB, "XB")
    _same_columns("knn", A, B)
    metric = _metric_kwargs("knn", metric, kwargs)
    neighbors.knn(_empty_rows(A), _empty_rows(B), k, metric, pad=pad, **kwargs)
    k, split_every = int(k), _split_every("knn", split_every)
    if not pad and A.array.shape[0] > 0 and k > B.array.shape[0]:
        raise ValueError(f"cudist.dask.knn: k = {k} but XB has only {B.array.shape[0]} rows; "
                         "pass pad=True to pad the missing neighbours with index -1")
    device, params = _device(device), _params(kwargs)
    nearest = _nearest(A, B, k, metric, device, params, split_every, pad, _rank_p(kwargs))
    chunks = (tuple(A.sizes), (k,))
    return _fields("cudist-knn", nearest, (chunks, chunks),
                   (A.meta(2, _distance_dtype(A)), A.meta(2, np.int64)))


def match(XA, XB, metric="euclidean", *, ratio=0.75, mutual=False, max_distance=math.inf,
          device=None, split_every=8, **kwargs):
    """cudist.match over dask arrays: Lowe's ratio test, the mutual check and the distance limit.

    Each query's best two rows of XB are merged over XB's blocks before the ratio test; with
    mutual=True every row of XB's nearest query is merged over XA's blocks too (a second knn, XB
    against XA). Returns (pairs, distances) as dask arrays of unknown length, (count, 2) int64
    (query, train) rows ordered by query and (count,): the same as cudist.match.
    """
    A, B = _RowBlocks("match", XA, "XA"), _RowBlocks("match", XB, "XB")
    _same_columns("match", A, B)
    metric = _metric_kwargs("match", metric, kwargs)
    neighbors.match(_empty_rows(A), _empty_rows(B), metric, ratio=ratio, mutual=mutual,
                    max_distance=max_distance, **kwargs)
    split_every = _split_every("match", split_every)
    device, params = _device(device), _params(kwargs)
    rank_p = _rank_p(kwargs)
    best_two = _nearest(A, B, 2, metric, device, params, split_every, pad=True, p=rank_p)
    nearest_query = None
    if mutual:
        first_column = _task(_dask_blocks.first_column)
        nearest_query = _task(_dask_blocks.concatenate_vectors)(
            [first_column(pair) for pair in _nearest(B, A, 1, metric, device, params, split_every,
                                                     pad=True, p=rank_p)])
    match_rows = _task(_dask_blocks.match_rows, nout=2)
    matched = [match_rows(pair, start, nearest_query, float(ratio), float(max_distance))
               for start, pair in zip(A.starts, best_two)]
    unknown = (math.nan,) * len(matched)
    return _fields("cudist-match", matched, ((unknown, (2,)), (unknown,)),
                   (A.meta(2, np.int64), A.meta(1, _distance_dtype(A))))


def cdist(XA, XB, metric="euclidean", *, dtype=None, device=None, **kwargs):
    """cudist.cdist over dask arrays: a (mA, mB) dask array chunked as XA's rows by XB's rows,
    one cdist task per block, in XA's chunks' framework and of cudist.cdist's dtype (float64 for
    NumPy chunks unless dtype='float32')."""
    A, B = _RowBlocks("cdist", XA, "XA"), _RowBlocks("cdist", XB, "XB")
    _same_columns("cdist", A, B)
    metric = _metric_kwargs("cdist", metric, kwargs)
    distance.cdist(_empty_rows(A), _empty_rows(B), metric, dtype=dtype, **kwargs)
    result = _result_dtype(A, dtype)
    device, params = _device(device), _params(dict(kwargs, dtype=result.name))
    block = _task(_dask_blocks.cdist_block)
    return da.block([[da.from_delayed(block(a, b, metric, device, params), (ra, rb), result,
                                      meta=A.meta(2, result))
                      for b, rb in zip(B.blocks, B.sizes)]
                     for a, ra in zip(A.blocks, A.sizes)])


def pdist(X, metric="euclidean", *, dtype=None, device=None, **kwargs):
    """cudist.pdist over a dask array: the (m*(m-1)//2,) condensed distances in scipy's order,
    chunked by X's row blocks (chunk i holds the pairs whose first row is in block i).

    Block i's chunk comes from one pdist task on the block itself and one cdist task against each
    later block, so every pair is computed once.
    """
    R = _RowBlocks("pdist", X, "X")
    metric = _metric_kwargs("pdist", metric, kwargs)
    distance.pdist(_empty_rows(R), metric, dtype=dtype, **kwargs)
    result = _result_dtype(R, dtype)
    device, params = _device(device), _params(dict(kwargs, dtype=result.name))
    m = X.shape[0]
    diagonal, right = _task(_dask_blocks.pdist_block), _task(_dask_blocks.cdist_block)
    condensed_rows = _task(_dask_blocks.condensed_rows)
    chunks = []
    for i, (a, rows, start) in enumerate(zip(R.blocks, R.sizes, R.starts)):
        later = [right(a, b, metric, device, params) for b in R.blocks[i + 1:]]
        rows_out = condensed_rows(diagonal(a, metric, device, params), later, rows)
        # Rows start .. start+rows-1 have m-1-r entries each.
        length = rows * (m - 1) - (rows * (2 * start + rows - 1)) // 2
        chunks.append(da.from_delayed(rows_out, (length,), result, meta=R.meta(1, result)))
    return da.concatenate(chunks)
