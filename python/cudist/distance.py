"""scipy.spatial.distance on cudist's engine: cdist and pdist with scipy's names, keyword arguments
and results, directed_hausdorff, and scipy's helpers on distance matrices (squareform, ...)."""

import warnings

import numpy as np

from . import _cudist
from ._distance_inputs import kernel_dtype, kernel_input, result_dtype
from ._distance_matrices import is_valid_dm, is_valid_y, num_obs_dm, num_obs_y, squareform
from ._frameworks import as_array, budget_bytes, expect_2d, framework_of, placed
from ._metric_args import metric_name, metric_params
from ._timeline import timed
from .neighbors import knn

__all__ = ["cdist", "directed_hausdorff", "is_valid_dm", "is_valid_y", "num_obs_dm", "num_obs_y",
           "pdist", "squareform"]

_DIFFERENCES_FROM_SCIPY = """
    Differences from scipy (docs/scipy_differences.md gives the reasons)
    ----------------------
    - Results are float64 for NumPy and array_like inputs (as scipy), and for torch / CuPy arrays
      of the input's own precision (float32 for float32, float16, bfloat16, uint8, int8 and bool);
      `dtype=` or `out=` chooses float32 or float64. out may be float32 and have any row stride.
    - Every layout and dtype scipy takes is accepted; layouts the kernels cannot read in place
      (column steps, column-major, negative strides) are copied once, where the array lives.
      Complex inputs raise TypeError (scipy drops the imaginary parts).
    - Callable metrics are evaluated by scipy, in Python on the CPU (UserWarning).
    - mahalanobis needs VI symmetric positive definite (cudist factors it); seuclidean needs every
      variance in V finite and > 0. Otherwise ValueError.
    - Extra metrics: 'inner_product' (the similarity x . y, larger = closer) and 'hamming_bits'
      (uint8 rows of packed bits; the number of differing bits).
    - 'kulczynski1' and 'sokalmichener' exist here with their definitions from scipy < 1.17, which
      removed them.
    - On boolean rows every boolean metric equals scipy's. On other values, jaccard counts the
      components that differ among those nonzero in either row (scipy's earlier definition);
      scipy 1.17 counts those where exactly one of the two is nonzero.

    Arrays, devices and streams
    ---------------------------
    NumPy arrays (and lists) are computed by the CPU backend unless `device` names a GPU
    ('cuda', 'cuda:N' or 'auto'): then they are copied there, and the result comes back as NumPy.
    torch tensors and CuPy arrays are used in place on their own device (CPU or GPU), with no
    copies and no synchronisation: the work is enqueued on the framework's current stream
    (torch.cuda.current_stream(), cupy.cuda.get_current_stream()), and the result is a new array
    of the same framework on the same device, allocated by the framework on that stream. When the
    rows need a preparation pass into temporary GPU buffers (a dtype conversion, centring,
    normalising or weighting: float16/bfloat16 inputs, cosine, correlation, jensenshannon, w, V,
    VI, ...), the C++ library synchronises that stream before returning. Gradients are not
    tracked. A `device` other than the inputs' own copies the inputs there and the result back.
    A device set ('cuda:0,1', 'cuda:all') splits cdist, pdist, knn, self_knn, match and radius
    over those GPUs and synchronises them; use it with NumPy inputs or arrays on the set's first
    GPU.
    Raises DeviceUnavailableError when `device` asks for a GPU that is absent or when this build
    of cudist has no CUDA backend, ValueError for a malformed set or a GPU named twice.
"""


def _documented(function):
    if function.__doc__ is not None:  # None under python -OO
        function.__doc__ += _DIFFERENCES_FROM_SCIPY
    return function


