"""semiring_product / minplus against NumPy broadcasting, apsp against
scipy.sparse.csgraph.floyd_warshall / shortest_path on dense matrices, sparse matrices, edge lists
and Matrix Market files."""

import pathlib

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from scipy.sparse.csgraph import floyd_warshall, shortest_path

import cudist

# (add, mul) of each semiring as NumPy reductions over k of the (m, d, n) broadcast terms.
REFERENCE = {
    "min-plus": lambda a, b: (a[:, :, None] + b[None]).min(axis=1),
    "max-plus": lambda a, b: (a[:, :, None] + b[None]).max(axis=1),
    "min-max": lambda a, b: np.maximum(a[:, :, None], b[None]).min(axis=1),
    "max-min": lambda a, b: np.minimum(a[:, :, None], b[None]).max(axis=1),
    "or-and": lambda a, b: ((a[:, :, None] != 0) & (b[None] != 0)).any(axis=1),
    "plus-times": lambda a, b: a @ b,
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int16])
@pytest.mark.parametrize("semiring", sorted(REFERENCE))
@pytest.mark.parametrize("shape", [(1, 1, 1), (33, 17, 31), (70, 129, 45)])
def test_semiring_product_on_integer_valued_data(semiring, dtype, shape, rng):
    m, d, n = shape
    A = rng.integers(-8, 9, (m, d)).astype(dtype)  # exact in every dtype and semiring
    B = rng.integers(-8, 9, (d, n)).astype(dtype)
    C = cudist.semiring_product(A, B, semiring)
    assert C.dtype == dtype and C.shape == (m, n)
    assert_array_equal(C, REFERENCE[semiring](A.astype(np.float64), B.astype(np.float64)))


def test_minplus_witness_and_infinities(rng):
    A, B = rng.random((20, 12)), rng.random((12, 25))
    A[3] = np.inf  # a vertex with no edges: its row stays +inf, witness -1
    C, witness = cudist.minplus(A, B, witness=True)
    terms = A[:, :, None] + B[None]
    assert_array_equal(C, terms.min(axis=1))
    assert witness.dtype == np.int32
    assert_array_equal(witness[3], -1)
    rows = [i for i in range(20) if i != 3]
    assert_array_equal(witness[rows], terms.argmin(axis=1)[rows])


def test_minplus_accumulates_into_out(rng):
    A, B = rng.random((6, 4)), rng.random((4, 5))
    out = np.full((6, 5), 0.5)
    assert cudist.semiring_product(A, B, "min-plus", out=out, accumulate=True) is out
    assert_array_equal(out, np.minimum(0.5, (A[:, :, None] + B[None]).min(axis=1)))


def test_semiring_errors():
    with pytest.raises(TypeError, match="int64"):
        cudist.minplus(np.ones((2, 2), np.int64), np.ones((2, 2), np.int64))
    with pytest.raises(TypeError, match="convert one"):
        cudist.minplus(np.ones((2, 2)), np.ones((2, 2), np.float32))
    with pytest.raises(ValueError):
        cudist.semiring_product(np.ones((2, 2)), np.ones((2, 2)), "no-such-semiring")
    with pytest.raises(ValueError):
        cudist.minplus(np.ones((2, 3)), np.ones((2, 3)))


def random_graph(rng, n, density):
    weights = rng.random((n, n)) + 0.1
    weights[rng.random((n, n)) > density] = np.inf
    return weights


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("n", [1, 7, 130])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_apsp_is_floyd_warshall(n, directed, dtype, rng):
    weights = random_graph(rng, n, 0.1).astype(dtype)
    dist = cudist.apsp(weights, directed=directed)
    # scipy's dense input reads 0 as "no edge"; the random weights are never 0.
    expected = floyd_warshall(np.where(np.isinf(weights), 0, weights).astype(np.float64),
                              directed=directed)
    assert dist.dtype == dtype
    np.testing.assert_allclose(dist, expected, rtol=1e-6 if dtype == np.float32 else 1e-12)


