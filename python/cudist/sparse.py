"""Sparse (CSR) matrix times dense vector or matrix, for scipy.sparse, torch and CuPy matrices, in
the ordinary arithmetic and in the min-plus semiring; SpmvPlan analyses a matrix once for many
products."""

import math

from . import _cudist
from ._frameworks import as_array, placed

__all__ = ["SpmvPlan", "spmm", "spmv"]

_SEMIRINGS = ("plus-times", "min-plus")


def _csr_arrays(A):
    """(indptr, indices, data, shape) of A in CSR form, in place where A is CSR already."""
    package = type(A).__module__
    if package.startswith(("scipy.sparse", "cupyx.scipy.sparse")):
        A = A if A.format == "csr" else A.tocsr()  # other formats: converted (a copy)
        return A.indptr, A.indices, A.data, A.shape
    if package.startswith("torch") and str(A.layout) != "torch.strided":
        A = A if str(A.layout) == "torch.sparse_csr" else A.to_sparse_csr()  # a copy
        return A.crow_indices(), A.col_indices(), A.values(), tuple(A.shape)
    raise TypeError(f"cudist: A must be a scipy.sparse, cupyx.scipy.sparse or torch sparse "
                    f"matrix, got {type(A).__name__}")


def _make_plan(csr, transpose, at):
    indptr, indices, data, (rows, cols) = csr
    return _cudist.make_spmv_plan(at.export(indptr), at.export(indices), at.export(as_array(data)),
                                  rows, cols, bool(transpose), at.device, at.stream)


def _operand(who, x, ndim):
    x = as_array(x)
    if x.ndim != ndim:
        name = "x" if ndim == 1 else "X"
        raise ValueError(f"{who}: {name} must be {ndim}-dimensional, got {x.ndim} dimensions")
    return x


def _is_min_plus(who, semiring, alpha, beta, y):
    """Checks the semiring and the scalars it takes; True for min-plus."""
    semiring = str(semiring).lower()
    if semiring not in _SEMIRINGS:
        raise ValueError(f"{who}: semiring '{semiring}' is not supported; sparse products "
                         f"compute {' and '.join(_SEMIRINGS)}")
    if semiring == "min-plus":
        if alpha != 1 or beta != 0:
            raise ValueError(f"{who}: alpha = {alpha}, beta = {beta}: the min-plus product "
                             f"y = min(y, op(A) (min,+) x) takes no alpha or beta")
        return True
    if y is None and beta != 0:
        raise ValueError(f"{who}: beta = {beta} reads y; pass y")
    return False


def _run(who, plan, x, y, alpha, beta, semiring, at):
    """y = the product of the plan's matrix with x, into y or a new array next to x."""
    min_plus = _is_min_plus(who, semiring, alpha, beta, y)
    if y is None:
        shape = (plan.rows,) + tuple(x.shape[1:])
        # min-plus reads y: starting from +inf gives y_i = min_j op(A)_ij + x_j.
        y = at.full(shape, math.inf, plan.dtype) if min_plus else at.empty(shape, plan.dtype)
    plan.product(at.export(x), at.export(as_array(y)), float(alpha), float(beta), min_plus,
                 at.stream)
    return y


def _product(who, A, x, y, alpha, beta, semiring, transpose, device, ndim):
    csr = _csr_arrays(A)
    x = _operand(who, x, ndim)
    with placed(x, device) as at:
        return _run(who, _make_plan(csr, transpose, at), x, y, alpha, beta, semiring, at)


