"""cudist.sklearn against scikit-learn's brute-force NearestNeighbors and pairwise_distances, and
scikit-learn's own estimator checks."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

sklearn_neighbors = pytest.importorskip("sklearn.neighbors")
from sklearn.metrics import pairwise_distances as sklearn_pairwise  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

from cudist.sklearn import NearestNeighbors, pairwise_distances  # noqa: E402

METRICS = [("minkowski", {}), ("minkowski", {"p": 3}), ("manhattan", {}), ("chebyshev", {}),
           ("cosine", {}), ("minkowski", {"w": np.arange(1.0, 6.0)})]


DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def both(metric, params, device=None, **kwargs):
    """(cudist's on `device`, sklearn's brute) NearestNeighbors with the same parameters."""
    settings = dict(metric=metric, metric_params=params or None, **kwargs)
    return (NearestNeighbors(device=device, **settings),
            sklearn_neighbors.NearestNeighbors(algorithm="brute", **settings))


def assert_same_neighbours(got, expected, rtol):
    """Equal sorted distances, and per row the same indices except among equal distances at the
    k-th place (where either search may keep either point)."""
    (d_got, i_got), (d_expected, i_expected) = got, expected
    assert_allclose(d_got, d_expected, rtol=rtol, atol=rtol)
    for row in range(len(i_got)):
        last = d_expected[row, -1]
        sure = d_expected[row] < last - rtol * max(1.0, abs(last))
        assert set(i_got[row][sure]) == set(i_expected[row][sure])


@pytest.mark.parametrize("device", DEVICES)
def test_sklearns_estimator_checks_pass(device):
    check_estimator(NearestNeighbors(device=device))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("metric, params", METRICS)
def test_kneighbors_equal_sklearn_brute_with_ties(metric, params, dtype, device, rng):
    fitted = rng.integers(0, 4, (90, 5)).astype(dtype)  # few values: many equal distances
    queries = rng.integers(0, 4, (30, 5)).astype(dtype)
    ours, theirs = both(metric, params, device, n_neighbors=7)
    ours.fit(fitted), theirs.fit(fitted)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    assert_same_neighbours(ours.kneighbors(queries), theirs.kneighbors(queries), rtol)
    assert_same_neighbours(ours.kneighbors(), theirs.kneighbors(), rtol)  # themselves excluded
    assert ours.kneighbors(queries)[0].dtype == np.float64


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("metric, params", METRICS)
def test_radius_neighbors_equal_sklearn_brute(metric, params, device, rng):
    fitted, queries = rng.standard_normal((120, 5)), rng.standard_normal((25, 5))
    ours, theirs = both(metric, params, device, radius=1.1 if metric != "cosine" else 0.4)
    ours.fit(fitted), theirs.fit(fitted)
    for X in (queries, None):
        got = ours.radius_neighbors(X, sort_results=True)
        expected = theirs.radius_neighbors(X, sort_results=True)
        assert len(got[1]) == len(expected[1])
        for d, i, d_ref, i_ref in zip(*got, *expected):
            assert_array_equal(i, i_ref)
            assert_allclose(d, d_ref, rtol=1e-12, atol=1e-12)
        unsorted = ours.radius_neighbors(X, return_distance=False)
        assert all(np.all(np.diff(row) > 0) for row in unsorted)  # increasing indices
        assert [set(row) for row in unsorted] == [set(row) for row in expected[1]]


@pytest.mark.parametrize("mode", ["connectivity", "distance"])
def test_graphs_equal_sklearns(mode, rng):
    fitted, queries = rng.standard_normal((80, 4)), rng.standard_normal((20, 4))
    ours, theirs = both("minkowski", {}, n_neighbors=4, radius=1.0)
    ours.fit(fitted), theirs.fit(fitted)
    for X in (queries, None):
        for name in ("kneighbors_graph", "radius_neighbors_graph"):
            got, expected = getattr(ours, name)(X, mode=mode), getattr(theirs, name)(X, mode=mode)
            assert got.shape == expected.shape
            assert_allclose(got.toarray(), expected.toarray(), rtol=1e-12)


def test_bad_arguments_raise_like_sklearn(rng):
    X = rng.standard_normal((6, 3))
    model = NearestNeighbors(n_neighbors=3).fit(X)
    with pytest.raises(ValueError, match="n_neighbors <= n_samples_fit"):
        model.kneighbors(n_neighbors=6)  # 5 others
    with pytest.raises(ValueError, match="n_neighbors > 0"):
        model.kneighbors(X, n_neighbors=0)
    with pytest.raises(ValueError, match="Unsupported mode"):
        model.kneighbors_graph(X, mode="weights")
    with pytest.raises(ValueError, match="3 features"):
        model.kneighbors(np.ones((2, 4)))
    with pytest.raises(ValueError, match="metric must be the name"):
        NearestNeighbors(metric=len).fit(X)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("metric, kwargs", [("euclidean", {}), ("manhattan", {}), ("cosine", {}),
                                            ("minkowski", {"p": 1.5}), ("canberra", {})])
def test_pairwise_distances_equal_sklearns(metric, kwargs, dtype, rng):
    X, Y = rng.standard_normal((31, 6)).astype(dtype), rng.standard_normal((17, 6)).astype(dtype)
    for other in (Y, None):
        got, expected = (pairwise_distances(X, other, metric, **kwargs),
                         sklearn_pairwise(X, other, metric, **kwargs))
        assert got.dtype == expected.dtype
        rtol = 1e-4 if dtype == np.float32 else 1e-10
        assert_allclose(got, expected, rtol=rtol, atol=rtol)
    assert pairwise_distances(X, X.astype(np.float64)).dtype == np.float64


def test_pairwise_distances_precomputed_and_callable(rng):
    D = np.abs(rng.standard_normal((5, 5)))
    assert_array_equal(pairwise_distances(D, metric="precomputed"), D)
    X = rng.standard_normal((5, 3))
    with pytest.warns(UserWarning, match="callable"):
        got = pairwise_distances(X, metric=lambda u, v: np.abs(u - v).max())
    assert_allclose(got, sklearn_pairwise(X, metric="chebyshev"), rtol=1e-12)