def test_apsp_paths_follow_the_next_hops(rng):
    weights = random_graph(rng, 40, 0.15)
    dist, next_hops = cudist.apsp(weights, next_hops=True)
    assert next_hops.dtype == np.int32
    for source, target in [(0, 39), (5, 17), (23, 2)]:
        path = cudist.apsp_path(next_hops, source, target)
        if np.isinf(dist[source, target]):
            assert path == []
            continue
        assert path[0] == source and path[-1] == target
        length = sum(weights[a, b] for a, b in zip(path, path[1:]))
        np.testing.assert_allclose(length, dist[source, target], rtol=1e-12)


def test_negative_cycles_are_reported_with_a_vertex():
    weights = np.full((4, 4), np.inf)
    weights[1, 2], weights[2, 3], weights[3, 1] = 1.0, -4.0, 1.0
    with pytest.raises(cudist.NegativeCycleError) as raised:
        cudist.apsp(weights)
    assert isinstance(raised.value, ValueError) and raised.value.vertex in (1, 2, 3)


# --- graphs given by their edges -------------------------------------------------------------

MATRICES = pathlib.Path(__file__).resolve().parents[2] / "data" / "sparse"


def csr_keeping_repeats(u, v, w, n):
    """The CSR matrix of an edge list with repeated (u, v) stored separately: scipy.sparse.csgraph
    reads those as parallel edges (the smallest counts); COO -> CSR conversion would add them."""
    order = np.argsort(u, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(u, minlength=n))])
    return sp.csr_array((w[order], v[order], indptr), shape=(n, n))


def random_edges(rng, n, count, dtype=np.float64):
    u, v = rng.integers(0, n, count), rng.integers(0, n, count)
    w = (rng.random(count) + 0.1).astype(dtype)
    w[::5] = 0  # edges of weight 0
    return u, v, w


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil"])
@pytest.mark.parametrize("directed", [True, False])
def test_apsp_of_a_sparse_matrix_is_csgraphs(fmt, directed, rng):
    A = sp.random(90, 90, density=0.04, format="csr", random_state=rng)
    A.data[::4] = 0  # explicit zeros: edges of weight 0
    dist = cudist.apsp(A.asformat(fmt), directed=directed)
    assert dist.dtype == np.float64 and dist.shape == (90, 90)
    np.testing.assert_allclose(dist, shortest_path(A, directed=directed), rtol=1e-12)


def test_apsp_of_a_float32_sparse_matrix_is_float32(rng):
    A = sp.random(40, 40, density=0.1, format="csr", dtype=np.float32, random_state=rng)
    dist = cudist.apsp(A)
    assert dist.dtype == np.float32
    np.testing.assert_allclose(dist, shortest_path(A.astype(np.float64)), rtol=1e-6)
    assert cudist.apsp(A, dtype=np.float64).dtype == np.float64


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n, count", [(1, 0), (1, 3), (25, 60), (200, 900)])
def test_apsp_of_an_edge_list_is_csgraphs(n, count, dtype, rng):
    u, v, w = random_edges(rng, n, count, dtype)  # with repeats and self-loops
    dist = cudist.apsp((u, v, w), n=n)
    assert dist.dtype == dtype and dist.shape == (n, n)
    expected = shortest_path(csr_keeping_repeats(u, v, w.astype(np.float64), n))
    np.testing.assert_allclose(dist, expected, rtol=1e-6 if dtype == np.float32 else 1e-12)


def test_apsp_of_an_edge_list_of_lists_with_isolated_vertices():
    dist, next_hops = cudist.apsp(([0, 1, 1], [1, 2, 2], [1.5, 4, 2]), n=5, next_hops=True)
    assert dist.dtype == np.float64 and next_hops.dtype == np.int32
    assert_array_equal(dist[0, :3], [0, 1.5, 3.5])
    assert np.all(np.isinf(dist[3, [0, 1, 2, 4]])) and dist[3, 3] == 0
    assert cudist.apsp_path(next_hops, 0, 2) == [0, 1, 2]
    assert cudist.apsp_path(next_hops, 0, 4) == []
    undirected = cudist.apsp(([0, 1], [1, 2], [1, 2]), n=3, directed=False)
    assert_array_equal(undirected, [[0, 1, 3], [1, 0, 2], [3, 2, 0]])


