"""Nearest neighbours without the distance matrix: knn, self_knn, match (Lowe's ratio test) and
radius, and knn / match over many independent problems in one call (knn_batched, match_batched).

Distances are those of cdist, for every metric, dtype and keyword argument (p, w, V, VI); on a GPU
the selection runs inside the distance computation, so the (mA, mB) matrix is never written.
Ranking is the same on every backend: nearest first (for inner_product, a similarity, largest
first), ties by smaller index, NaN distances after every other. Arrays, devices and streams
follow cdist's rules: the results are arrays of XA's framework on XA's device.
"""

import math
import operator

import numpy as np

from . import _cudist
from ._frameworks import as_array, budget_bytes, expect_2d, framework_of, placed, readable
from ._metric_args import metric_name, metric_params
from ._timeline import timed

__all__ = ["knn", "knn_batched", "match", "match_batched", "merge_knn", "radius", "self_knn"]

_BATCHES = """
    A batch stacks the problems' rows: problem b pairs rows XA_offsets[b] .. XA_offsets[b+1] - 1
    of XA with rows XB_offsets[b] .. XB_offsets[b+1] - 1 of XB, like the indptr of a CSR matrix.
    Both offsets are 1-D integer arrays of the same length (problems + 1), non-decreasing, from 0
    to the number of rows (read on the host: device arrays are copied back, which synchronizes).
    Every problem is solved in the same call, with no launch per problem. From lists of arrays::

        XA = np.concatenate(queries)
        XA_offsets = np.concatenate([[0], np.cumsum([len(q) for q in queries])])
"""


def _batched(function):
    if function.__doc__ is not None:  # None under python -OO
        function.__doc__ += _BATCHES
    return function


def _matrix(X, name):
    """X as the kernels read it: in place, or one row-major copy where its layout needs one."""
    X = as_array(X)
    expect_2d(X, name)
    return readable(X)


def _metric(who, metric, kwargs):
    metric = metric_name(metric)
    return metric, metric_params(who, metric, kwargs)


def _rows(who, XA, XB, metric, kwargs):
    return (_matrix(XA, "XA"), _matrix(XB, "XB")) + _metric(who, metric, kwargs)


def _k(who, k):
    k = operator.index(k)
    if k < 1:
        raise ValueError(f"{who}: k = {k}; k must be at least 1")
    return k


def _offsets(who, offsets, name):
    """A batch's offsets as the int64 host vector the extension reads (a copy unless it is one)."""
    offsets = framework_of(offsets).to_numpy(offsets)  # lists stay integers
    if offsets.ndim != 1 or offsets.dtype.kind not in "iu":
        raise TypeError(f"{who}: {name} must be a 1-dimensional integer array, got "
                        f"{offsets.ndim} dimensions of dtype {offsets.dtype}")
    return np.ascontiguousarray(offsets, dtype=np.int64)


@timed
def knn(XA, XB, k, metric="euclidean", *, pad=False, device=None, memory_budget=None,
        rank_values=False, **kwargs):
    """The k nearest rows of XB to each row of XA.

    Returns
    -------
    distances : (mA, k) array, float64 for float64 inputs and float32 otherwise, nearest first
    indices : (mA, k) int64 array of row indices into XB

    With pad=True, k may exceed the number of rows of XB: the missing slots get index -1 and a
    NaN distance. Otherwise that is a ValueError. Equivalent to sorting each row of
    cdist(XA, XB, metric) and keeping the first k, without forming that matrix.

    An XB in host memory (NumPy) whose rows exceed ``memory_budget`` bytes of device memory
    (default: the GPU's free memory) is streamed to the device in chunks, and the chunks' top-k
    merged exactly: the database may be larger than the GPU.

    With rank_values=True the distances are the values the ranking orders: for euclidean,
    seuclidean, mahalanobis and minkowski with p = 2 their squares, before the root (two squares
    may round to one root, and one call ranks on the squares); for every other metric the
    distances. Merging such answers of calls over parts of XB (nearest first, ties by smaller
    index) and then taking the root gives what one call over all of XB returns.
    """
    XA, XB, metric, params = _rows("knn", XA, XB, metric, kwargs)
    k = _k("knn", k)
    with placed(XA, device) as at:
        distances = at.empty((XA.shape[0], k), at.distance_dtype(XA))
        indices = at.empty((XA.shape[0], k), "int64")
        _cudist.knn(at.export(XA), at.export(XB), k, at.export(distances), at.export(indices),
                    metric, pad, at.device, at.stream, *params, budget_bytes(memory_budget),
                    bool(rank_values))
    return distances, indices