@timed
@_documented
def cdist(XA, XB, metric="euclidean", *, out=None, dtype=None, device=None, memory_budget=None,
          precision="exact", **kwargs):
    """Distance between each pair of rows of two collections, as scipy.spatial.distance.cdist.

    Computes ``Y[i, j] = metric(XA[i], XB[j])`` for every row i of XA and j of XB.

    Parameters
    ----------
    XA : (mA, n) array: NumPy, torch.Tensor, cupy.ndarray or array_like, of any dtype scipy takes
        (floats, integers, bool) and any strides
    XB : (mB, n) array of the same framework, on the same device as XA
    metric : str or callable
        Any metric of scipy.spatial.distance by name or alias, any case, also as scipy's
        'test_<name>': braycurtis, canberra, chebyshev, cityblock, correlation, cosine, dice,
        euclidean, hamming, jaccard, jensenshannon, kulczynski1, mahalanobis, minkowski,
        rogerstanimoto, russellrao, seuclidean, sokalmichener, sokalsneath, sqeuclidean, yule;
        plus inner_product and hamming_bits. A callable ``metric(u, v, **kwargs)`` is evaluated
        by scipy, pair by pair in Python on the CPU (with a UserWarning saying so).
    out : (mA, mB) float32 or float64 array, optional
        Where to write the result (any framework and device, any row stride); its dtype is the
        result's. Returned.
    dtype : float32 or float64, optional
        The dtype of the result, and the precision of the computation. Default: float64 for NumPy
        and array_like inputs (as scipy); for torch and CuPy arrays float64 for float64 and integer
        inputs, float32 for the others (float32, float16, bfloat16, uint8, int8, bool).
    device : str or torch.device, optional
        Where to compute: 'cpu', 'cuda', 'cuda:N' or 'auto' (a GPU when one is present), or a
        device set 'cuda:0,1' / 'cuda:all' that splits the output rows over those GPUs
        (docs/multi_gpu.md). Default: where XA lives.
    memory_budget : int, optional
        Bytes of device memory the call may hold at once for its output (default: the GPU's free
        memory). An ``out`` in host memory (a NumPy array) larger than that is computed in
        windows of rows streamed into it, so the result may be larger than the GPU.
    precision : 'exact' or 'tf32'
        'exact' (default): the direct formula, right to float32 (or float64) rounding. 'tf32':
        on a GPU, float32 sqeuclidean, euclidean, inner_product and cosine through a TF32 matrix
        product on the tensor cores (cuBLAS, where it is installed), within ``E (|x|^2 + |y|^2)``
        of the exact value (sqeuclidean; E ~ 2^-9 + d 2^-22, docs/accuracy.md), with the entries
        that bound could put off by more than a 16th (identical and nearby rows) computed
        exactly, so identical rows still give 0. Every other case (other metrics, float64, the
        CPU) stays exact.
    p : float
        minkowski only: the order, p > 0 (default 2; inf gives chebyshev).
    w : (n,) array_like
        Non-negative column weights, for every metric but seuclidean, mahalanobis,
        jensenshannon, inner_product and hamming_bits.
    V : (n,) array_like
        seuclidean only: the column variances (default: of the rows of XA and XB, ddof=1).
    VI : (n, n) array_like
        mahalanobis only: the inverse covariance (default: of the rows of XA and XB).

    Returns
    -------
    Y : (mA, mB) array of XA's framework on XA's device (``out`` when given)
    """
    if callable(metric):
        return _by_scipy("cdist", (XA, XB), metric, out, kwargs)
    XA, XB = as_array(XA), as_array(XB)
    expect_2d(XA, "XA")
    expect_2d(XB, "XB")
    metric = metric_name(metric)
    params = metric_params("cdist", metric, kwargs)
    result = result_dtype(XA, dtype, out)
    written = kernel_dtype(metric, result)
    XA, XB = kernel_input(XA, written, "XA"), kernel_input(XB, written, "XB")
    with placed(XA, device) as at:
        target, buffer = _outputs(at, (XA.shape[0], XB.shape[0]), result, written, out)
        _cudist.cdist(at.export(XA), at.export(XB), at.export(buffer), metric, at.device,
                      at.stream, *params, budget_bytes(memory_budget), precision)
    return _finished(buffer, target, out)


