"""scikit-learn's NearestNeighbors and pairwise_distances computed by cudist (needs scikit-learn).

One import line switches an sklearn user::

    from cudist.sklearn import NearestNeighbors     # was: from sklearn.neighbors import ...
    from cudist.sklearn import pairwise_distances   # was: from sklearn.metrics import ...

Results are those of sklearn's brute-force search (algorithm='brute'): the same neighbours, up to
the order of equal distances (cudist puts the smaller index first), and distances within rounding,
always float64 (float32 data is searched in float32, as fast, and its distances widened).
Inputs are validated by sklearn's own validation, so they are NumPy arrays (or SciPy sparse
matrices, refused with sklearn's message); `device` computes on a GPU, copying them there.
"""

import operator

import numpy as np
from scipy.sparse import csr_matrix
from sklearn.base import BaseEstimator
from sklearn.metrics.pairwise import check_pairwise_arrays
from sklearn.utils.validation import check_is_fitted, validate_data

from . import distance, neighbors
from ._metric_args import metric_name

__all__ = ["NearestNeighbors", "pairwise_distances"]

_FLOATS = [np.float64, np.float32]  # kept as they are; every other dtype becomes float64
# The metrics whose distances sklearn's pairwise_distances keeps float32 for float32 inputs.
_FLOAT32_KEPT = frozenset({"euclidean", "cosine"})
_MODES = ("connectivity", "distance")


def pairwise_distances(X, Y=None, metric="euclidean", *, n_jobs=None, device=None, **kwds):
    """sklearn.metrics.pairwise_distances: the (len(X), len(Y)) distance matrix (Y = X if None).

    metric is any name cudist.cdist takes (scipy's and sklearn's: 'manhattan', 'l1', 'l2', ...),
    a callable (evaluated in Python, as sklearn does) or 'precomputed' (X returned, validated).
    As in sklearn, the result is float32 for float32 X and Y with the metrics euclidean (l2) and
    cosine, and float64 otherwise. n_jobs is
    accepted for sklearn's signature and has no effect: the engine uses every core or a GPU.
    """
    del n_jobs
    if metric == "precomputed":
        return check_pairwise_arrays(X, Y, precomputed=True)[0]
    X, Y = check_pairwise_arrays(X, Y)
    kept = isinstance(metric, str) and metric_name(metric) in _FLOAT32_KEPT
    return distance.cdist(X, Y, metric, dtype=X.dtype if kept else np.float64, device=device,
                          **kwds)


