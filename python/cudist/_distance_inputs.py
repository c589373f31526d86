"""What cdist and pdist take, as scipy.spatial.distance takes it: the dtype of the result, and
each input converted (once, by its own framework, where it lives) into what the kernels read."""

import numpy as np

from ._frameworks import as_array, dtype_name, framework_of, readable

# Input dtypes the kernels read in place for float32 results: float16 and bfloat16 widened to
# float32, uint8, int8 and bool (0/1 bytes) counted exactly.
_READ_FOR_FLOAT32 = frozenset({"float16", "bfloat16", "float32", "uint8", "int8", "bool"})
_RESULT_DTYPES = ("float32", "float64")
# Metrics of packed bits: their rows are read as uint8 whatever the result, computed into float32
# (exact: they count bits) and widened when the result is float64.
_BITS_METRICS = frozenset({"hamming_bits"})


def _name_of_dtype(dtype):
    try:
        return np.dtype(dtype).name
    except TypeError:  # torch.float32 and the like
        return str(dtype).rpartition(".")[2]


def result_dtype(home, dtype, out):
    """The dtype of the distances: `dtype` or out's when given (float32 or float64), else float64
    for NumPy and array_like inputs (scipy's rule) and the input's own precision for torch and
    CuPy arrays (float64 for float64 and integers, float32 for the dtypes read as float32)."""
    if dtype is None and out is None:  # apart: the checks' dict cost a small call 0.1 us
        return _default_result_dtype(home)
    return _chosen_result_dtype(dtype, out)


def _default_result_dtype(home):
    if framework_of(home).name == "numpy" or dtype_name(home) not in _READ_FOR_FLOAT32:
        return "float64"
    return "float32"


def _chosen_result_dtype(dtype, out):
    chosen = {}
    if dtype is not None:
        chosen["dtype"] = _name_of_dtype(dtype)
    if out is not None:
        chosen["out"] = dtype_name(as_array(out))
    for argument, name in chosen.items():
        if name not in _RESULT_DTYPES:
            raise ValueError(f"{argument} is {name}; distances are float32 or float64")
    if len(set(chosen.values())) > 1:
        raise ValueError(f"dtype is {chosen['dtype']} but out is {chosen['out']}")
    return next(iter(chosen.values()))


def kernel_dtype(metric, result):
    """The dtype the kernels write for `metric` into a `result` array (they differ only for the
    bit metrics)."""
    return "float32" if metric in _BITS_METRICS else result


def kernel_input(array, written, name):
    """`array` in the dtype and layout the kernels read to write `written` distances: integers and
    every dtype are converted to float64 for float64 results (as scipy converts them), and to
    float32 for float32 results unless read as they are (_READ_FOR_FLOAT32)."""
    have = dtype_name(array)
    if have.startswith("complex"):  # a cast would drop the imaginary parts silently
        raise TypeError(f"{name} has an element type cudist does not support ({have})")
    want = have if written == "float32" and have in _READ_FOR_FLOAT32 else written
    if want == have:
        return readable(array)
    return framework_of(array).row_major(array, want)  # one copy converts and lays out
