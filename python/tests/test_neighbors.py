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


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("metric", ["inner_product", "cosine"])
@pytest.mark.parametrize("shape, k", [((40, 2000, 300), 10), ((25, 3000, 48), 100)])
def test_knn_of_embeddings_beyond_the_on_chip_limits(metric, shape, k, device, rng):
    """Rows deeper than 256 and k above 64 (on the GPU: the cuBLAS path with exact keys) give the
    float64 answer's neighbours."""
    mA, mB, n = shape
    XA = rng.standard_normal((mA, n)).astype(np.float32)
    XB = rng.standard_normal((mB, n)).astype(np.float32)
    distances, indices = cudist.knn(XA, XB, k, metric, device=device)
    if metric == "inner_product":  # a similarity, largest first: ranked as its negation
        full = -(XA.astype(np.float64) @ XB.astype(np.float64).T)
        distances = -distances
    else:
        full = distance.cdist(XA.astype(np.float64), XB.astype(np.float64), "cosine")
    assert_same_neighbours(distances, indices, full, np.float32)


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
    full = cudist.cdist(query, train, metric, dtype=np.float32)  # knn's precision for uint8
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


# --- self_knn ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("metric", ["euclidean", "cityblock", "cosine"])
@pytest.mark.parametrize("m, k", [(2, 1), (37, 5), (130, 33)])
def test_self_knn_is_the_sorted_distance_matrix_without_the_diagonal(metric, dtype, m, k, rng):
    X = rng.standard_normal((m, 6)).astype(dtype)
    full = distance.cdist(X, X, metric)
    np.fill_diagonal(full, np.inf)  # a row is not its own neighbour
    distances, indices = cudist.self_knn(X, k, metric)
    assert distances.shape == indices.shape == (m, k) and indices.dtype == np.int64
    assert distances.dtype == (np.float64 if dtype == np.float64 else np.float32)
    assert not np.any(indices == np.arange(m)[:, None])
    assert_same_neighbours(distances, indices, full, dtype)


def test_self_knn_including_self_is_knn_of_x_with_itself(rng):
    X = rng.standard_normal((50, 4))
    got = cudist.self_knn(X, 7, "sqeuclidean", exclude_self=False)
    expected = cudist.knn(X, X, 7, "sqeuclidean")
    assert_array_equal(got[1], expected[1])
    assert_array_equal(got[0], expected[0])
    assert_array_equal(got[1][:, 0], np.arange(50))  # each row first, at distance 0


def test_self_knn_keeps_duplicate_rows_at_distance_zero():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [5.0, 5.0]])
    distances, indices = cudist.self_knn(X, 1)
    assert_array_equal(indices[:, 0], [1, 0, 0])
    assert_array_equal(distances[:2, 0], [0.0, 0.0])


def test_self_knn_k_counts_the_other_rows(rng):
    X = rng.standard_normal((4, 3))
    with pytest.raises(ValueError, match="itself excluded"):
        cudist.self_knn(X, 4)
    distances, indices = cudist.self_knn(X, 4, pad=True)
    assert np.all(indices[:, 3] == -1) and np.all(np.isnan(distances[:, 3]))
    assert np.all(indices[:, :3] >= 0)
    assert cudist.self_knn(X, 4, exclude_self=False)[1].shape == (4, 4)


def test_self_knn_takes_metric_parameters(rng):
    X, w = rng.standard_normal((30, 5)), rng.random(5)
    full = distance.cdist(X, X, "minkowski", p=3, w=w)
    np.fill_diagonal(full, np.inf)
    distances, indices = cudist.self_knn(X, 3, "minkowski", p=3, w=w)
    assert_same_neighbours(distances, indices, full, np.float64)


@pytest.mark.parametrize("call, exception, message", [
    (lambda X: cudist.self_knn(X, 0), ValueError, "k = 0"),
    (lambda X: cudist.self_knn(X, 1.5), TypeError, "integer"),
    (lambda X: cudist.self_knn(X[0], 1), ValueError, "X must be a 2-dimensional"),
    (lambda X: cudist.self_knn(X.astype(np.int32), 1), TypeError, "dtype int32"),
    (lambda X: cudist.self_knn(X, 1, "euclidean", p=3), TypeError, "keyword argument 'p'"),
])
def test_self_knn_errors(call, exception, message):
    with pytest.raises(exception, match=message):
        call(np.ones((5, 2)))


# --- batches -------------------------------------------------------------------------------

def offsets_of(sizes):
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