class NearestNeighbors(BaseEstimator):
    """sklearn.neighbors.NearestNeighbors (with algorithm='brute') on cudist's engine.

    Parameters
    ----------
    n_neighbors : int, default 5
    radius : float, default 1.0
    metric : str, default 'minkowski'
        Any metric name cudist.cdist takes; 'minkowski' uses p. Callables and 'precomputed' are
        not supported (ValueError): use sklearn for them.
    p : float, default 2
        The order of 'minkowski' (p=2 is 'euclidean').
    metric_params : dict, optional
        The metric's keyword arguments (w, V, VI, p).
    device : str, optional
        Where to compute: 'cpu', 'cuda', 'cuda:N' or 'auto'; default the CPU.
    """

    def __init__(self, *, n_neighbors=5, radius=1.0, metric="minkowski", p=2,
                 metric_params=None, device=None):
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.metric = metric
        self.p = p
        self.metric_params = metric_params
        self.device = device

    def fit(self, X, y=None):
        """Keep X as the points to search; y is ignored."""
        if not isinstance(self.metric, str) or self.metric == "precomputed":
            raise ValueError(f"cudist.sklearn.NearestNeighbors: metric must be the name of a "
                             f"metric, got {self.metric!r} (use sklearn for callables and "
                             "'precomputed')")
        params = dict(self.metric_params or {})
        metric = self.metric
        if metric == "minkowski":
            params.setdefault("p", self.p)
            if params["p"] == 2:
                metric = "euclidean"
                del params["p"]
        self._fit_X = validate_data(self, X, dtype=_FLOATS)
        self.n_samples_fit_ = self._fit_X.shape[0]
        self.effective_metric_ = metric
        self.effective_metric_params_ = params
        return self

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """The n_neighbors nearest fitted points of each row of X, nearest first. With X=None,
        of each fitted point, itself excluded. Returns (distances, indices) or indices."""
        check_is_fitted(self)
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        if isinstance(k, float) or operator.index(k) <= 0:
            raise ValueError(f"Expected n_neighbors > 0 and an integer, got {k!r}")
        available = self.n_samples_fit_ - (X is None)
        if k > available:
            raise ValueError(f"Expected n_neighbors <= n_samples_fit, but n_neighbors = {k}, "
                             f"n_samples_fit = {self.n_samples_fit_}"
                             + (" (the points themselves are excluded)" if X is None else ""))
        if X is None:
            found = neighbors.self_knn(self._fit_X, k, self.effective_metric_,
                                       device=self.device, **self.effective_metric_params_)
        else:
            found = neighbors.knn(self._queries(X), self._fit_X, k, self.effective_metric_,
                                  device=self.device, **self.effective_metric_params_)
        distances, indices = found
        return (distances.astype(np.float64, copy=False), indices) if return_distance else indices

    def kneighbors_graph(self, X=None, n_neighbors=None, mode="connectivity"):
        """kneighbors as a (queries, n_samples_fit) CSR matrix of ones or distances."""
        _check_mode(mode)
        distances, indices = self.kneighbors(X, n_neighbors)
        queries, k = indices.shape
        data = np.ones(indices.size) if mode == "connectivity" else distances.ravel()
        return csr_matrix((data, indices.ravel(), np.arange(0, queries * k + 1, k)),
                          shape=(queries, self.n_samples_fit_))

    def radius_neighbors(self, X=None, radius=None, return_distance=True, sort_results=False):
        """The fitted points within `radius` of each row of X (with X=None, of each fitted point,
        itself excluded), as object arrays of per-row arrays: (distances, indices) or indices.
        Indices increase within a row unless sort_results=True sorts them by distance."""
        if sort_results and not return_distance:
            raise ValueError("return_distance must be True if sort_results is True.")
        offsets, indices, distances = self._within(X, radius, sort_results)
        rows = [slice(begin, end) for begin, end in zip(offsets[:-1], offsets[1:])]
        found_indices = _object_array([indices[row] for row in rows])
        if not return_distance:
            return found_indices
        return _object_array([distances[row] for row in rows]), found_indices

    def radius_neighbors_graph(self, X=None, radius=None, mode="connectivity",
                               sort_results=False):
        """radius_neighbors as a (queries, n_samples_fit) CSR matrix of ones or distances."""
        _check_mode(mode)
        offsets, indices, distances = self._within(X, radius, sort_results)
        data = np.ones(indices.size) if mode == "connectivity" else distances
        return csr_matrix((data, indices, offsets), shape=(len(offsets) - 1, self.n_samples_fit_))

    def _queries(self, X):
        return validate_data(self, X, dtype=self._fit_X.dtype, reset=False)

    def _within(self, X, radius, sort_results):
        """(offsets, indices, distances) of radius_neighbors, compressed by query row."""
        check_is_fitted(self)
        r = self.radius if radius is None else radius
        queries = self._fit_X if X is None else self._queries(X)
        offsets, indices, distances = neighbors.radius(
            queries, self._fit_X, r, self.effective_metric_, device=self.device,
            **self.effective_metric_params_)
        rows = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        if X is None:  # a fitted point is not its own neighbour
            others = indices != rows
            rows, indices, distances = rows[others], indices[others], distances[others]
            counts = np.bincount(rows, minlength=len(offsets) - 1)
            offsets = np.concatenate([[0], np.cumsum(counts)])
        if sort_results:  # by row, then distance; the sort is stable, so ties keep index order
            order = np.lexsort((distances, rows))
            indices, distances = indices[order], distances[order]
        return offsets, indices, distances.astype(np.float64, copy=False)


def _check_mode(mode):
    if mode not in _MODES:
        raise ValueError(f'Unsupported mode, must be one of "connectivity", or "distance" but '
                         f'got "{mode}" instead')


def _object_array(parts):
    """A 1-D object array of the arrays `parts` (np.array would stack equal-length ones)."""
    result = np.empty(len(parts), dtype=object)
    for i, part in enumerate(parts):
        result[i] = part
    return result
