"""NumPy arrays and array_likes: dtypes, strided views read in place, out=, shapes, devices."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial import distance

import cudist
from distance_cases import tolerance


def test_float16_is_computed_in_float32_when_asked(rng):
    XA, XB = rng.standard_normal((21, 10)).astype(np.float16), rng.standard_normal((9, 10)).astype(
        np.float16)
    got = cudist.cdist(XA, XB, "cosine", dtype=np.float32)
    assert got.dtype == np.float32
    assert_allclose(got, distance.cdist(XA, XB, "cosine"), **tolerance(np.float32))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8, np.int64, np.uint8, np.uint64,
                                   bool])
def test_every_numpy_dtype_gives_scipys_float64_result(dtype, rng):
    XA, XB = rng.integers(0, 9, (13, 6)).astype(dtype), rng.integers(0, 9, (8, 6)).astype(dtype)
    for metric in ("euclidean", "cityblock", "cosine", "hamming", "jaccard"):
        got, expected = cudist.cdist(XA, XB, metric), distance.cdist(XA, XB, metric)
        assert got.dtype == np.float64
        assert_allclose(got, expected, **tolerance(np.float64))
        assert_allclose(cudist.pdist(XA, metric), distance.pdist(XA, metric),
                        **tolerance(np.float64))


def test_out_or_dtype_choose_float32(rng):
    XA, XB = rng.standard_normal((9, 5)), rng.standard_normal((4, 5))
    out = np.empty((9, 4), np.float32)
    assert cudist.cdist(XA, XB, "canberra", out=out) is out
    assert_array_equal(out, cudist.cdist(XA.astype(np.float32), XB.astype(np.float32), "canberra",
                                         dtype="float32"))
    assert_allclose(out, distance.cdist(XA, XB, "canberra"), **tolerance(np.float32))


def test_bool_rows_are_read_as_uint8(rng):
    XA, XB = rng.random((12, 30)) < 0.5, rng.random((8, 30)) < 0.5
    for metric in ("hamming", "jaccard", "yule", "euclidean", "inner_product"):
        assert_array_equal(cudist.cdist(XA, XB, metric),
                           cudist.cdist(XA.view(np.uint8), XB.view(np.uint8), metric))


def test_uint8_descriptors_give_exact_squared_distances(rng):
    XA = rng.integers(0, 256, (40, 128), dtype=np.uint8)
    XB = rng.integers(0, 256, (35, 128), dtype=np.uint8)
    assert_array_equal(cudist.cdist(XA, XB, "sqeuclidean"),
                       distance.cdist(XA, XB, "sqeuclidean").astype(np.float32))


def test_int8_embeddings_give_exact_distances_and_neighbours(rng):
    # Quantised embeddings: int8 rows read in place, squared L2 and inner product in exact integer
    # arithmetic (float32 results), knn and match on them without a conversion.
    XA = rng.integers(-128, 128, (40, 96), dtype=np.int8)
    XB = rng.integers(-128, 128, (300, 96), dtype=np.int8)
    wide_a, wide_b = XA.astype(np.float64), XB.astype(np.float64)
    squares = cudist.cdist(XA, XB, "sqeuclidean", dtype=np.float32)
    assert_array_equal(squares, distance.cdist(wide_a, wide_b, "sqeuclidean").astype(np.float32))
    assert_array_equal(cudist.cdist(XA, XB, "inner_product", dtype=np.float32),
                       (wide_a @ wide_b.T).astype(np.float32))
    assert_allclose(cudist.cdist(XA, XB, "cosine"), distance.cdist(XA, XB, "cosine"),
                    **tolerance(np.float64))
    distances, indices = cudist.knn(XA, XB, 5, "sqeuclidean")
    assert distances.dtype == np.float32
    # Integer distances tie: the rule is the smaller index first, as a stable sort of the row.
    assert_array_equal(indices, np.argsort(squares, axis=1, kind="stable")[:, :5])
    assert_array_equal(distances, np.take_along_axis(squares, indices, axis=1))
    pairs, _ = cudist.match(XA, XB, "euclidean", ratio=0.999)
    assert all(indices[q, 0] == t for q, t in pairs)


@pytest.mark.parametrize("view", [
    lambda a: a[::3],              # every third row: row stride 3n
    lambda a: a[:, 2:9],           # a column window: row stride n, 7 columns
    lambda a: a[5:40:2, 1:],       # both
    lambda a: a[7:8, 2:5],         # one row: its row stride does not matter
])
def test_row_strided_views_are_read_in_place(view, rng):
    base = rng.standard_normal((60, 12))
    XA, XB = view(base), view(base[::-1].copy())
    expected = distance.cdist(np.ascontiguousarray(XA), np.ascontiguousarray(XB), "canberra")
    assert_allclose(cudist.cdist(XA, XB, "canberra"), expected, **tolerance(np.float64))


@pytest.mark.parametrize("layout", [
    lambda a: a.T,                        # transposed: column-major
    lambda a: np.asfortranarray(a),       # column-major copy
    lambda a: a[:, ::2],                  # a step along the columns
    lambda a: a[::-1],                    # rows in reverse order
    lambda a: a[::-2, ::-3],              # negative steps along both
])
def test_layouts_the_kernels_cannot_read_are_copied_once(layout, rng):
    square = rng.standard_normal((12, 12))
    XA, XB = layout(square), layout(square[::-1].copy())
    for dtype in (np.float64, np.float32):
        got = cudist.cdist(XA, XB, "cosine", dtype=dtype)
        assert_allclose(got, distance.cdist(XA, XB, "cosine"), **tolerance(dtype))
    assert_allclose(cudist.pdist(XA, "cityblock"), distance.pdist(XA, "cityblock"),
                    **tolerance(np.float64))


def test_out_is_written_and_returned(rng):
    XA, XB = rng.standard_normal((7, 4)), rng.standard_normal((5, 4))
    out = np.full((7, 5), np.nan)
    assert cudist.cdist(XA, XB, out=out) is out
    assert_allclose(out, distance.cdist(XA, XB), **tolerance(np.float64))
    padded = np.full((7, 8), -1.0)  # out may have any row stride
    cudist.cdist(XA, XB, out=padded[:, :5])
    assert_allclose(padded[:, :5], out, rtol=0)
    assert np.all(padded[:, 5:] == -1.0)
    condensed = np.empty(21, np.float32)
    assert cudist.pdist(XA.astype(np.float32), out=condensed) is condensed
    assert_allclose(condensed, distance.pdist(XA), **tolerance(np.float32))


def test_lists_are_converted_like_scipy():
    got = cudist.cdist([[0, 0], [3, 4]], [[0, 0]])
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    assert_array_equal(got, [[0.0], [5.0]])
    assert_array_equal(cudist.pdist([[True, False], [True, True]], "hamming"), [0.5])


@pytest.mark.parametrize("shape_a, shape_b", [((0, 3), (4, 3)), ((4, 3), (0, 3)), ((2, 0), (3, 0))])
def test_empty_inputs(shape_a, shape_b):
    got = cudist.cdist(np.ones(shape_a), np.ones(shape_b))
    expected = distance.cdist(np.ones(shape_a), np.ones(shape_b))
    assert got.shape == expected.shape
    assert_allclose(got, expected)


def test_metric_names_are_scipys_and_case_insensitive(rng):
    XA, XB = rng.random((4, 6)), rng.random((3, 6))
    # scipy's aliases 'c', 'cb' (cityblock), 's' (seuclidean) and 'matching' (hamming) are not in
    # the C++ library's alias table yet.
    missing = {"c", "cb", "s", "matching"}
    for alias, info in distance._METRIC_ALIAS.items():
        if alias not in missing:
            assert_array_equal(cudist.cdist(XA, XB, alias.upper()),
                               cudist.cdist(XA, XB, info.canonical_name))


def test_devices():
    names = cudist.devices()
    assert names[0] == "cpu"
    assert cudist.cuda_available() == (len(names) > 1)
    assert all(name == f"cuda:{i}" for i, name in enumerate(names[1:]))


def test_public_names():
    assert sorted(cudist.__all__) == sorted(
        ["CudaError", "DeviceUnavailableError", "NegativeCycleError", "OutOfMemoryError",
         "SpmvPlan", "apsp", "apsp_path", "cdist", "cuda_available", "devices",
         "directed_hausdorff", "is_valid_dm", "is_valid_y", "knn", "knn_batched", "match",
         "match_batched", "merge_knn", "minplus", "num_obs_dm", "num_obs_y", "pdist", "radius", "self_knn",
         "semiring_product", "spmm", "spmv", "squareform"])
    assert all(hasattr(cudist, name) for name in cudist.__all__)


class DLPackOnly:
    """An array of a framework cudist does not know, offering only DLPack (as JAX arrays do)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_any_dlpack_host_array_is_read_and_written_in_place(rng):
    XA, XB = rng.standard_normal((14, 6)), rng.standard_normal((9, 6))
    out = np.full((14, 9), np.nan)
    wrapped_out = DLPackOnly(out)
    assert cudist.cdist(DLPackOnly(XA), DLPackOnly(XB), "cityblock", out=wrapped_out) is wrapped_out
    assert_allclose(out, distance.cdist(XA, XB, "cityblock"), **tolerance(np.float64))
    got = cudist.knn(DLPackOnly(XA), DLPackOnly(XB), 2)  # results: NumPy arrays (the view's)
    assert_array_equal(got[1], cudist.knn(XA, XB, 2)[1])