# Rows of XA and XB per problem: ragged, with empty problems on either side.
BATCHES = [([3], [5]), ([4, 0, 7, 1], [6, 3, 9, 2]), ([5, 2, 6], [8, 0, 4]), ([0, 0], [1, 3])]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sizes_a, sizes_b", BATCHES)
def test_knn_batched_is_knn_per_problem(sizes_a, sizes_b, dtype, rng):
    oa, ob = offsets_of(sizes_a), offsets_of(sizes_b)
    XA = rng.standard_normal((oa[-1], 5)).astype(dtype)
    XB = rng.standard_normal((ob[-1], 5)).astype(dtype)
    k = 2
    distances, indices = cudist.knn_batched(XA, XB, oa, ob, k, "cityblock", pad=True)
    assert distances.shape == indices.shape == (oa[-1], k)
    for b in range(len(sizes_a)):
        rows = slice(oa[b], oa[b + 1])
        full = distance.cdist(XA[rows], XB[ob[b]:ob[b + 1]], "cityblock")
        present = min(k, full.shape[1])  # the rest is padding
        assert np.all(indices[rows, present:] == -1)
        assert np.all(np.isnan(distances[rows, present:]))
        if full.shape[0] and present:
            assert_same_neighbours(distances[rows, :present], indices[rows, :present],
                                   full, dtype)


def test_knn_batched_takes_any_integer_offsets_and_needs_k_to_fit_each_problem(rng):
    XA, XB = rng.standard_normal((6, 3)), rng.standard_normal((7, 3))
    distances, indices = cudist.knn_batched(XA, XB, [0, 2, 6], np.array([0, 5, 7], np.uint32), 2)
    assert_array_equal(indices[:2], cudist.knn(XA[:2], XB[:5], 2)[1])
    assert_array_equal(indices[2:], cudist.knn(XA[2:], XB[5:], 2)[1])
    with pytest.raises(ValueError, match="k = 3"):
        cudist.knn_batched(XA, XB, [0, 2, 6], [0, 5, 7], 3)


@pytest.mark.parametrize("sizes_a, sizes_b", BATCHES)
def test_match_batched_is_match_per_problem(sizes_a, sizes_b, rng):
    oa, ob = offsets_of(sizes_a), offsets_of(sizes_b)
    XA, XB = rng.standard_normal((oa[-1], 4)), rng.standard_normal((ob[-1], 4))
    pairs, distances, offsets = cudist.match_batched(XA, XB, oa, ob, ratio=0.9, mutual=True)
    assert offsets.shape == (len(sizes_a) + 1,) and offsets.dtype == np.int64
    assert offsets[0] == 0 and offsets[-1] == len(pairs) == len(distances)
    for b in range(len(sizes_a)):
        expected = cudist.match(XA[oa[b]:oa[b + 1]], XB[ob[b]:ob[b + 1]], ratio=0.9, mutual=True)
        mine = slice(offsets[b], offsets[b + 1])
        assert_array_equal(pairs[mine], expected[0].reshape(-1, 2))
        assert_array_equal(distances[mine], expected[1])


def test_match_batched_against_the_distance_matrix(rng):
    oa, ob = offsets_of([20, 30]), offsets_of([25, 15])
    XA, XB = rng.standard_normal((50, 3)), rng.standard_normal((40, 3))
    pairs, distances, offsets = cudist.match_batched(XA, XB, oa, ob, ratio=0.8)
    for b in range(2):
        full = distance.cdist(XA[oa[b]:oa[b + 1]], XB[ob[b]:ob[b + 1]])
        two = np.sort(full, axis=1)[:, :2]
        keep = two[:, 0] < 0.8 * two[:, 1]
        expected = np.stack([np.flatnonzero(keep), full.argmin(axis=1)[keep]], axis=1)
        assert_array_equal(pairs[offsets[b]:offsets[b + 1]], expected)
        assert_allclose(distances[offsets[b]:offsets[b + 1]], two[keep, 0], rtol=1e-12)


@pytest.mark.parametrize("offsets, exception, message", [
    (([0, 2], [0, 1, 3]), ValueError, "2 entries but batch.y_offsets has 3"),
    (([0, 3], [0, 3]), ValueError, "ends at 3 but x has 4 rows"),
    (([1, 4], [0, 3]), ValueError, r"x_offsets\[0\] is 1 but must be 0"),
    (([0, 3, 2, 4], [0, 1, 2, 3]), ValueError, "decreases at entry 2"),
    (([0], [0]), ValueError, "a batch of b problems"),
    (([0.0, 4.0], [0, 3]), TypeError, "XA_offsets must be a 1-dimensional integer array"),
    (([0, 4], [[0, 3]]), TypeError, "XB_offsets must be a 1-dimensional integer array"),
])
def test_batch_errors(offsets, exception, message):
    XA, XB = np.ones((4, 2)), np.ones((3, 2))
    for call in (lambda: cudist.knn_batched(XA, XB, *offsets, 1),
                 lambda: cudist.match_batched(XA, XB, *offsets)):
        with pytest.raises(exception, match=message):
            call()