@timed
def merge_knn(part_distances, part_indices, k, metric="euclidean", *, p=2.0,
              parts_rank_values=False, rank_values=False, pad=False):
    """One knn answer from knn's answers for the same queries against disjoint rows of one
    database (a database sharded by hand: other processes, machines, or calls).

    Part i is (distances, indices) with the indices already into the whole database (add the
    part's first row; -1 past a row's candidates, as knn's pad leaves them). Returns each row's k
    best over all parts as knn ranks them (nearest first, largest first for inner_product, ties by
    the smaller index, NaN last): (m, k) distances and int64 indices, or fewer columns when the
    parts hold fewer candidates (pad=True fills to k with index -1 and NaN).

    For one call's answer exactly, ties included: the parts from knn(..., rank_values=True) and
    parts_rank_values=True here (the root of euclidean's squares is taken after the merge).
    rank_values=True keeps the merged rank values (a merge to be merged again). p: minkowski's.
    Host (NumPy) arrays; float32 or float64 distances, the same in every part.
    """
    d = [_host_rows("merge_knn", a, f"part_distances[{n}]") for n, a in enumerate(part_distances)]
    i = [_host_rows("merge_knn", a, f"part_indices[{n}]") for n, a in enumerate(part_indices)]
    k = _k("merge_knn", k)
    if rank_values and not parts_rank_values:
        raise ValueError("merge_knn: rank_values=True keeps the parts' rank values, but the parts "
                         "hold distances (parts_rank_values=False)")
    columns = sum(a.shape[1] for a in d)
    if not pad and k > columns:
        raise ValueError(f"merge_knn: k = {k} but the parts hold {columns} candidates a row; pass "
                         "pad=True to pad the missing neighbours with index -1")
    rows = d[0].shape[0] if d else 0
    distances = np.empty((rows, k), d[0].dtype if d else np.float32)
    indices = np.empty((rows, k), np.int64)
    _cudist.merge_knn(d, i, k, metric_name(metric), float(p), bool(parts_rank_values),
                      bool(rank_values), distances, indices)
    return distances, indices


def _host_rows(who, array, name):
    """A part as merge_knn reads it: a NumPy (host) matrix, aligned and of contiguous rows."""
    framework = framework_of(array)  # NumPy's takes anything np.asarray does (lists too)
    if framework.device(array) != "cpu":
        raise ValueError(f"{who}: {name} is on a GPU; merge_knn merges host arrays (copy it to "
                         "the host first)")
    a = framework.to_numpy(array)
    if a.ndim != 2:
        raise ValueError(f"{who}: {name} must be 2-dimensional, got {a.ndim} dimensions")
    return np.require(a, requirements="AC")


def self_knn(X, k, metric="euclidean", *, exclude_self=True, pad=False, device=None, **kwargs):
    """The k nearest rows of X to each row of X: the k-NN graph of a point set.

    With exclude_self=True (the default) row i is never among its own neighbours, though other
    rows at distance 0 (duplicates) are; k is then at most m - 1. With exclude_self=False this is
    knn(X, X, k). pad, device and the metric's keyword arguments are as for knn.

    Returns
    -------
    distances : (m, k) array, float64 for float64 inputs and float32 otherwise, nearest first
    indices : (m, k) int64 array of row indices into X

    The results are allocated by the library (on the device that computes) and handed over as
    arrays of X's framework without a copy.
    """
    X = _matrix(X, "X")
    metric, params = _metric("self_knn", metric, kwargs)
    k = _k("self_knn", k)
    with placed(X, device) as at:
        return _cudist.self_knn(at.export(X), k, metric, bool(exclude_self), bool(pad),
                                at.framework, at.home_device, at.device, at.stream, *params)


@timed
@_batched
def knn_batched(XA, XB, XA_offsets, XB_offsets, k, metric="euclidean", *, pad=False, device=None,
                **kwargs):
    """knn for many independent problems at once: each row of XA against its problem's rows of XB.

    Returns
    -------
    distances : (mA, k) array, nearest first; row r belongs to row r of XA
    indices : (mA, k) int64 array counting from the first row of the problem's rows of XB (add
        XB_offsets[b] for row indices into XB)

    k must not exceed the rows of XB of any problem that has queries, unless pad=True: then the
    missing slots get index -1 and a NaN distance (all k of them when the problem has no rows of
    XB). Otherwise as knn. The results are allocated by the library and handed over as arrays of
    XA's framework without a copy.
    """
    XA, XB, metric, params = _rows("knn_batched", XA, XB, metric, kwargs)
    XA_offsets = _offsets("knn_batched", XA_offsets, "XA_offsets")
    XB_offsets = _offsets("knn_batched", XB_offsets, "XB_offsets")
    k = _k("knn_batched", k)
    with placed(XA, device) as at:
        return _cudist.knn_batched(at.export(XA), at.export(XB), XA_offsets, XB_offsets, k, metric,
                                   bool(pad), at.framework, at.home_device, at.device, at.stream,
                                   *params)


