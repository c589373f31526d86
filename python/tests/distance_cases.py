"""Inputs, parameters and tolerances shared by the tests comparing with scipy.spatial.distance."""

import pathlib

import numpy as np
from numpy.testing import assert_allclose

# SIFT and ORB descriptors of OpenCV's box images, with the matches OpenCV's matcher keeps.
DESCRIPTORS = pathlib.Path(__file__).resolve().parents[2] / "data" / "descriptors"

# scipy 1.17's metrics on real-valued rows, and those defined on boolean rows.
REAL_METRICS = [
    "braycurtis", "canberra", "chebyshev", "cityblock", "correlation", "cosine", "euclidean",
    "jensenshannon", "mahalanobis", "minkowski", "seuclidean", "sqeuclidean",
]
BOOLEAN_METRICS = [
    "dice", "hamming", "jaccard", "rogerstanimoto", "russellrao", "sokalsneath", "yule",
]
# Metrics scipy lets take weights w (the others take V, VI or nothing).
WEIGHTED_METRICS = [m for m in REAL_METRICS + BOOLEAN_METRICS
                    if m not in ("jensenshannon", "mahalanobis", "seuclidean")]

# (rows of XA, rows of XB, columns): ragged on purpose, none a multiple of a tile.
SHAPES = [(1, 1, 1), (2, 3, 5), (31, 33, 17), (113, 129, 65), (7, 203, 3)]


def real_rows(rng, rows, cols, metric):
    """Random rows a metric is defined on: probability-like for jensenshannon, normal otherwise."""
    if metric == "jensenshannon":
        return rng.random((rows, cols))
    return rng.standard_normal((rows, cols))


def boolean_rows(rng, rows, cols):
    return rng.random((rows, cols)) < 0.4


def spd_matrix(rng, n):
    """A random symmetric positive definite n x n matrix (a valid mahalanobis VI)."""
    a = rng.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


def tolerance(dtype):
    """rtol/atol for a cudist result from inputs of `dtype` against scipy's float64 result."""
    if np.dtype(dtype) == np.float64:
        return {"rtol": 1e-12, "atol": 1e-12}
    return {"rtol": 1e-5, "atol": 1e-6}  # computed in float32


def assert_matches_scipy(got, expected, dtype, metric):
    """got (cudist, from `dtype` inputs) against scipy's float64 result."""
    if metric == "jensenshannon" and np.dtype(dtype) != np.float64:
        # The divergence under the square root is a sum of terms <= 1, accurate to ~1e-7 in
        # float32; the square root magnifies that absolute error near 0, so compare before it.
        assert_allclose(got.astype(np.float64) ** 2, expected ** 2, rtol=1e-5, atol=1e-6)
    else:
        assert_allclose(got, expected, **tolerance(dtype))


def box_descriptors(kind):
    """(query, train, OpenCV's ratio-0.75 matches) for kind 'sift_u8' or 'orb'."""
    matches = np.load(DESCRIPTORS / f"box_{kind.split('_')[0]}_ratio075_matches.npy")
    return (np.load(DESCRIPTORS / f"box_a_{kind}.npy"), np.load(DESCRIPTORS / f"box_b_{kind}.npy"),
            matches.astype(np.int64))