@pytest.mark.gpu
def test_numpy_self_knn_and_batches_on_the_gpu(rng):
    X = rng.standard_normal((300, 9))
    got = cudist.self_knn(X, 6, device="cuda")
    assert isinstance(got[0], np.ndarray)
    expected = cudist.self_knn(X, 6)
    assert_array_equal(got[1], expected[1])
    assert_allclose(got[0], expected[0], rtol=1e-12)
    offsets = offsets_of([100, 0, 200])
    got = cudist.knn_batched(X, X, offsets, offsets, 4, pad=True, device="cuda")
    expected = cudist.knn_batched(X, X, offsets, offsets, 4, pad=True)
    assert_array_equal(got[1], expected[1])
    got = cudist.match_batched(X, X + 1e-3, offsets, offsets, device="cuda")
    expected = cudist.match_batched(X, X + 1e-3, offsets, offsets)
    assert_array_equal(got[0], expected[0])
    assert_array_equal(got[2], expected[2])


@pytest.mark.gpu
@pytest.mark.parametrize("metric", ["euclidean", "inner_product"])
def test_knn_streams_a_large_numpy_database_to_the_gpu(rng, metric):
    # float32 databases of 16 MiB and more are copied to the GPU a part at a time while the search
    # runs (docs/multi_gpu.md): contiguous rows, and rows 128 values apart of which 96 are read.
    # Integer values make every distance exact, so the GPU's answer is the CPU's entry for entry.
    n = 45000
    wide = rng.integers(-3, 4, (n, 128)).astype(np.float32)
    XA = rng.integers(-3, 4, (300, 96)).astype(np.float32)
    for XB in (np.ascontiguousarray(wide[:, :96]), wide[:, :96]):
        assert XB.nbytes >= 16 << 20
        got = cudist.knn(XA, XB, 10, metric, device="cuda")
        expected = cudist.knn(XA, XB, 10, metric)
        assert_array_equal(got[1], expected[1])
        assert_array_equal(got[0], expected[0])


@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean", "cityblock", "inner_product"])
def test_merge_knn_of_shards_is_one_knn(rng, metric):
    XA = rng.integers(-2, 3, (19, 4)).astype(np.float32)
    XB = rng.integers(-2, 3, (40, 4)).astype(np.float32)
    XB[36:] = XB[:4]  # equal keys in the first and the last shard
    expected = cudist.knn(XA, XB, 7, metric)
    parts = []
    for a, b in ((0, 5), (5, 22), (22, 40)):
        d, i = cudist.knn(XA, XB[a:b], 7, metric, pad=True, rank_values=True)
        parts.append((d, np.where(i >= 0, i + a, -1)))
    got = cudist.merge_knn([d for d, _ in parts], [i for _, i in parts], 7, metric,
                           parts_rank_values=True)
    for g, e in zip(got, expected):
        assert_array_equal(g, e)
    # A merge of merges: the first keeps the rank values.
    inner = cudist.merge_knn([d for d, _ in parts[1:]], [i for _, i in parts[1:]], 7, metric,
                             parts_rank_values=True, rank_values=True)
    got = cudist.merge_knn([parts[0][0], inner[0]], [parts[0][1], inner[1]], 7, metric,
                           parts_rank_values=True)
    for g, e in zip(got, expected):
        assert_array_equal(g, e)


def test_merge_knn_pads_and_names_bad_arguments():
    d = np.array([[1.0, 3.0]], np.float32)
    i = np.array([[4, 2]])
    unranked = np.array([[5.0, 0.5]], np.float32)[:, ::-1][:, ::-1]  # a view of negative strides' copy
    distances, indices = cudist.merge_knn([d, unranked], [i, np.array([[7, 9]])], 5, "cityblock",
                                          pad=True)
    assert_array_equal(indices, [[9, 4, 2, 7, -1]])  # the second part's row is not ranked: sorted
    assert_array_equal(distances[0, :4], [0.5, 1.0, 3.0, 5.0])
    assert np.isnan(distances[0, 4])
    with pytest.raises(ValueError, match="pad=True"):
        cudist.merge_knn([d], [i], 3)
    with pytest.raises(ValueError, match="parts hold distances"):
        cudist.merge_knn([d], [i], 1, rank_values=True)
    with pytest.raises(ValueError, match=r"part_distances\[0\] must be 2-dimensional"):
        cudist.merge_knn([d[0]], [i], 1)
    with pytest.raises(ValueError, match=r"part_indices\[1\]"):
        cudist.merge_knn([d, d], [i, d], 1)