@timed
def match(XA, XB, metric="euclidean", *, ratio=0.75, mutual=False, max_distance=math.inf,
          device=None, **kwargs):
    """Descriptor matching, as OpenCV's BFMatcher.knnMatch(k=2) followed by Lowe's ratio test.

    For each row i of XA (a query), its nearest row j of XB is kept when d1 < ratio * d2, where d2
    is the distance to the second nearest (a query with a single candidate passes); with
    mutual=True only when i is also j's nearest query (OpenCV's cross-check); and only when
    d1 <= max_distance. Distance metrics only (not inner_product).

    Returns
    -------
    pairs : (count, 2) int64 array of (query, train) rows, ordered by query
    distances : (count,) array of their distances

    Synchronizes: the number of matches sizes the result, which the library allocates (on XA's
    device) and hands over without a copy.
    """
    XA, XB, metric, params = _rows("match", XA, XB, metric, kwargs)
    pairs, distances, _ = _match(XA, XB, None, None, metric, ratio, mutual, max_distance, device,
                                 params)
    return pairs, distances


def _match(XA, XB, XA_offsets, XB_offsets, metric, ratio, mutual, max_distance, device, params):
    """(pairs, distances, offsets) of match or, with offsets, match_batched."""
    with placed(XA, device) as at:
        pairs, distances, offsets = _cudist.match(
            at.export(XA), at.export(XB), XA_offsets, XB_offsets, metric, float(ratio),
            bool(mutual), float(max_distance), at.framework, at.home_device, at.device, at.stream,
            *params)
    return pairs, distances.reshape(-1), offsets.reshape(-1)


@timed
@_batched
def match_batched(XA, XB, XA_offsets, XB_offsets, metric="euclidean", *, ratio=0.75, mutual=False,
                  max_distance=math.inf, device=None, **kwargs):
    """match for many independent problems at once (the descriptor sets of many image pairs).

    Returns
    -------
    pairs : (count, 2) int64 array of (query, train) rows, ordered by problem and query; both
        count from the start of their problem's rows (add XA_offsets[b] and XB_offsets[b] for
        rows of XA and XB)
    distances : (count,) array of their distances
    offsets : (problems + 1,) int64 array: the matches of problem b are rows
        offsets[b] .. offsets[b+1] - 1 of pairs

    The ratio test, mutual check and max_distance apply within each problem. Otherwise as match.
    """
    XA, XB, metric, params = _rows("match_batched", XA, XB, metric, kwargs)
    XA_offsets = _offsets("match_batched", XA_offsets, "XA_offsets")
    XB_offsets = _offsets("match_batched", XB_offsets, "XB_offsets")
    return _match(XA, XB, XA_offsets, XB_offsets, metric, ratio, mutual, max_distance, device,
                  params)


@timed
def radius(XA, XB, r, metric="euclidean", *, device=None, **kwargs):
    """Every pair (i, j) with distance(XA[i], XB[j]) <= r (inner_product: XA[i] . XB[j] >= r).

    Returns the pairs compressed by query row, as a CSR matrix's arrays:

    offsets : (mA + 1,) int64; the neighbours of row i are entries offsets[i] .. offsets[i+1]-1
    indices : (count,) int64 rows of XB, increasing within each query row
    distances : (count,) their distances

    ``scipy.sparse.csr_array((distances, indices, offsets), shape=(mA, mB))`` builds the sparse
    distance matrix (on NumPy results). Synchronizes: the number of pairs sizes the result.
    """
    XA, XB, metric, params = _rows("radius", XA, XB, metric, kwargs)
    with placed(XA, device) as at:
        offsets, indices, distances = _cudist.radius(
            at.export(XA), at.export(XB), float(r), metric, at.framework, at.home_device,
            at.device, at.stream, *params)
    return offsets.reshape(-1), indices.reshape(-1), distances.reshape(-1)