@timed
@_documented
def pdist(X, metric="euclidean", *, out=None, dtype=None, device=None, memory_budget=None,
          precision="exact", **kwargs):
    """Pairwise distances between the rows of X, condensed, as scipy.spatial.distance.pdist.

    Computes ``metric(X[i], X[j])`` for every pair i < j, in scipy's condensed order: the pair
    (i, j) is entry ``m*i - i*(i+1)//2 + (j - i - 1)`` of the 1-D result (squareform turns it
    into the square matrix).

    Parameters
    ----------
    X : (m, n) array: NumPy, torch.Tensor, cupy.ndarray or array_like
    metric, dtype, device, memory_budget, precision, p, w
        As for cdist.
    V, VI
        As for cdist; the defaults are scipy's: the variances (ddof=1) and the inverse covariance
        of X's rows, computed on the host in float64 (a GPU array is copied there for them).
    out : (m*(m-1)//2,) contiguous 1-D float32 or float64 array, optional
        Where to write the result; returned.

    Returns
    -------
    Y : (m*(m-1)//2,) array of X's framework on X's device (``out`` when given)
    """
    if callable(metric):
        return _by_scipy("pdist", (X,), metric, out, kwargs)
    X = as_array(X)
    expect_2d(X, "X")
    metric = metric_name(metric)
    params = metric_params("pdist", metric, _with_scipy_defaults(X, metric, kwargs))
    result = result_dtype(X, dtype, out)
    written = kernel_dtype(metric, result)
    X = kernel_input(X, written, "X")
    m = X.shape[0]
    with placed(X, device) as at:
        target, buffer = _outputs(at, (m * (m - 1) // 2,), result, written, out)
        _cudist.pdist(at.export(X), at.export(buffer), metric, at.device, at.stream, *params,
                      budget_bytes(memory_budget), precision)
    return _finished(buffer, target, out)


def _outputs(at, shape, result, written, out):
    """(target, buffer): the result array (out's array view, or a new one next to the inputs)
    and where the kernels write (target itself unless they write another dtype)."""
    target = at.empty(shape, result) if out is None else as_array(out)
    return target, target if written == result else at.empty(shape, written)


def _finished(buffer, target, out):
    """The result: target, holding what the kernels wrote into buffer; `out` itself if given."""
    if buffer is not target:
        target[...] = buffer
    return target if out is None else out


def _with_scipy_defaults(X, metric, kwargs):
    """kwargs with scipy's default V (seuclidean) or VI (mahalanobis) for pdist of X: the
    library's defaults are those of cdist(X, X), whose rows are X twice, which scipy's are not."""
    wanted = {"seuclidean": "V", "mahalanobis": "VI"}.get(metric)
    if wanted is None or kwargs.get(wanted) is not None:
        return kwargs
    rows = framework_of(X).to_numpy(X).astype(np.float64)
    m, n = rows.shape
    if metric == "seuclidean":
        return dict(kwargs, V=np.var(rows, axis=0, ddof=1))
    if m <= n:  # scipy's check and message
        raise ValueError(f"The number of observations ({m}) is too small; the covariance matrix "
                         f"is singular. For observations with {n} dimensions, at least {n + 1} "
                         "observations are required.")
    return dict(kwargs, VI=np.linalg.inv(np.atleast_2d(np.cov(rows.T))).T.copy())


def _by_scipy(function, arrays, metric, out, kwargs):
    """scipy.spatial.distance's cdist or pdist with the callable `metric`, on host copies of
    torch / CuPy arrays; the result comes back in the first array's framework and device."""
    warnings.warn("cudist: a callable metric is evaluated by scipy, pair by pair in Python on "
                  "the CPU; it does not run on the GPU", UserWarning, stacklevel=3)
    from scipy.spatial import distance as scipy_distance

    reference = getattr(scipy_distance, function)
    if reference is globals()[function]:
        raise RuntimeError(f"cudist: scipy.spatial.distance.{function} has been replaced by "
                           "cudist's; callable metrics need scipy's own")
    framework = framework_of(arrays[0])
    if framework.name == "numpy":  # objects of any dtype, as scipy takes them
        return reference(*arrays, metric=metric, out=out, **kwargs)
    on_host = [framework.to_numpy(array) for array in arrays]
    result = framework.from_numpy(reference(*on_host, metric=metric, **kwargs), arrays[0])
    return _finished(result, result if out is None else as_array(out), out)


def directed_hausdorff(u, v, rng=0, *, seed=None, device=None):
    """scipy.spatial.distance.directed_hausdorff: max over the rows of u of the euclidean distance
    to the nearest row of v, as (distance, row of u, its nearest row of v).

    One knn(u, v, 1) pass gives every row's nearest distance (on a GPU, without forming the
    distance matrix); the maximum is taken where they live. NumPy inputs are computed in float64
    as scipy's. rng (and its older name seed) is accepted for scipy's signature: scipy uses it
    only to shuffle its early-exit search, which changes neither the distance nor, but among
    equal distances, the rows returned (here the first of them).
    """
    del rng, seed
    u, v = as_array(u), as_array(v)
    for name, array in (("u", u), ("v", v)):
        expect_2d(array, name)
    if u.shape[1] != v.shape[1]:
        raise ValueError("u and v need to have the same number of columns")
    if framework_of(u).name == "numpy":
        u, v = kernel_input(u, "float64", "u"), kernel_input(v, "float64", "v")
    nearest, which = knn(u, v, 1, device=device)
    row = int(nearest[:, 0].argmax())
    return float(nearest[row, 0]), row, int(which[row, 0])
