"""spmv / spmm / SpmvPlan against scipy.sparse's own products, on random matrices and on the Matrix
Market files of data/sparse (read with scipy.io.mmread); the min-plus spmv against NumPy and, as
Bellman-Ford, against scipy.sparse.csgraph.shortest_path."""

import gc
import pathlib
import weakref

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from scipy.sparse.csgraph import shortest_path

import cudist

MATRICES = pathlib.Path(__file__).resolve().parents[2] / "data" / "sparse"


def with_index_dtype(A, dtype):
    A = A.tocsr(copy=True)
    A.indptr, A.indices = A.indptr.astype(dtype), A.indices.astype(dtype)
    return A


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape, density", [((1, 1), 1.0), ((203, 129), 0.05), ((1000, 77), 0.3)])
def test_spmv_and_spmm_match_scipy(shape, density, dtype, index_dtype, rng):
    A = with_index_dtype(sp.random(*shape, density=density, format="csr", dtype=dtype,
                                   random_state=rng), index_dtype)
    x, xt = rng.random(shape[1]).astype(dtype), rng.random(shape[0]).astype(dtype)
    X = rng.random((shape[1], 5)).astype(dtype)
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    assert cudist.spmv(A, x).dtype == dtype
    assert_allclose(cudist.spmv(A, x), A @ x, rtol=rtol, atol=rtol)
    assert_allclose(cudist.spmv(A, xt, transpose=True), A.T @ xt, rtol=rtol, atol=rtol)
    assert_allclose(cudist.spmm(A, X), A @ X, rtol=rtol, atol=rtol)


def test_alpha_beta_and_y(rng):
    A = sp.random(30, 20, density=0.2, format="csr", random_state=rng)
    x, y = rng.random(20), rng.random(30)
    expected = 2.0 * (A @ x) - 0.5 * y
    assert cudist.spmv(A, x, y=y, alpha=2.0, beta=-0.5) is y
    assert_allclose(y, expected, rtol=1e-12)


def test_other_scipy_formats_are_converted(rng):
    A = sp.random(25, 25, density=0.2, format="coo", random_state=rng)
    x = rng.random(25)
    assert_allclose(cudist.spmv(A, x), A @ x, rtol=1e-12)
    assert_allclose(cudist.spmv(A.tocsc(), x), A @ x, rtol=1e-12)


@pytest.mark.parametrize("name", ["uscounties.mtx", "pores_1.mtx", "lund_a.mtx", "jgl009.mtx"])
def test_matrix_market_files(name, rng):
    A = sp.csr_matrix(scipy.io.mmread(MATRICES / name), dtype=np.float64)
    x = rng.standard_normal(A.shape[1])
    assert_allclose(cudist.spmv(A, x), A @ x, rtol=1e-12, atol=1e-12 * np.abs(A).sum())


def test_sparse_errors(rng):
    A = sp.random(10, 8, density=0.3, format="csr", random_state=rng)
    with pytest.raises(ValueError):
        cudist.spmv(A, np.ones(9))  # wrong length
    with pytest.raises(ValueError, match="pass y"):
        cudist.spmv(A, np.ones(8), beta=1.0)
    with pytest.raises(TypeError, match="sparse"):
        cudist.spmv(np.ones((10, 8)), np.ones(8))
    with pytest.raises(TypeError):
        cudist.spmv(A.astype(np.int64), np.ones(8, np.int64))
    mixed = A.copy()
    mixed.indices = mixed.indices.astype(np.int64)
    with pytest.raises(TypeError, match="int32 or both int64"):
        cudist.spmv(mixed, np.ones(8))
    with pytest.raises(ValueError):
        cudist.spmv(A, np.ones((8, 2)))  # spmv takes a vector; spmm a matrix


# --- min-plus --------------------------------------------------------------------------------

def min_plus_reference(A, x, y):
    """y_i = min(y_i, min over stored (i, j) of A_ij + x_j), from A's stored entries."""
    coo = A.tocoo()
    y = y.copy()
    np.minimum.at(y, coo.row, coo.data + x[coo.col])
    return y


def graph_with_explicit_zeros(rng, n, density, dtype=np.float64):
    A = sp.random(n, n, density=density, format="csr", dtype=dtype, random_state=rng)
    A.data[::7] = 0  # stored zeros: edges of weight 0
    return A


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [1, 9, 300])
def test_min_plus_spmv_is_one_relaxation(n, dtype, rng):
    A = graph_with_explicit_zeros(rng, n, 0.05, dtype)
    x = rng.random(n).astype(dtype)
    x[::3] = np.inf  # unreached vertices
    y = rng.random(n).astype(dtype)
    expected = min_plus_reference(A, x, np.full(n, np.inf, dtype))
    got = cudist.spmv(A, x, semiring="min-plus")
    assert got.dtype == dtype
    assert_array_equal(got, expected)
    given = y.copy()
    assert cudist.spmv(A, x, y=given, semiring="MIN-PLUS") is given
    assert_array_equal(given, min_plus_reference(A, x, y))
    assert_array_equal(cudist.spmv(A, x, transpose=True, semiring="min-plus"),
                       min_plus_reference(A.T, x, np.full(n, np.inf, dtype)))


