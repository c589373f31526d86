"""Host arrays at an address that is not a multiple of their element size, as dask.distributed
deserialises blocks into one buffer: a call on GPUs takes them as they are (their bytes are
copied to the device, as any host input's are; a large database streamed as it is searched)
and answers as for aligned copies; the CPU refuses them with an error that names the argument."""
import numpy as np
import pytest

import cudist


def misaligned(a):
    """A copy of `a` one byte past an aligned address."""
    buffer = np.empty(a.nbytes + 1, dtype=np.uint8)
    view = np.ndarray(a.shape, dtype=a.dtype, buffer=buffer, offset=1)
    view[...] = a
    assert not view.flags.aligned
    return view


def rows(m, d, seed):
    return np.random.default_rng(seed).random((m, d), dtype=np.float32)


def same(got, want):
    return all(np.array_equal(g, w) for g, w in zip(got, want))


@pytest.mark.gpu
def test_one_gpu_takes_misaligned_host_rows():
    XA, XB = rows(50, 16, 1), rows(300, 16, 2)
    for got, want in [
        (cudist.knn(misaligned(XA), misaligned(XB), 5, device="cuda"), cudist.knn(XA, XB, 5, device="cuda")),
        (cudist.knn(misaligned(XA), XB, 5, device="cuda"), cudist.knn(XA, XB, 5, device="cuda")),
    ]:
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert np.array_equal(cudist.cdist(misaligned(XA), misaligned(XB), device="cuda"),
                          cudist.cdist(XA, XB, device="cuda"))
    assert np.array_equal(cudist.pdist(misaligned(XB), device="cuda"), cudist.pdist(XB, device="cuda"))
    self_join = misaligned(XB)
    assert np.array_equal(cudist.cdist(self_join, self_join, device="cuda"),
                          cudist.cdist(XB, XB, device="cuda"))  # the exact zero diagonal kept
    assert same(cudist.match(misaligned(XA), misaligned(XB), device="cuda"),
                cudist.match(XA, XB, device="cuda"))
    assert same(cudist.radius(misaligned(XA), misaligned(XB), 1.0, device="cuda"),
                cudist.radius(XA, XB, 1.0, device="cuda"))


@pytest.mark.gpu
@pytest.mark.parametrize("device", ["cuda", "cuda:all"])
def test_a_misaligned_database_is_streamed_as_it_is(device):
    # 20 MB of float32 rows in host memory: the search copies them a part at a time while it
    # searches the parts before (on every GPU of cuda:all, each for its share of the queries),
    # as it does an aligned database, rather than a whole device copy first.
    XA, XB = rows(3000, 128, 5), rows(40000, 128, 6)
    assert same(cudist.knn(misaligned(XA), misaligned(XB), 10, device=device),
                cudist.knn(XA, XB, 10, device="cuda"))


def test_the_cpu_refuses_misaligned_rows_by_name():
    # knn hands float32 rows to the library as they are (cdist's float64 result converts them,
    # which makes aligned copies).
    XA, XB = rows(5, 4, 3), rows(7, 4, 4)
    with pytest.raises(ValueError, match="x pointer is not aligned"):
        cudist.knn(misaligned(XA), XB, 2, device="cpu")
    with pytest.raises(ValueError, match="y pointer is not aligned"):
        cudist.knn(XA, misaligned(XB), 2, device="cpu")