def spmv(A, x, *, y=None, alpha=1.0, beta=0.0, transpose=False, semiring="plus-times",
         device=None):
    """y = alpha * op(A) @ x + beta * y for a sparse matrix A and a vector x; with
    semiring='min-plus', y_i = min(y_i, min_j op(A)_ij + x_j).

    A : scipy.sparse (any format; non-CSR formats are converted to CSR, a copy), a torch sparse
        tensor (sparse_csr used in place, other layouts converted) or a cupyx.scipy.sparse
        matrix; float32 or float64 values, int32 or int64 indices (both the same). Repeated
        column indices in a row add up (min-plus: the smallest counts).
    x : (op(A).shape[1],) vector of A's value dtype.
    y : (op(A).shape[0],) vector, optional: written (and read when beta != 0, or for min-plus)
        and returned. It must not overlap x.
    transpose : op(A) = A.T instead of A.
    semiring : 'plus-times' (the ordinary product) or 'min-plus': one Bellman-Ford relaxation
        step. With A[i, j] the weight of the edge j -> i (transpose=True: i -> j) and x the
        current distances, y_i becomes the shortest distance to i using at most one more edge
        (pass a copy of x as y to keep the paths found so far; without y it starts at +inf). Stored
        entries are edges (explicit zeros too); inf means unreached, NaN is ignored. alpha and
        beta are plus-times scalars: min-plus refuses anything but their defaults.

    Returns y, an array of x's framework on x's device. Devices and streams follow
    cudist.cdist's rules. Synchronizes the stream: each call analyses A (see SpmvPlan to analyse
    it once for many products).
    """
    return _product("spmv", A, x, y, alpha, beta, semiring, transpose, device, 1)


def spmm(A, X, *, Y=None, alpha=1.0, beta=0.0, transpose=False, device=None):
    """Y = alpha * op(A) @ X + beta * Y for a sparse matrix A and a row-major dense matrix X
    (op(A).shape[1], k); otherwise as spmv (plus-times only)."""
    return _product("spmm", A, X, Y, alpha, beta, "plus-times", transpose, device, 2)


class SpmvPlan:
    """A sparse matrix analysed once for many products: the kernel chosen from its row lengths,
    the work partition, scratch space and, with transpose=True, the explicit transpose.

    plan = SpmvPlan(A, transpose=False, device=None) takes A as spmv does and prepares products
    with op(A) on `device` (default: where A's arrays live). It reads A's arrays in place when
    they live there (changing A's values in place changes later products; do not change its
    structure) and holds them as long as it lives; otherwise it keeps its own copy. Making it
    synchronizes the stream (of A's framework, current at that time).

    plan.spmv(x, y=None, alpha=1.0, beta=0.0, semiring='plus-times') and
    plan.spmm(X, Y=None, alpha=1.0, beta=0.0) are spmv / spmm with this matrix, asynchronous on
    the current stream of x's framework. Their results are arrays of x's framework on x's device;
    x on another device than the plan's (NumPy arrays for a GPU plan) is copied there and the
    result back. Products with one plan share its scratch space: keep them on one stream.
    """

    def __init__(self, A, *, transpose=False, device=None):
        csr = _csr_arrays(A)
        with placed(as_array(csr[2]), device) as at:
            self._plan = _make_plan(csr, transpose, at)

    @property
    def shape(self):
        """(rows, cols) of op(A): the lengths of y and x."""
        return self._plan.rows, self._plan.cols

    @property
    def nnz(self):
        return self._plan.nnz

    @property
    def dtype(self):
        """The value dtype's name: 'float32' or 'float64'."""
        return self._plan.dtype

    @property
    def device(self):
        """Where products run: 'cpu' or 'cuda:N'."""
        return self._plan.device

    @property
    def algorithm(self):
        """The kernel family chosen from the row lengths: 'row_split', 'merge_path' or
        'thread_per_row'."""
        return self._plan.algorithm

    def spmv(self, x, *, y=None, alpha=1.0, beta=0.0, semiring="plus-times"):
        """spmv(A, x, ...) with this plan's A and op; see cudist.spmv."""
        return self._product("spmv", _operand("spmv", x, 1), y, alpha, beta, semiring)

    def spmm(self, X, *, Y=None, alpha=1.0, beta=0.0):
        """spmm(A, X, ...) with this plan's A and op; see cudist.spmm."""
        return self._product("spmm", _operand("spmm", X, 2), Y, alpha, beta, "plus-times")

    def _product(self, who, x, y, alpha, beta, semiring):
        with placed(x, self.device) as at:
            return _run(who, self._plan, x, y, alpha, beta, semiring, at)

    def __repr__(self):
        rows, cols = self.shape
        return (f"SpmvPlan({rows} x {cols}, nnz={self.nnz}, {self.dtype}, {self.device}, "
                f"{self.algorithm})")
