"""semiring_product / minplus against NumPy broadcasting, apsp against
scipy.sparse.csgraph.floyd_warshall."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from scipy.sparse.csgraph import floyd_warshall

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
