"""cudist.pdist against scipy.spatial.distance.pdist: condensed layout and every metric."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial import distance

import cudist
from distance_cases import (BOOLEAN_METRICS, REAL_METRICS, assert_matches_scipy, boolean_rows,
                            real_rows, spd_matrix)


@pytest.mark.parametrize("m", [2, 3, 31, 130])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("metric", REAL_METRICS)
def test_real_metric(metric, dtype, m, rng):
    n = 9
    X = real_rows(rng, m, n, metric).astype(dtype)
    # V and VI given: their estimates from X are tested on their own below.
    kwargs = {"seuclidean": {"V": rng.random(n) + 0.5},
              "mahalanobis": {"VI": spd_matrix(rng, n)}}.get(metric, {})
    got = cudist.pdist(X, metric, dtype=dtype, **kwargs)  # float32: the float32 kernels
    assert got.shape == (m * (m - 1) // 2,) and got.dtype == dtype
    assert_matches_scipy(got, distance.pdist(X, metric, **kwargs), dtype, metric)


@pytest.mark.parametrize("metric", BOOLEAN_METRICS)
def test_boolean_metric(metric, rng):
    X = boolean_rows(rng, 57, 24)
    assert_matches_scipy(cudist.pdist(X, metric, dtype=np.float32), distance.pdist(X, metric),
                         np.float32, metric)


def test_condensed_order_is_scipys(rng):
    X = rng.standard_normal((37, 6))
    condensed = cudist.pdist(X, "cityblock")
    assert_allclose(distance.squareform(condensed), cudist.cdist(X, X, "cityblock"), rtol=1e-12)


@pytest.mark.parametrize("m", [0, 1])
def test_fewer_than_two_rows_give_no_pairs(m):
    got = cudist.pdist(np.ones((m, 4)))
    assert got.shape == (0,) and got.dtype == np.float64


def test_weights_and_parameters(rng):
    X = rng.standard_normal((40, 8))
    w, V, VI = rng.random(8), rng.random(8) + 0.5, spd_matrix(rng, 8)
    assert_allclose(cudist.pdist(X, "minkowski", p=3, w=w),
                    distance.pdist(X, "minkowski", p=3, w=w), rtol=1e-12)
    assert_allclose(cudist.pdist(X, "seuclidean", V=V), distance.pdist(X, "seuclidean", V=V),
                    rtol=1e-12)
    assert_allclose(cudist.pdist(X, "mahalanobis", VI=VI), distance.pdist(X, "mahalanobis", VI=VI),
                    rtol=1e-12)


@pytest.mark.parametrize("metric", ["seuclidean", "mahalanobis"])
def test_default_variances_come_from_x(metric, rng):
    X = rng.standard_normal((40, 8))
    assert_allclose(cudist.pdist(X, metric), distance.pdist(X, metric), rtol=1e-10)
