"""Nearest neighbours without the distance matrix: knn, match (Lowe's ratio test) and radius.

Distances are those of cdist, for every metric, dtype and keyword argument (p, w, V, VI); on a GPU
the selection runs inside the distance computation, so the (mA, mB) matrix is never written.
Ranking is the same on every backend: nearest first (for inner_product, a similarity, largest
first), ties by smaller index, NaN distances after every other. Arrays, devices and streams
follow cdist's rules: the results are arrays of XA's framework on XA's device.
"""

import math
import operator

from . import _cudist
from ._frameworks import as_array, expect_2d, placed
from ._metric_args import metric_name, metric_params

__all__ = ["knn", "match", "radius"]


def _rows(who, XA, XB, metric, kwargs):
    XA, XB = as_array(XA), as_array(XB)
    expect_2d(XA, "XA")
    expect_2d(XB, "XB")
    metric = metric_name(metric)
    return XA, XB, metric, metric_params(who, metric, kwargs)


def knn(XA, XB, k, metric="euclidean", *, pad=False, device=None, **kwargs):
    """The k nearest rows of XB to each row of XA.

    Returns
    -------
    distances : (mA, k) array, float64 for float64 inputs and float32 otherwise, nearest first
    indices : (mA, k) int64 array of row indices into XB

    With pad=True, k may exceed the number of rows of XB: the missing slots get index -1 and a
    NaN distance. Otherwise that is a ValueError. Equivalent to sorting each row of
    cdist(XA, XB, metric) and keeping the first k, without forming that matrix.
    """
    XA, XB, metric, params = _rows("knn", XA, XB, metric, kwargs)
    k = operator.index(k)
    if k < 1:
        raise ValueError(f"knn: k = {k}; k must be at least 1")
    with placed(XA, device) as at:
        distances = at.empty((XA.shape[0], k), at.distance_dtype(XA))
        indices = at.empty((XA.shape[0], k), "int64")
        _cudist.knn(at.export(XA), at.export(XB), k, at.export(distances), at.export(indices),
                    metric, pad, at.device, at.stream, **params)
    return distances, indices


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
    with placed(XA, device) as at:
        pairs, distances = _cudist.match(
            at.export(XA), at.export(XB), metric, float(ratio), bool(mutual), float(max_distance),
            at.framework, at.home_device, at.device, at.stream, **params)
    return pairs, distances.reshape(-1)


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
            at.device, at.stream, **params)
    return offsets.reshape(-1), indices.reshape(-1), distances.reshape(-1)
