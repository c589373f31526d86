"""scipy.spatial.distance's helpers on distance matrices: squareform, is_valid_dm, is_valid_y,
num_obs_dm and num_obs_y, with scipy's semantics and messages, for NumPy arrays and array_likes
and, without leaving their device, torch tensors and CuPy arrays (such as cdist's and pdist's
results on a GPU)."""

import math
import warnings

import numpy as np

from ._frameworks import dtype_name, framework_of

__all__ = ["is_valid_dm", "is_valid_y", "num_obs_dm", "num_obs_y", "squareform"]


def _array(X):
    """X itself when it is an array of a framework; array_likes as NumPy, dtype kept (scipy's)."""
    return np.asarray(X) if framework_of(X).name == "numpy" else X


def _pairs(points):
    """The rows and columns of the pairs i < j in condensed (row-major upper triangle) order."""
    return np.triu_indices(points, 1)


def _side(length):
    """The n with n*(n-1)/2 == length, or None."""
    n = math.ceil(math.sqrt(2 * length))
    return n if n * (n - 1) == 2 * length else None


def _verdict(check, throw, warning):
    """check()'s outcome as scipy reports it: True, or its ValueError raised, warned or False."""
    try:
        check()
    except ValueError as invalid:
        if throw:
            raise
        if warning:
            warnings.warn(str(invalid), stacklevel=3)
        return False
    return True


def squareform(X, force="no", checks=True):
    """scipy.spatial.distance.squareform: a condensed distance vector to its square symmetric
    matrix (zero diagonal), or such a matrix to its condensed vector. dtype kept; arrays of torch
    and CuPy stay on their device."""
    X = _array(X)
    force = force.lower()
    if force == "tomatrix" and X.ndim != 1:
        raise ValueError("Forcing 'tomatrix' but input X is not a distance vector.")
    if force == "tovector" and X.ndim != 2:
        raise ValueError("Forcing 'tovector' but input X is not a distance matrix.")
    framework = framework_of(X)
    if X.ndim == 1:
        n = 1 if X.shape[0] == 0 else _side(X.shape[0])
        if n is None:
            raise ValueError("Incompatible vector size. It must be a binomial coefficient n choose "
                             "2 for some integer n >= 2.")
        M = framework.full((n, n), 0, dtype_name(X), X)
        rows, cols = (framework.from_numpy(index, X) for index in _pairs(n))
        M[rows, cols] = X
        M[cols, rows] = X
        return M
    if X.ndim == 2:
        if X.shape[0] != X.shape[1]:
            raise ValueError("The matrix argument must be square.")
        if checks:
            is_valid_dm(X, throw=True, name="X")
        rows, cols = (framework.from_numpy(index, X) for index in _pairs(X.shape[0]))
        return X[rows, cols]
    raise ValueError("The first argument must be one or two dimensional array. A "
                     f"{X.ndim}-dimensional array is not permitted")


def is_valid_dm(D, tol=0.0, throw=False, name="D", warning=False):
    """scipy.spatial.distance.is_valid_dm: whether D is square, symmetric and zero on the diagonal
    (within tol when tol > 0). throw raises the reason (ValueError); warning warns it."""
    D = _array(D)
    what = f"Distance matrix '{name}'" if name else "Distance matrix"

    def check():
        if D.ndim != 2:
            raise ValueError(f"{what} must have shape=2 (i.e. be two-dimensional).")
        if D.shape[0] != D.shape[1]:
            raise ValueError(f"{what} must be square.")
        if tol == 0.0:
            if not bool((D == D.T).all()):
                raise ValueError(f"{what} must be symmetric.")
            if not bool((D.diagonal() == 0).all()):
                raise ValueError(f"{what} diagonal must be zero.")
        else:
            if not bool((D - D.T <= tol).all()):
                raise ValueError(f"{what} must be symmetric within tolerance {tol:5.5f}.")
            if not bool((D.diagonal() <= tol).all()):
                raise ValueError(f"{what} diagonal must be close to zero within tolerance "
                                 f"{tol:5.5f}.")

    return _verdict(check, throw, warning)


def is_valid_y(y, warning=False, throw=False, name=None):
    """scipy.spatial.distance.is_valid_y: whether y is a condensed distance vector (1-D, of length
    n*(n-1)/2 for some n). throw raises the reason (ValueError); warning warns it."""
    y = _array(y)
    what = f"Condensed distance matrix '{name}' " if name else "Condensed distance matrix "

    def check():
        if y.ndim != 1:
            raise ValueError(f"{what}must have shape=1 (i.e. be one-dimensional).")
        if _side(y.shape[0]) is None:
            raise ValueError(f"Length n of {what[0].lower()}{what[1:]}must be a binomial "
                             "coefficient, i.e. there must be a k such that (k \\choose 2)=n)!")

    return _verdict(check, throw, warning)


def num_obs_dm(d):
    """scipy.spatial.distance.num_obs_dm: the number of points of the square distance matrix d."""
    d = _array(d)
    is_valid_dm(d, tol=math.inf, throw=True, name="d")
    return d.shape[0]


def num_obs_y(Y):
    """scipy.spatial.distance.num_obs_y: the number of points of the condensed vector Y."""
    Y = _array(Y)
    is_valid_y(Y, throw=True, name="Y")
    if Y.shape[0] == 0:
        raise ValueError("The number of observations cannot be determined on an empty distance "
                         "matrix.")
    return _side(Y.shape[0])
