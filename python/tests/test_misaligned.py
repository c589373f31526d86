"""Host arrays at an address that is not a multiple of their element size, as dask.distributed
deserialises blocks into one buffer: a call on one GPU takes them as they are (their bytes are
copied to the device, as any host input's are) and answers as for aligned copies; the CPU
refuses them with an error that names the argument."""
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


def test_the_cpu_refuses_misaligned_rows_by_name():
    # knn hands float32 rows to the library as they are (cdist's float64 result converts them,
    # which makes aligned copies).
    XA, XB = rows(5, 4, 3), rows(7, 4, 4)
    with pytest.raises(ValueError, match="x pointer is not aligned"):
        cudist.knn(misaligned(XA), XB, 2, device="cpu")
    with pytest.raises(ValueError, match="y pointer is not aligned"):
        cudist.knn(XA, misaligned(XB), 2, device="cpu")
