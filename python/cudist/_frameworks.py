"""The array frameworks whose arrays cudist uses in place: NumPy, PyTorch and CuPy, and through
them any array with __dlpack__ or __cuda_array_interface__ (JAX, Numba, cuDF, ...).

For each framework this module knows where an array lives, the framework's current CUDA stream
there, how to allocate an output next to an input, and how to hand an array to the extension.
CUDA arrays are handed over as DLPack capsules exported with ``stream=-1`` ("no synchronisation"):
cudist enqueues its work on the framework's current stream itself, so stream order already holds
and the export must not add an event wait. PyTorch and CuPy are imported only when the caller
passes one of their arrays.
"""

import contextlib
import functools
import numbers
import sys

import numpy as np

from . import _cudist


@functools.lru_cache(maxsize=None)
def numpy_dtype_name(dtype):
    """NumPy's name of `dtype` ("float32", ...), computed once per dtype: NumPy's dtype.name runs
    Python code (~1.6 us), and a small call reads it several times (docs/tuning.md, "Python")."""
    return dtype.name


_NO_SCOPE = contextlib.nullcontext()  # does nothing and keeps no state: one serves every call


class _NumPy:
    """NumPy arrays, and anything np.asarray accepts: host memory."""

    name = "numpy"

    def as_array(self, obj):
        if isinstance(obj, np.ndarray):
            return obj
        if hasattr(obj, "__cuda_array_interface__") or hasattr(obj, "__dlpack_device__"):
            return _adopted(obj)
        # A list or scalar has to be converted anyway; do it the way scipy does (to float64,
        # bools kept), so that cdist([[0, 1]], [[1, 1]]) works as it does in scipy.
        array = np.asarray(obj)
        return array if array.dtype.kind in "bf" else array.astype(np.float64)

    def device(self, array):
        return "cpu"

    def scope(self, array):
        return _NO_SCOPE

    def stream(self, array):
        return 0

    def dtype_name(self, array):
        return numpy_dtype_name(array.dtype)

    def empty(self, shape, dtype, like):
        return np.empty(shape, dtype=dtype)

    def full(self, shape, value, dtype, like):
        return np.full(shape, value, dtype=dtype)

    def export(self, array):
        return array

    def to_numpy(self, array):
        return np.asarray(array)

    def from_numpy(self, array, like):
        return array

    def element_strides(self, array):
        itemsize = max(array.itemsize, 1)
        return tuple([stride // itemsize for stride in array.strides])  # a generator: 0.2 us more

    def row_major(self, array, dtype):
        # Object arrays (of numbers) convert here, as scipy converts them; strings raise ValueError.
        return np.ascontiguousarray(array, dtype=dtype)


class _Torch:
    """torch.Tensor on the CPU or a CUDA device. Autograd is not tracked through cudist."""

    name = "torch"

    def __init__(self):
        import torch

        self._torch = torch

    def as_array(self, tensor):
        return tensor.detach()

    def device(self, tensor):
        kind = tensor.device.type
        if kind == "cpu":
            return "cpu"
        if kind == "cuda":
            return f"cuda:{tensor.device.index}"
        raise ValueError(f"cudist: tensors on '{tensor.device}' are not supported (cpu, cuda)")

    def scope(self, tensor):
        if not tensor.is_cuda:
            return contextlib.nullcontext()
        return self._torch.cuda.device(tensor.device)

    def stream(self, tensor):
        return self._torch.cuda.current_stream(tensor.device).cuda_stream if tensor.is_cuda else 0

    def dtype_name(self, tensor):
        return str(tensor.dtype).rpartition(".")[2]  # "torch.float32" -> "float32"

    def empty(self, shape, dtype, like):
        return self._torch.empty(shape, dtype=getattr(self._torch, dtype), device=like.device)

    def full(self, shape, value, dtype, like):
        return self._torch.full(shape, value, dtype=getattr(self._torch, dtype),
                                device=like.device)

    def export(self, tensor):
        return tensor.__dlpack__(stream=-1) if tensor.is_cuda else tensor

    def to_numpy(self, tensor):
        return tensor.detach().cpu().numpy()

    def from_numpy(self, array, like):
        return self._torch.from_numpy(array).to(like.device)

    def adopt(self, obj):
        if hasattr(obj, "__dlpack__"):
            return self._torch.from_dlpack(obj)
        return self._torch.as_tensor(obj, device="cuda")  # __cuda_array_interface__: its GPU

    def element_strides(self, tensor):
        return tensor.stride()

    def row_major(self, tensor, dtype):
        # One copy on the tensor's own device and stream, whatever of dtype and layout changes:
        # .to() returns the tensor itself when only the layout differs, .contiguous() copies it
        # then (and is a no-op after a dtype conversion, which wrote row-major).
        return tensor.to(dtype=getattr(self._torch, dtype),
                         memory_format=self._torch.contiguous_format).contiguous()


class _CuPy:
    """cupy.ndarray: device memory of one GPU."""

    name = "cupy"

    def __init__(self):
        import cupy

        self._cupy = cupy

    def as_array(self, array):
        return array

    def device(self, array):
        return f"cuda:{array.device.id}"

    def scope(self, array):
        return array.device

    def stream(self, array):
        return self._cupy.cuda.get_current_stream().ptr  # of the current device: call in scope()

    def dtype_name(self, array):
        return numpy_dtype_name(array.dtype)

    def empty(self, shape, dtype, like):
        with like.device:
            return self._cupy.empty(shape, dtype=dtype)

    def full(self, shape, value, dtype, like):
        with like.device:
            return self._cupy.full(shape, value, dtype=dtype)

    def export(self, array):
        return array.__dlpack__(stream=-1)

    def to_numpy(self, array):
        return self._cupy.asnumpy(array)

    def from_numpy(self, array, like):
        with like.device:
            return self._cupy.asarray(array)

    def adopt(self, obj):
        if hasattr(obj, "__dlpack__"):
            return self._cupy.from_dlpack(obj)
        return self._cupy.asarray(obj)  # __cuda_array_interface__

    def element_strides(self, array):
        return tuple(stride // array.itemsize for stride in array.strides)

    def row_major(self, array, dtype):
        with array.device:
            return self._cupy.ascontiguousarray(array, dtype=dtype)


_NUMPY = _NumPy()


@functools.lru_cache(maxsize=None)
def _framework_named(name):
    return _Torch() if name == "torch" else _CuPy()


# DLPack device types (dlpack.h DLDeviceType) of host memory: CPU and CUDA pinned host memory.
_HOST_DLPACK_DEVICES = (1, 3)


def _adopted(obj):
    """An array of another framework, viewed without a copy as one of cudist's: host memory as a
    NumPy array, GPU memory as a CuPy array (or a torch tensor where CuPy is not installed). The
    views import with the consumer's current stream, so the producer's pending work is ordered
    before cudist's. Results come back in the framework of the view."""
    on_host = (not hasattr(obj, "__cuda_array_interface__")
               and obj.__dlpack_device__()[0] in _HOST_DLPACK_DEVICES)
    if on_host:
        return np.from_dlpack(obj)
    for name in ("cupy", "torch"):
        try:
            return _framework_named(name).adopt(obj)
        except ImportError:
            continue
    raise TypeError(f"cudist: {type(obj).__name__} is a GPU array; reading it needs CuPy or "
                    "PyTorch installed")


def framework_of(obj):
    """The framework object for `obj`; NumPy for anything that is not a torch or CuPy array."""
    kind = type(obj)
    framework = _FRAMEWORK_OF_TYPE.get(kind)
    if framework is None:  # once per type: a call asks it of its arrays a dozen times or more
        package = kind.__module__.partition(".")[0]
        framework = _framework_named(package) if package in ("torch", "cupy") else _NUMPY
        _FRAMEWORK_OF_TYPE[kind] = framework
    return framework


_FRAMEWORK_OF_TYPE = {}


def as_array(obj):
    """`obj` as an array of its own framework, without copying arrays (lists become NumPy)."""
    return framework_of(obj).as_array(obj)


def export(array):
    """`array` as the extension takes it: itself on the host, a DLPack capsule on a GPU."""
    return framework_of(array).export(array)


def read_in_place(array):
    """Whether the kernels can read the 2-D `array` where it is: unit stride along the columns
    and a row stride >= 0 (any row stride, so row and column slices need no copy)."""
    # NumPy's usual case read off its flags, without the strides' arithmetic (0.3 us); not for
    # empty arrays or zero-byte elements, flagged contiguous whatever their strides.
    if isinstance(array, np.ndarray) and array.flags.c_contiguous and array.size and array.itemsize:
        return True
    rows, cols = array.shape
    row_stride, col_stride = framework_of(array).element_strides(array)
    return (cols <= 1 or rows == 0 or col_stride == 1) and (rows <= 1 or row_stride >= 0)


def readable(array):
    """The 2-D `array` as the kernels read it: itself when read_in_place accepts its layout, else
    one row-major copy (of its dtype) made by its own framework where it lives (on its GPU for a
    CUDA tensor)."""
    if read_in_place(array):
        return array
    return framework_of(array).row_major(array, dtype_name(array))


def dtype_name(array):
    """NumPy's name of the dtype of `array` ("float32", "bfloat16", ...)."""
    return framework_of(array).dtype_name(array)


def expect_2d(array, name):
    """scipy's check (and message) that an input is a matrix."""
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-dimensional array, got {array.ndim} dimensions")


def budget_bytes(memory_budget):
    """A call's memory_budget as the extension takes it: bytes, 0 when not given."""
    if memory_budget is None:
        return 0
    if (isinstance(memory_budget, bool) or not isinstance(memory_budget, numbers.Integral)
            or memory_budget < 0):
        raise ValueError(f"memory_budget must be a non-negative number of bytes, got {memory_budget!r}")
    return int(memory_budget)


def host_float64(obj):
    """A small parameter array (w, V, VI) as a C-contiguous float64 NumPy array, or None."""
    if obj is None:
        return None
    return np.ascontiguousarray(framework_of(obj).to_numpy(obj), dtype=np.float64)


@functools.lru_cache(maxsize=None)
def _itemsize(dtype):
    """Bytes per element of the NumPy dtype named `dtype`, None for one NumPy lacks."""
    try:
        return np.dtype(dtype).itemsize
    except TypeError:
        return None


class placed:
    """Where one call runs, decided by its first array input `home`: outputs are allocated with
    home's framework on home's device, the work runs on `device` (home's own unless the caller
    names another) and is enqueued on home's framework's current stream there.

    Used as `with placed(home, device) as at`: entered, it holds the framework's device scope, so
    that streams and allocations refer to home's GPU (and the caller's current device is restored
    afterwards), and has its attributes. One object, not a generator or a scope around another:
    entering and leaving it takes 0.6 us, a contextlib generator's 1.5 (docs/tuning.md,
    "Python")."""

    def __init__(self, home, device):
        self._framework = framework_of(home)
        self._home, self._requested = home, device
        self._scope = self._framework.scope(home)

    def __enter__(self):
        self._scope.__enter__()
        try:  # inside the scope: CuPy's current stream is the current device's
            self.framework = self._framework.name
            self.home_device = _cudist.canonical_device(self._framework.device(self._home))
            self.device = (self.home_device if self._requested is None
                           else _cudist.canonical_device(str(self._requested)))
            self.stream = self._framework.stream(self._home)
        except BaseException:
            self._scope.__exit__(*sys.exc_info())
            raise
        return self

    def __exit__(self, *exc):
        return self._scope.__exit__(*exc)

    dtype_name = staticmethod(dtype_name)

    def distance_dtype(self, array):
        """The dtype of distances computed from `array`: float64 for float64, else float32."""
        return "float64" if self.dtype_name(array) == "float64" else "float32"

    def empty(self, shape, dtype):
        """An uninitialised array of `dtype` (a NumPy dtype name) next to home; one that cannot
        fit there is refused first (OutOfMemoryError naming the size), rather than allocated
        lazily and the process killed when the call writes it."""
        self._expect_fits(shape, dtype)
        return self._framework.empty(shape, dtype, self._home)

    def full(self, shape, value, dtype):
        """An array of `dtype` filled with `value`, next to home, on the framework's stream."""
        self._expect_fits(shape, dtype)
        return self._framework.full(shape, value, dtype, self._home)

    def _expect_fits(self, shape, dtype):
        itemsize = _itemsize(dtype)
        if itemsize is not None:  # None: a dtype NumPy lacks (bfloat16), which the call rejects
            _cudist.expect_result_fits(self.home_device, shape, dtype, itemsize)

    export = staticmethod(export)
