"""Bad inputs raise the Python exception a scipy user expects, with the library's message."""

import numpy as np
import pytest

import cudist
from cudist import _cudist

X = np.arange(12.0).reshape(4, 3)


def _gpu_arrays(framework_name):
    """A function copying a NumPy array to a GPU array of the framework with the same layout (a
    strided view stays a view of a GPU copy of its base); skips where that framework is absent."""
    framework = pytest.importorskip(framework_name)
    if not cudist.cuda_available():
        pytest.skip("no CUDA GPU, or cudist built without CUDA")
    if framework_name == "torch":
        if not framework.cuda.is_available():
            pytest.skip("torch sees no GPU")
        dense = lambda a: framework.from_numpy(np.ascontiguousarray(a)).to("cuda")
        view = lambda flat, a, offset: framework.as_strided(
            flat, a.shape, [s // a.itemsize for s in a.strides], offset)
    else:
        dense = framework.asarray
        view = lambda flat, a, offset: framework.lib.stride_tricks.as_strided(
            flat[offset:], a.shape, a.strides)

    def to_gpu(a):
        root = a.base
        if a.flags.c_contiguous or not isinstance(root, np.ndarray) or min(a.strides) < 0:
            return dense(a)
        return view(dense(root.reshape(-1)), a, (a.ctypes.data - root.ctypes.data) // a.itemsize)

    return to_gpu


@pytest.fixture(params=["numpy", "torch", "cupy"])
def arrays_on(request, monkeypatch):
    """Runs a test with cudist.cdist / pdist receiving their data arrays (XA, XB, X, out) as NumPy
    arrays or as GPU arrays of torch / CuPy: every error must be raised the same way there."""
    if request.param == "numpy":
        return
    to_gpu = _gpu_arrays(request.param)
    for name, data_args in (("cdist", 2), ("pdist", 1)):
        call = getattr(cudist, name)

        def on_gpu(*args, call=call, data_args=data_args, **kwargs):
            args = [to_gpu(a) if i < data_args and isinstance(a, np.ndarray) else a
                    for i, a in enumerate(args)]
            if isinstance(kwargs.get("out"), np.ndarray):
                kwargs["out"] = to_gpu(kwargs["out"])
            return call(*args, **kwargs)

        monkeypatch.setattr(cudist, name, on_gpu)


@pytest.mark.parametrize("call, exception, message", [
    (lambda: cudist.cdist(X, np.ones((2, 4))), ValueError, "columns"),
    (lambda: cudist.cdist(X, X, "minkowski", p=0), ValueError, "p must be > 0"),
    (lambda: cudist.cdist(X, X, "minkowski", p=-1.5), ValueError, "p must be > 0"),
    (lambda: cudist.cdist(X, X, "no_such_metric"), ValueError, "unknown metric 'no_such_metric'"),
    (lambda: cudist.cdist(X, X, 12), TypeError, "metric must be a string naming a metric or a"),
    (lambda: cudist.cdist(np.ones((2, 3, 4)), X), ValueError, "XA must be a 2-dimensional"),
    (lambda: cudist.cdist(X, np.ones(3)), ValueError, "XB must be a 2-dimensional"),
    (lambda: cudist.pdist(np.ones(5)), ValueError, "X must be a 2-dimensional"),
    (lambda: cudist.cdist(X.astype(np.complex64), X), TypeError, "element type"),
    (lambda: cudist.cdist(X, X, dtype=np.float16), ValueError, "dtype is float16; distances are"),
    (lambda: cudist.cdist(X, X, dtype="float32", out=np.empty((4, 4))), ValueError,
     "dtype is float32 but out is float64"),
    (lambda: cudist.cdist(X, X, "euclidean", p=3), TypeError, "unexpected keyword argument 'p'"),
    (lambda: cudist.cdist(X, X, "cosine", V=np.ones(3)), TypeError, "keyword argument 'V'"),
    (lambda: cudist.pdist(X, "jensenshannon", w=np.ones(3)), TypeError, "keyword argument 'w'"),
    (lambda: cudist.cdist(X, X, bogus=1), TypeError, "keyword argument 'bogus'"),
    (lambda: cudist.cdist(X, X, w=np.ones(4)), ValueError, "w has 4 entries"),
    (lambda: cudist.cdist(X, X, w=-np.ones(3)), ValueError, "w[0] = -1"),
    (lambda: cudist.cdist(X, X, w=np.ones((3, 1))), ValueError, "w must be a 1-dimensional"),
    (lambda: cudist.cdist(X, X, "seuclidean", V=np.ones(2)), ValueError, "V has 2 entries"),
    (lambda: cudist.cdist(X, X, "seuclidean", V=np.zeros(3)), ValueError, "V[0] = 0"),
    (lambda: cudist.cdist(X, X, "mahalanobis", VI=np.ones((3, 2))), ValueError, "square"),
    (lambda: cudist.cdist(X, X, "mahalanobis", VI=-np.eye(3)), ValueError, "positive definite"),
    (lambda: cudist.cdist(X[:1], X[:1], "mahalanobis"), ValueError, "mahalanobis needs VI"),
    (lambda: cudist.cdist(X, X, "hamming_bits"), ValueError, "uint8"),
    (lambda: cudist.cdist(X, X, device="tpu"), ValueError, "'tpu' is not a device"),
    (lambda: cudist.cdist(X, X, out=np.empty((4, 5))), ValueError, "out is (4, 5)"),
    (lambda: cudist.cdist(X, X, out=np.empty((4, 4), np.int64)), ValueError, "out is int64"),
    (lambda: cudist.cdist(X, X, out=np.empty((8, 8))[::2, ::2]), ValueError, "element stride 2"),
    (lambda: cudist.pdist(X, out=np.empty(5)), ValueError, "out is (1, 5)"),
])
def test_bad_input(call, exception, message, arrays_on):
    with pytest.raises(exception) as raised:
        call()
    assert message in str(raised.value)


def test_read_only_output_is_rejected():
    out = np.empty((4, 4))
    out.flags.writeable = False
    with pytest.raises(TypeError):
        cudist.cdist(X, X, out=out)


@pytest.mark.skipif(cudist.cuda_available(), reason="a GPU is usable here")
def test_gpu_request_without_a_gpu_says_why():
    with pytest.raises(cudist.DeviceUnavailableError, match="cuda:0") as raised:
        cudist.cdist(X, X, device="cuda")
    assert isinstance(raised.value, RuntimeError)
    why = "no CUDA GPU is present" if _cudist.cuda_compiled() else "no CUDA backend"
    assert why in str(raised.value) and "use device cpu" in str(raised.value)


def test_exceptions_are_standard_python_ones():
    assert issubclass(cudist.DeviceUnavailableError, RuntimeError)
    assert issubclass(cudist.CudaError, RuntimeError)
    assert issubclass(cudist.OutOfMemoryError, MemoryError)