def test_apsp_of_an_edge_list_reports_negative_cycles():
    with pytest.raises(cudist.NegativeCycleError) as raised:
        cudist.apsp(([0, 1, 2], [1, 2, 0], [1.0, 1.0, -3.0]), n=4)
    assert raised.value.vertex in (0, 1, 2)


@pytest.mark.parametrize("as_path", [str, pathlib.Path])
def test_apsp_of_a_matrix_market_file(as_path, tmp_path, rng):
    A = sp.random(60, 60, density=0.05, format="coo", random_state=rng)
    A = A + A.T  # symmetric: written as the lower triangle, mirrored on reading
    path = tmp_path / "graph.mtx"
    scipy.io.mmwrite(path, A, symmetry="symmetric")
    dist, next_hops = cudist.apsp(as_path(path), next_hops=True)
    assert dist.dtype == np.float64 and next_hops.shape == (60, 60)
    np.testing.assert_allclose(dist, shortest_path(A.tocsr()), rtol=1e-12)
    assert cudist.apsp(as_path(path), dtype="float32").dtype == np.float32


def test_apsp_of_a_pattern_file_counts_hops():
    path = MATRICES / "jgl009.mtx"  # pattern entries read as 1
    expected = shortest_path(sp.csr_array(scipy.io.mmread(path)), unweighted=True)
    assert_array_equal(cudist.apsp(path), expected)


@pytest.mark.parametrize("call, exception, message", [
    (lambda: cudist.apsp(MATRICES / "no_such_file.mtx"), OSError, "no_such_file.mtx"),
    (lambda: cudist.apsp(MATRICES / "wrong.mtx"), OSError, "wrong.mtx.*line 3"),
    (lambda: cudist.apsp(sp.random(3, 4, density=0.5, format="csr")), ValueError, "square"),
    (lambda: cudist.apsp(sp.eye(3, format="csr"), n=3), ValueError, "n is for edge lists"),
    (lambda: cudist.apsp(MATRICES / "jgl009.mtx", n=9), ValueError, "n is for edge lists"),
    (lambda: cudist.apsp(sp.eye(3, format="csr"), out=np.empty((3, 3))), ValueError, "out is"),
    (lambda: cudist.apsp(np.zeros((3, 3)), dtype=np.float32), TypeError, "dtype is for graphs"),
    (lambda: cudist.apsp(([0], [1], [1.0]), n=-1), ValueError, "n = -1"),
    (lambda: cudist.apsp(([0], [1]), n=2), TypeError, "edge list"),
    (lambda: cudist.apsp(np.zeros((3, 3)), n=3), TypeError, "edge list"),
    (lambda: cudist.apsp(([0, 1], [1], [1.0, 2.0]), n=2), ValueError, "2, 1 and 2 entries"),
    (lambda: cudist.apsp(([0.0], [1], [1.0]), n=2), TypeError, "u must be a 1-dimensional"),
    (lambda: cudist.apsp(([0], [1], ["a"]), n=2), TypeError, "w must be a 1-dimensional"),
    (lambda: cudist.apsp(([0], [5], [1.0]), n=2), ValueError, "outside"),
    (lambda: cudist.apsp(([0], [1], [1.0]), n=2, dtype=np.int32), ValueError, "int32"),
])
def test_apsp_edge_errors(call, exception, message):
    with pytest.raises(exception, match=message):
        call()


@pytest.mark.gpu
def test_graphs_given_by_their_edges_on_the_gpu(rng, tmp_path):
    A = sp.random(150, 150, density=0.03, format="csr", random_state=rng)
    dist, next_hops = cudist.apsp(A, next_hops=True, device="cuda")
    assert isinstance(dist, np.ndarray) and isinstance(next_hops, np.ndarray)
    np.testing.assert_allclose(dist, shortest_path(A), rtol=1e-12)
    path = tmp_path / "graph.mtx"
    scipy.io.mmwrite(path, A)
    np.testing.assert_allclose(cudist.apsp(path, device="cuda"), dist, rtol=1e-12)
