"""Sparse (CSR) matrix times dense vector or matrix, for scipy.sparse, torch and CuPy matrices."""

from . import _cudist
from ._frameworks import as_array, placed

__all__ = ["spmm", "spmv"]


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


def _product(who, A, x, y, alpha, beta, transpose, device, ndim):
    indptr, indices, data, (rows, cols) = _csr_arrays(A)
    x = as_array(x)
    if x.ndim != ndim:
        raise ValueError(f"{who}: x must be {ndim}-dimensional, got {x.ndim} dimensions")
    if y is None and beta != 0:
        raise ValueError(f"{who}: beta = {beta} reads y; pass y")
    out_rows = cols if transpose else rows
    with placed(x, device) as at:
        shape = (out_rows,) if ndim == 1 else (out_rows, x.shape[1])
        result = at.empty(shape, at.dtype_name(data)) if y is None else y
        _cudist.sparse_product(
            at.export(indptr), at.export(indices), at.export(as_array(data)), rows, cols,
            at.export(x), at.export(as_array(result)), float(alpha), float(beta), bool(transpose),
            at.device, at.stream)
    return result


def spmv(A, x, *, y=None, alpha=1.0, beta=0.0, transpose=False, device=None):
    """y = alpha * op(A) @ x + beta * y for a sparse matrix A and a vector x.

    A : scipy.sparse (any format; non-CSR formats are converted to CSR, a copy), a torch sparse
        tensor (sparse_csr used in place, other layouts converted) or a cupyx.scipy.sparse
        matrix; float32 or float64 values, int32 or int64 indices (both the same). Repeated
        column indices in a row add up.
    x : (op(A).shape[1],) vector of A's value dtype, on A's device.
    y : (op(A).shape[0],) vector, optional: written (and read when beta != 0) and returned.
    transpose : op(A) = A.T instead of A.

    Returns y, an array of x's framework on x's device. Devices and streams follow
    cudist.cdist's rules. Synchronizes the stream: each call analyses A's row lengths.
    """
    return _product("spmv", A, x, y, alpha, beta, transpose, device, 1)


def spmm(A, X, *, Y=None, alpha=1.0, beta=0.0, transpose=False, device=None):
    """Y = alpha * op(A) @ X + beta * Y for a sparse matrix A and a row-major dense matrix X
    (op(A).shape[1], k); otherwise as spmv."""
    return _product("spmm", A, X, Y, alpha, beta, transpose, device, 2)
