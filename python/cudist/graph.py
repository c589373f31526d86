"""All-pairs shortest paths of a weighted graph given as a dense weight matrix."""

from . import _cudist
from ._frameworks import as_array, expect_2d, export, placed

__all__ = ["apsp", "apsp_path"]


def apsp(weights, *, directed=True, next_hops=False, out=None, device=None):
    """Shortest path lengths between every pair of vertices (blocked Floyd-Warshall).

    Parameters
    ----------
    weights : (n, n) float32 or float64 array; weights[i, j] is the edge i -> j, +inf or NaN
        where there is none. dist[i, i] is 0 unless i is on a negative cycle.
    directed : bool
        False: every edge can be used both ways, i -- j weighing min(w[i, j], w[j, i]).
    next_hops : bool
        Also return the (n, n) int32 next-hop matrix: next[i, j] is the vertex after i on a
        shortest path to j (-1 when j is unreachable); apsp_path reads paths from it.
    out : (n, n) array of weights' dtype, optional.

    Returns dist, or (dist, next). Raises NegativeCycleError (a ValueError; .vertex is on the
    cycle) when some shortest paths do not exist. Synchronizes (the negative-cycle check reads
    the result back). Arrays, devices and streams follow cudist.cdist's rules; the equivalent in
    scipy is scipy.sparse.csgraph.floyd_warshall (which takes 0 as "no edge" on dense input).
    """
    weights = as_array(weights)
    expect_2d(weights, "weights")
    with placed(weights, device) as at:
        shape = weights.shape
        dist = at.empty(shape, at.dtype_name(weights)) if out is None else out
        hops = at.empty(shape, "int32") if next_hops else None
        _cudist.apsp(at.export(weights), at.export(as_array(dist)), bool(directed),
                     None if hops is None else at.export(hops), at.device, at.stream)
    return dist if hops is None else (dist, hops)


def apsp_path(next_hops, source, target):
    """The vertices of a shortest path from source to target (both included), read from the
    next-hop matrix apsp returned; an empty list when target cannot be reached."""
    return _cudist.apsp_path(export(as_array(next_hops)), int(source), int(target))
