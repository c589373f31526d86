"""cudist.cdist against scipy.spatial.distance.cdist: every metric, dtype and keyword argument."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial import distance

import cudist
from distance_cases import (BOOLEAN_METRICS, REAL_METRICS, SHAPES, WEIGHTED_METRICS,
                            assert_matches_scipy, boolean_rows, real_rows, spd_matrix, tolerance)


def defaults_exist(metric, rows, cols):
    """Whether scipy can estimate V / VI from rows x cols data (else the test passes them)."""
    return metric != "mahalanobis" or rows > cols


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("metric", REAL_METRICS)
def test_real_metric(metric, dtype, shape, rng):
    mA, mB, n = shape
    XA = real_rows(rng, mA, n, metric).astype(dtype)
    XB = real_rows(rng, mB, n, metric).astype(dtype)
    kwargs = {} if defaults_exist(metric, mA + mB, n) else {"VI": spd_matrix(rng, n)}
    got = cudist.cdist(XA, XB, metric, dtype=dtype, **kwargs)  # float32: the float32 kernels
    assert got.shape == (mA, mB) and got.dtype == dtype
    assert_matches_scipy(got, distance.cdist(XA, XB, metric, **kwargs), dtype, metric)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", [bool, np.uint8, np.float64, np.float32])
@pytest.mark.parametrize("metric", BOOLEAN_METRICS)
def test_boolean_metric(metric, kind, shape, rng):
    mA, mB, n = shape
    XA = boolean_rows(rng, mA, n).astype(kind)
    XB = boolean_rows(rng, mB, n).astype(kind)
    precision = np.float64 if kind == np.float64 else np.float32  # the kernels' own for `kind`
    got = cudist.cdist(XA, XB, metric, dtype=precision)
    assert got.dtype == precision
    assert_allclose(got, distance.cdist(XA, XB, metric), **tolerance(got.dtype))


@pytest.mark.parametrize("metric", BOOLEAN_METRICS)
def test_boolean_metric_on_real_values(metric, rng):
    # scipy reads nonzero as True for the boolean metrics; hamming compares the values.
    XA = rng.integers(0, 3, (23, 11)).astype(np.float64) * 0.5
    XB = rng.integers(0, 3, (17, 11)).astype(np.float64) * 0.5
    assert_allclose(cudist.cdist(XA, XB, metric), distance.cdist(XA, XB, metric),
                    **tolerance(np.float64))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("metric", WEIGHTED_METRICS)
def test_weights(metric, dtype, rng):
    n = 19
    make = (lambda m: boolean_rows(rng, m, n)) if metric in BOOLEAN_METRICS else (
        lambda m: real_rows(rng, m, n, metric))
    XA, XB = make(29).astype(dtype), make(37).astype(dtype)
    w = rng.random(n) + 0.1
    w[3] = 0.0  # a zero weight drops the column
    assert_allclose(cudist.cdist(XA, XB, metric, w=w, dtype=dtype),
                    distance.cdist(XA, XB, metric, w=w), **tolerance(dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("p", [0.5, 1, 1.5, 2, 3.5, np.inf])
def test_minkowski_p(p, dtype, rng):
    XA = rng.standard_normal((41, 13)).astype(dtype)
    XB = rng.standard_normal((27, 13)).astype(dtype)
    assert_allclose(cudist.cdist(XA, XB, "minkowski", p=p, dtype=dtype),
                    distance.cdist(XA, XB, "minkowski", p=p), **tolerance(dtype))
    w = rng.random(13)
    assert_allclose(cudist.cdist(XA, XB, "minkowski", p=p, w=w, dtype=dtype),
                    distance.cdist(XA, XB, "minkowski", p=p, w=w), **tolerance(dtype))


def test_minkowski_defaults_to_p2(rng):
    XA, XB = rng.standard_normal((5, 4)), rng.standard_normal((6, 4))
    assert_allclose(cudist.cdist(XA, XB, "minkowski"), distance.cdist(XA, XB, "euclidean"),
                    **tolerance(np.float64))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_seuclidean_variances(dtype, rng):
    XA, XB = rng.standard_normal((12, 7)).astype(dtype), rng.standard_normal((9, 7)).astype(dtype)
    V = rng.random(7) + 0.5
    assert_allclose(cudist.cdist(XA, XB, "seuclidean", V=V, dtype=dtype),
                    distance.cdist(XA, XB, "seuclidean", V=V), **tolerance(dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_mahalanobis_inverse_covariance(dtype, rng):
    XA, XB = rng.standard_normal((12, 7)).astype(dtype), rng.standard_normal((9, 7)).astype(dtype)
    VI = spd_matrix(rng, 7)
    assert_allclose(cudist.cdist(XA, XB, "mahalanobis", VI=VI, dtype=dtype),
                    distance.cdist(XA, XB, "mahalanobis", VI=VI), **tolerance(dtype))


def test_chebyshev_ignores_nan_like_scipy(rng):
    XA, XB = rng.standard_normal((6, 5)), rng.standard_normal((4, 5))
    XA[1, 2] = np.nan
    assert_allclose(cudist.cdist(XA, XB, "chebyshev"), distance.cdist(XA, XB, "chebyshev"))


def test_identical_rows_give_exact_zeros(rng):
    X = rng.standard_normal((50, 32)) + 100.0  # offset: no cancellation allowed
    for metric in ("euclidean", "sqeuclidean", "cityblock", "cosine", "correlation"):
        assert np.all(np.diag(cudist.cdist(X, X, metric)) == 0), metric
