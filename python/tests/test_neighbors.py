"""knn, match and radius against sorting / thresholding scipy's full distance matrix, and match
against the matches OpenCV keeps on the box descriptors of data/descriptors."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial import distance

import cudist
from distance_cases import box_descriptors, tolerance


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean", "cityblock", "cosine", "canberra"])
@pytest.mark.parametrize("shape, k", [((1, 1, 3), 1), ((33, 129, 17), 5), ((70, 203, 40), 32)])
def test_knn_is_the_sorted_distance_matrix(metric, dtype, shape, k, rng):
    mA, mB, n = shape
    XA = rng.standard_normal((mA, n)).astype(dtype)
    XB = rng.standard_normal((mB, n)).astype(dtype)
    full = distance.cdist(XA, XB, metric)  # random reals: no ties
    distances, indices = cudist.knn(XA, XB, k, metric)
    assert distances.shape == indices.shape == (mA, k) and indices.dtype == np.int64
    assert distances.dtype == (np.float64 if dtype == np.float64 else np.float32)
    assert_same_neighbours(distances, indices, full, dtype)


def assert_same_neighbours(distances, indices, full, dtype):
    """Tie-aware: the k smallest distances of each row of `full`, and indices that are distinct
    and point at entries of those distances (near-equal ones may swap in float32)."""
    k = indices.shape[1]
    assert_allclose(distances, np.sort(full, axis=1)[:, :k], **tolerance(dtype))
    assert_allclose(np.take_along_axis(full, indices, axis=1), distances, **tolerance(dtype))
    assert all(len(set(row)) == k for row in indices)
    if dtype == np.float64:  # no near-ties at float64 resolution on random reals
        assert_array_equal(indices, np.argsort(full, axis=1, kind="stable")[:, :k])


def test_knn_inner_product_ranks_largest_first(rng):
    XA, XB = rng.standard_normal((20, 6)), rng.standard_normal((30, 6))
    distances, indices = cudist.knn(XA, XB, 4, "inner_product")
    assert_array_equal(indices, np.argsort(-(XA @ XB.T), axis=1)[:, :4])
    assert_allclose(distances, np.take_along_axis(XA @ XB.T, indices, axis=1), rtol=1e-12)


def test_knn_ties_keep_the_smaller_index():
    XA, XB = np.zeros((2, 3)), np.ones((5, 3))  # every candidate at the same distance
    _, indices = cudist.knn(XA, XB, 3)
    assert_array_equal(indices, [[0, 1, 2], [0, 1, 2]])


def test_knn_padding(rng):
    XA, XB = rng.standard_normal((4, 3)), rng.standard_normal((2, 3))
    distances, indices = cudist.knn(XA, XB, 3, pad=True)
    assert np.all(indices[:, 2] == -1) and np.all(np.isnan(distances[:, 2]))
    with pytest.raises(ValueError):
        cudist.knn(XA, XB, 3)


@pytest.mark.parametrize("k, exception", [(0, ValueError), (-2, ValueError), (1.5, TypeError)])
def test_knn_bad_k(k, exception):
    with pytest.raises(exception):
        cudist.knn(np.ones((2, 2)), np.ones((3, 2)), k)


@pytest.mark.parametrize("kind, metric", [("sift_u8", "euclidean"), ("orb", "hamming_bits")])
def test_match_keeps_what_opencv_keeps(kind, metric):
    query, train, opencv = box_descriptors(kind)
    pairs, distances = cudist.match(query, train, metric, ratio=0.75)
    # OpenCV breaks distance ties its own way; none of its kept matches is a tie.
    assert set(map(tuple, pairs)) == set(map(tuple, opencv))
    full = cudist.cdist(query, train, metric)
    assert_array_equal(distances, full[pairs[:, 0], pairs[:, 1]])


def test_match_mutual_and_max_distance(rng):
    XA, XB = rng.standard_normal((60, 5)), rng.standard_normal((80, 5))
    full = distance.cdist(XA, XB)
    two = np.sort(full, axis=1)[:, :2]
    best = full.argmin(axis=1)
    passes = two[:, 0] < 0.9 * two[:, 1]
    mutual = full.argmin(axis=0)[best] == np.arange(60)
    pairs, distances = cudist.match(XA, XB, ratio=0.9, mutual=True, max_distance=1.5)
    keep = passes & mutual & (two[:, 0] <= 1.5)
    assert_array_equal(pairs, np.stack([np.flatnonzero(keep), best[keep]], axis=1))
    assert_allclose(distances, two[keep, 0], rtol=1e-12)


@pytest.mark.parametrize("kwargs", [{"ratio": 0.0}, {"ratio": 1.5}, {"max_distance": -1.0}])
def test_match_bad_options(kwargs):
    with pytest.raises(ValueError):
        cudist.match(np.ones((2, 2)), np.ones((3, 2)), **kwargs)


def test_match_rejects_similarities():
    with pytest.raises(ValueError, match="inner_product"):
        cudist.match(np.ones((2, 2)), np.ones((3, 2)), "inner_product")


@pytest.mark.parametrize("metric, r", [("euclidean", 1.8), ("cityblock", 3.0), ("chebyshev", 0.9)])
def test_radius_is_the_thresholded_distance_matrix(metric, r, rng):
    XA, XB = rng.standard_normal((45, 4)), rng.standard_normal((61, 4))
    full = distance.cdist(XA, XB, metric)
    offsets, indices, distances = cudist.radius(XA, XB, r, metric)
    assert offsets.shape == (46,) and offsets[0] == 0 and offsets[-1] == len(indices)
    rows = np.repeat(np.arange(45), np.diff(offsets))
    assert_array_equal(np.stack([rows, indices]), np.nonzero(full <= r))
    assert_allclose(distances, full[rows, indices], rtol=1e-12)


def test_radius_inner_product_keeps_large_similarities(rng):
    XA, XB = rng.standard_normal((10, 3)), rng.standard_normal((12, 3))
    offsets, indices, _ = cudist.radius(XA, XB, 0.5, "inner_product")
    rows = np.repeat(np.arange(10), np.diff(offsets))
    assert_array_equal(np.stack([rows, indices]), np.nonzero(XA @ XB.T >= 0.5))


def test_radius_rejects_a_negative_radius():
    with pytest.raises(ValueError):
        cudist.radius(np.ones((2, 2)), np.ones((3, 2)), -1.0)


def test_empty_results_are_empty_arrays(rng):
    XA, XB = rng.standard_normal((5, 3)), rng.standard_normal((6, 3))
    pairs, distances = cudist.match(XA, XB, ratio=1e-9)
    assert pairs.shape == (0, 2) and distances.shape == (0,)
    offsets, indices, distances = cudist.radius(XA, XB, 0.0)
    assert_array_equal(offsets, np.zeros(6))
    assert indices.shape == distances.shape == (0,)
    assert cudist.knn(XA[:0], XB, 2)[0].shape == (0, 2)
