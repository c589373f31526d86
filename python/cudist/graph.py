"""All-pairs shortest paths of a weighted graph given as a dense weight matrix, a scipy.sparse
matrix, an edge list or a Matrix Market file."""

import functools
import operator
import os

import numpy as np

from . import _cudist
from ._frameworks import as_array, expect_2d, export, framework_of, placed

__all__ = ["apsp", "apsp_path"]

# Where a file's results go: a Matrix Market file has no array framework, so NumPy on the host.
_HOST = np.empty(0)


def apsp(graph, *, n=None, dtype=None, directed=True, next_hops=False, out=None, device=None):
    """Shortest path lengths between every pair of vertices (blocked Floyd-Warshall).

    Parameters
    ----------
    graph : one of
        - an (n, n) float32 or float64 array of weights: weights[i, j] is the edge i -> j, +inf or
          NaN where there is none (any framework, used in place);
        - a scipy.sparse matrix (any format), square: every stored entry (i, j) is an edge
          i -> j, explicit zeros included (edges of weight 0, as in scipy.sparse.csgraph);
        - an edge list ``(u, v, w)`` with ``n=``: 1-D arrays (or lists), one entry per edge
          u[t] -> v[t] of weight w[t], vertices 0 .. n-1;
        - the path (str or os.PathLike) of a Matrix Market file, whose entries are the edges
          (symmetric files mirrored; array files: every position, zeros included).
        In the last three forms, repeated (i, j) entries are parallel edges: the smallest weight
        counts (as scipy.sparse.csgraph does with repeated entries of a CSR matrix; scipy's
        conversion from COO to CSR would add them instead).
    n : int, the number of vertices of an edge list (and only there).
    dtype : float32 or float64, the dtype of the result for a graph given by its edges (sparse
        matrix, edge list, file). Default: float32 for float32 weights, else float64. A dense
        weight matrix is computed in its own dtype.
    directed : bool
        False: every edge can be used both ways, i -- j weighing min(w[i, j], w[j, i]).
    next_hops : bool
        Also return the (n, n) int32 next-hop matrix: next[i, j] is the vertex after i on a
        shortest path to j (-1 when j is unreachable); apsp_path reads paths from it.
    out : (n, n) array of weights' dtype, optional; dense weight matrices only.

    Returns dist, or (dist, next). dist[i, i] is 0 unless i is on a negative cycle. Raises
    NegativeCycleError (a ValueError; .vertex is on the cycle) when some shortest paths do not
    exist, OSError for a file that cannot be read or parsed. Synchronizes (the negative-cycle
    check reads the result back). Arrays, devices and streams follow cudist.cdist's rules: the
    results are arrays of the weights' framework (w's for an edge list, NumPy for sparse matrices
    and files) on their device. For a graph given by its edges, the edges are read on the host
    (device arrays are copied back) and the library allocates the results, which are handed over
    without a copy. The equivalent in scipy is scipy.sparse.csgraph.floyd_warshall (which takes 0
    as "no edge" on dense input).
    """
    edges = _edges(graph, n, dtype)
    if edges is None:
        if dtype is not None:
            raise TypeError("apsp: dtype is for graphs given by their edges; dense weights are "
                            "computed in their own dtype (convert with .astype)")
        return _apsp_dense(as_array(graph), directed, next_hops, out, device)
    if out is not None:
        raise ValueError("apsp: out is for dense weight matrices; a graph given by its edges gets "
                         "new result arrays")
    home, call = edges
    with placed(home, device) as at:
        dist, hops = call(bool(directed), bool(next_hops), at.framework, at.home_device,
                          at.device, at.stream)
    return (dist, hops) if next_hops else dist


def _apsp_dense(weights, directed, next_hops, out, device):
    expect_2d(weights, "weights")
    with placed(weights, device) as at:
        shape = weights.shape
        dist = at.empty(shape, at.dtype_name(weights)) if out is None else out
        hops = at.empty(shape, "int32") if next_hops else None
        _cudist.apsp(at.export(weights), at.export(as_array(dist)), bool(directed),
                     None if hops is None else at.export(hops), at.device, at.stream)
    return dist if hops is None else (dist, hops)


def _edges(graph, n, dtype):
    """(home, binding call awaiting directed, next_hops and the placement) for a graph given by
    its edges; None for a dense weight matrix. `home` decides the results' framework."""
    if isinstance(graph, (str, os.PathLike)):
        _expect_no_n(n, "a Matrix Market file")
        path = os.fsdecode(graph)
        return _HOST, functools.partial(_cudist.apsp_file, path, _dtype_name(dtype, np.float64))
    if type(graph).__module__.startswith("scipy.sparse"):
        _expect_no_n(n, "a sparse matrix")
        coo = graph.tocoo()  # the stored entries, explicit zeros included
        return _edge_call(coo.row, coo.col, coo.data, coo.shape, dtype)
    if n is None:
        return None
    if not isinstance(graph, (tuple, list)) or len(graph) != 3:
        raise TypeError("apsp: with n, graph must be an edge list (u, v, w) of three 1-D arrays")
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"apsp: n = {n}; the number of vertices must be >= 0")
    return _edge_call(*graph, (n, n), dtype)


def _expect_no_n(n, what):
    if n is not None:
        raise ValueError(f"apsp: n is for edge lists; {what} has its own number of vertices")


def _edge_call(u, v, w, shape, dtype):
    """(home, binding call) for the edges u[t] -> v[t] of weight w[t]; home is w."""
    u_host, v_host = _host(u, "u", "iu", np.int64), _host(v, "v", "iu", np.int64)
    w_host = _host(w, "w", "biuf", np.float64)
    if not len(u_host) == len(v_host) == len(w_host):
        raise ValueError(f"apsp: u, v and w hold {len(u_host)}, {len(v_host)} and {len(w_host)} "
                         f"entries; an edge list has one of each per edge")
    home = as_array(w)
    default = "float32" if framework_of(home).dtype_name(home) == "float32" else "float64"
    return home, functools.partial(_cudist.apsp_edges, u_host, v_host, w_host, *shape,
                                   _dtype_name(dtype, default))


def _host(array, name, kinds, dtype):
    """A 1-D array as a contiguous NumPy array of `dtype` (device arrays are copied back)."""
    values = framework_of(array).to_numpy(array)
    if values.ndim != 1 or values.dtype.kind not in kinds:
        raise TypeError(f"apsp: {name} must be a 1-dimensional array of "
                        f"{'integers' if kinds == 'iu' else 'real numbers'}, got {values.ndim} "
                        f"dimensions of dtype {values.dtype}")
    return np.ascontiguousarray(values, dtype=dtype)


def _dtype_name(dtype, default):
    return np.dtype(default if dtype is None else dtype).name


def apsp_path(next_hops, source, target):
    """The vertices of a shortest path from source to target (both included), read from the
    next-hop matrix apsp returned; an empty list when target cannot be reached."""
    return _cudist.apsp_path(export(as_array(next_hops)), int(source), int(target))
