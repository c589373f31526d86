"""squareform and the other helpers of scipy.spatial.distance, and directed_hausdorff, against
scipy's (scipy's own tests of them run in test_scipy_suite.py)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial import distance

import cudist


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, bool])
@pytest.mark.parametrize("m", [0, 1, 2, 7])
def test_squareform_round_trip_keeps_the_dtype(m, dtype, rng):
    condensed = rng.integers(1, 5, m * (m - 1) // 2).astype(dtype)
    square = cudist.squareform(condensed)
    assert square.dtype == np.dtype(dtype)
    assert_array_equal(square, distance.squareform(condensed))
    assert_array_equal(cudist.squareform(square), distance.squareform(square))
    assert cudist.num_obs_dm(square.astype(float)) == max(m, 1) and cudist.is_valid_dm(square)
    if m > 1:
        assert cudist.num_obs_y(condensed) == m and cudist.is_valid_y(condensed)


def test_squareform_of_pdist_is_cdist(rng):
    X = rng.standard_normal((40, 6))
    assert_allclose(cudist.squareform(cudist.pdist(X, "canberra")),
                    cudist.cdist(X, X, "canberra"), rtol=1e-13)


@pytest.mark.parametrize("bad, message", [
    (np.ones(4), "binomial coefficient"),
    (np.ones((3, 4)), "must be square"),
    (np.ones((2, 2, 2)), "one or two dimensional"),
    (np.array([[0.0, 1.0], [2.0, 0.0]]), "must be symmetric"),
    (np.eye(3), "diagonal must be zero"),
])
def test_squareform_rejects_what_scipy_rejects(bad, message):
    with pytest.raises(ValueError, match=message):
        cudist.squareform(bad)
    with pytest.raises(ValueError):
        distance.squareform(bad)


def test_validity_checks_warn_or_return_false():
    assert not cudist.is_valid_y(np.ones(4)) and not cudist.is_valid_dm(np.eye(2))
    with pytest.warns(UserWarning, match="'D' diagonal must be zero"):
        assert not cudist.is_valid_dm(np.eye(2), warning=True)
    assert cudist.is_valid_dm(np.eye(2) * 1e-3, tol=1e-2)
    with pytest.raises(ValueError, match="empty distance matrix"):
        cudist.num_obs_y(np.ones(0))


@pytest.mark.parametrize("shape_u, shape_v", [((50, 3), (70, 3)), ((1, 2), (9, 2)),
                                              ((120, 5), (1, 5))])
def test_directed_hausdorff_is_scipys(shape_u, shape_v, rng):
    u, v = rng.standard_normal(shape_u), rng.standard_normal(shape_v)
    got, expected = cudist.directed_hausdorff(u, v), distance.directed_hausdorff(u, v)
    assert got[0] == pytest.approx(expected[0], rel=1e-12)
    assert got[1:] == expected[1:]  # random data: no equal distances
    nearest = distance.cdist(u, v).min(axis=1)
    assert got[0] == pytest.approx(nearest.max(), rel=1e-12)


def test_directed_hausdorff_takes_integers_and_lists():
    u, v = [[1, 0], [0, 1], [-1, 0], [0, -1]], [[2, 0], [0, 2], [-2, 0], [0, -4]]
    assert cudist.directed_hausdorff(u, v)[0] == pytest.approx(np.sqrt(5))
    assert cudist.directed_hausdorff(np.array(v), np.array(u)) == (3.0, 3, 3)
    with pytest.raises(ValueError, match="same number of columns"):
        cudist.directed_hausdorff(np.ones((2, 3)), np.ones((2, 2)))