def test_bellman_ford_with_a_plan_reaches_scipys_shortest_paths(rng):
    n = 120
    A = graph_with_explicit_zeros(rng, n, 0.03)  # A[i, j]: the edge i -> j, as in csgraph
    plan = cudist.SpmvPlan(A, transpose=True)  # relaxes along i -> j
    dist = np.full(n, np.inf)
    dist[0] = 0.0
    for _ in range(n - 1):
        dist = plan.spmv(dist, y=dist.copy(), semiring="min-plus")
    assert_allclose(dist, shortest_path(A, indices=0), rtol=1e-12)


def test_min_plus_refuses_alpha_beta_and_other_semirings(rng):
    A, x = graph_with_explicit_zeros(rng, 5, 0.5), np.zeros(5)
    with pytest.raises(ValueError, match="takes no alpha or beta"):
        cudist.spmv(A, x, alpha=2.0, semiring="min-plus")
    with pytest.raises(ValueError, match="takes no alpha or beta"):
        cudist.spmv(A, x, y=np.zeros(5), beta=1.0, semiring="min-plus")
    with pytest.raises(ValueError, match="semiring 'max-plus' is not supported"):
        cudist.spmv(A, x, semiring="max-plus")


# --- plans -----------------------------------------------------------------------------------

@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_plan_products_match_scipy(dtype, transpose, rng):
    A = sp.random(157, 83, density=0.1, format="csr", dtype=dtype, random_state=rng)
    op = A.T if transpose else A
    plan = cudist.SpmvPlan(A, transpose=transpose)
    assert plan.shape == op.shape and plan.nnz == A.nnz and plan.dtype == np.dtype(dtype).name
    assert plan.device == "cpu" and plan.algorithm in ("row_split", "merge_path", "thread_per_row")
    assert "SpmvPlan" in repr(plan)
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    for _ in range(3):  # one analysis, many products
        x = rng.random(op.shape[1]).astype(dtype)
        X = rng.random((op.shape[1], 6)).astype(dtype)
        assert_allclose(plan.spmv(x), op @ x, rtol=rtol, atol=rtol)
        assert_allclose(plan.spmm(X), op @ X, rtol=rtol, atol=rtol)
    y, Y = rng.random(op.shape[0]).astype(dtype), rng.random((op.shape[0], 6)).astype(dtype)
    expected_y, expected_Y = 3.0 * (op @ x) + 0.5 * y, -1.0 * (op @ X) + 2.0 * Y
    assert plan.spmv(x, y=y, alpha=3.0, beta=0.5) is y
    assert plan.spmm(X, Y=Y, alpha=-1.0, beta=2.0) is Y
    assert_allclose(y, expected_y, rtol=rtol, atol=rtol)
    assert_allclose(Y, expected_Y, rtol=rtol, atol=rtol)


def test_plan_keeps_the_arrays_of_a_alive(rng):
    A = sp.random(60, 40, density=0.2, format="csr", random_state=rng)
    x = rng.random(40)
    expected = A @ x
    plan = cudist.SpmvPlan(A)
    data = weakref.ref(A.data)
    del A
    gc.collect()
    assert data() is not None
    assert_allclose(plan.spmv(x), expected, rtol=1e-12)
    del plan
    gc.collect()
    assert data() is None


def test_plan_from_a_converted_matrix_keeps_its_copy(rng):
    coo = sp.random(50, 50, density=0.1, format="coo", random_state=rng)
    x = rng.random(50)
    plan = cudist.SpmvPlan(coo)  # the CSR conversion lives only in the plan
    gc.collect()
    [np.full(10_000, np.nan) for _ in range(10)]  # reuse freed memory, if any was freed
    assert_allclose(plan.spmv(x), coo @ x, rtol=1e-12)


def test_plan_errors(rng):
    plan = cudist.SpmvPlan(sp.random(10, 8, density=0.3, format="csr", random_state=rng))
    with pytest.raises(ValueError, match="x must be a vector of 8 elements"):
        plan.spmv(np.ones(9))
    with pytest.raises(ValueError, match="X must be 2-dimensional"):
        plan.spmm(np.ones(8))
    with pytest.raises(ValueError, match="pass y"):
        plan.spmv(np.ones(8), beta=2.0)
    with pytest.raises(ValueError, match="float32 but A is float64"):
        plan.spmv(np.ones(8, np.float32))
    with pytest.raises(TypeError, match="sparse"):
        cudist.SpmvPlan(np.ones((3, 3)))


@pytest.mark.gpu
def test_gpu_plan_takes_numpy_operands_and_returns_numpy(rng):
    A = sp.random(500, 300, density=0.05, format="csr", random_state=rng)
    x, X = rng.random(300), rng.random((300, 4))
    plan = cudist.SpmvPlan(A, device="cuda")
    assert plan.device == "cuda:0"
    y = rng.random(500)
    expected = A @ x + 2.0 * y
    assert_allclose(plan.spmv(x), A @ x, rtol=1e-12)
    assert plan.spmv(x, y=y, beta=2.0) is y
    assert_allclose(y, expected, rtol=1e-12)
    assert_allclose(plan.spmm(X), A @ X, rtol=1e-12)
    assert_allclose(cudist.spmv(A, x, device="cuda"), A @ x, rtol=1e-12)
    assert_array_equal(cudist.spmv(A, x, semiring="min-plus", device="cuda"),
                       min_plus_reference(A, x, np.full(500, np.inf)))


@pytest.mark.skipif(cudist.cuda_available(), reason="a GPU is usable here")
def test_gpu_plan_without_a_gpu_says_why():
    with pytest.raises(cudist.DeviceUnavailableError, match="cuda:0"):
        cudist.SpmvPlan(sp.eye(3, format="csr"), device="cuda")
