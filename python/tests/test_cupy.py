"""CuPy arrays: used in place on their GPU, on CuPy's current stream, with the result a CuPy array
there. Skipped where CuPy, a GPU or a CUDA build of cudist is missing."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial import distance

import cudist
from distance_cases import tolerance

cupy = pytest.importorskip("cupy")
pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cupy_in_cupy_out(dtype, rng):
    XA = rng.standard_normal((129, 33)).astype(dtype)
    XB = rng.standard_normal((65, 33)).astype(dtype)
    got = cudist.cdist(cupy.asarray(XA), cupy.asarray(XB), "braycurtis")
    assert isinstance(got, cupy.ndarray)
    assert got.dtype == (np.float64 if dtype == np.float64 else np.float32)
    assert_allclose(cupy.asnumpy(got), distance.cdist(XA, XB, "braycurtis"), **tolerance(dtype))
    condensed = cudist.pdist(cupy.asarray(XA), "braycurtis")
    assert_allclose(cupy.asnumpy(condensed), distance.pdist(XA, "braycurtis"), **tolerance(dtype))


def test_cupy_arrays_are_not_copied(rng):
    XA = cupy.asarray(rng.standard_normal((200, 40)))
    XB = cupy.asarray(rng.standard_normal((300, 50)))[::3, 5:45]  # row-strided, read in place
    out = cupy.empty((200, 100))
    pool = cupy.get_default_memory_pool()
    cupy.cuda.Device().synchronize()
    used = pool.used_bytes()
    assert cudist.cdist(XA, XB, "euclidean", out=out) is out
    assert pool.used_bytes() == used  # nothing allocated through CuPy: no copy of XA or XB
    assert_allclose(cupy.asnumpy(out), distance.cdist(cupy.asnumpy(XA), cupy.asnumpy(XB)),
                    **tolerance(np.float64))


def test_cupy_work_runs_on_the_current_stream(streams_seen, rng):
    seen = streams_seen("cdist", 5)  # the stream argument
    XA, XB = cupy.asarray(rng.random((80, 16))), cupy.asarray(rng.random((60, 16)))
    cupy.cuda.Device().synchronize()
    with cupy.cuda.Stream(non_blocking=True) as side:
        got = cudist.cdist(XA, XB, "jensenshannon")
    side.synchronize()
    assert seen == [side.ptr]
    assert_allclose(cupy.asnumpy(got), distance.cdist(cupy.asnumpy(XA), cupy.asnumpy(XB),
                                                      "jensenshannon"), **tolerance(np.float64))


def test_cupy_self_knn_and_batches(rng):
    X = rng.standard_normal((150, 12))
    distances, indices = cudist.self_knn(cupy.asarray(X), 4)
    assert isinstance(distances, cupy.ndarray) and indices.dtype == np.int64
    expected = cudist.self_knn(X, 4)
    assert_allclose(cupy.asnumpy(distances), expected[0], rtol=1e-12)
    offsets = cupy.asarray([0, 60, 150])
    distances, indices = cudist.knn_batched(cupy.asarray(X), cupy.asarray(X), offsets, offsets, 3)
    assert isinstance(indices, cupy.ndarray)
    expected = cudist.knn_batched(X, X, [0, 60, 150], [0, 60, 150], 3)
    assert_allclose(cupy.asnumpy(distances), expected[0], rtol=1e-12)
    pairs, _, match_offsets = cudist.match_batched(cupy.asarray(X), cupy.asarray(X + 1e-3),
                                                   offsets, offsets)
    assert isinstance(pairs, cupy.ndarray) and int(match_offsets[-1]) == pairs.shape[0]


def test_cupy_spmv_plan_and_min_plus(rng):
    import cupyx.scipy.sparse as cusparse
    import scipy.sparse as sp

    A = sp.random(300, 200, density=0.05, format="csr", random_state=rng)
    x = rng.random(200)
    plan = cudist.SpmvPlan(cusparse.csr_matrix(A))
    got = plan.spmv(cupy.asarray(x))
    assert isinstance(got, cupy.ndarray) and plan.device.startswith("cuda")
    assert_allclose(cupy.asnumpy(got), A @ x, rtol=1e-12)
    coo = A.tocoo()
    expected = np.full(300, np.inf)
    np.minimum.at(expected, coo.row, coo.data + x[coo.col])
    got = cudist.spmv(cusparse.csr_matrix(A), cupy.asarray(x), semiring="min-plus")
    assert_allclose(cupy.asnumpy(got), expected, rtol=0)


def test_cupy_edge_lists_give_cupy_results():
    u, v = cupy.asarray([0, 1]), cupy.asarray([1, 2])
    dist = cudist.apsp((u, v, cupy.asarray([2.0, 3.0])), n=3)
    assert isinstance(dist, cupy.ndarray)
    assert cupy.asnumpy(dist)[0, 2] == 5.0


class CudaArrayInterfaceOnly:
    """A GPU array of a framework cudist does not know (Numba, cuDF), offering only
    __cuda_array_interface__."""

    def __init__(self, array):
        self.__cuda_array_interface__ = array.__cuda_array_interface__


def test_any_cuda_array_interface_array_is_read_in_place_through_cupy(rng):
    XA, XB = cupy.asarray(rng.standard_normal((40, 7))), cupy.asarray(rng.standard_normal((30, 7)))
    got = cudist.cdist(CudaArrayInterfaceOnly(XA), CudaArrayInterfaceOnly(XB), "cosine")
    assert isinstance(got, cupy.ndarray)
    assert_allclose(cupy.asnumpy(got), cupy.asnumpy(cudist.cdist(XA, XB, "cosine")), rtol=0)


def test_transposed_and_integer_cupy_arrays_are_converted_on_the_gpu(rng):
    X = rng.integers(0, 50, (30, 20))
    got = cudist.cdist(cupy.asarray(X).T, cupy.asarray(X).T[::-1], "euclidean")
    assert isinstance(got, cupy.ndarray) and got.dtype == np.float64
    assert_allclose(cupy.asnumpy(got), distance.cdist(X.T, X.T[::-1]), **tolerance(np.float64))
    half = cudist.pdist(cupy.asarray(X, dtype=np.float32)[:, ::2], "cityblock")
    assert half.dtype == np.float32
    assert_allclose(cupy.asnumpy(half), distance.pdist(X[:, ::2], "cityblock"),
                    **tolerance(np.float32))
