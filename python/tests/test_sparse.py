"""spmv / spmm against scipy.sparse's own products, on random matrices and on the Matrix Market
files of data/sparse (read with scipy.io.mmread)."""

import pathlib

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from numpy.testing import assert_allclose

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
