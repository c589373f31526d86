"""cudist against the reference data shipped inside scipy (scipy/spatial/tests/data): distances
computed by MATLAB on the iris data set and on scipy's random test inputs, with the tolerances
scipy's own tests use for them (1e-7 for float64 inputs, 1e-5 for float32)."""

import os

import numpy as np
import pytest
import scipy
from numpy.testing import assert_allclose
from scipy.spatial import distance

import cudist

DATA = os.path.join(os.path.dirname(scipy.__file__), "spatial", "tests", "data")
pytestmark = pytest.mark.skipif(
    not os.path.isdir(DATA),
    reason="this scipy installation does not ship scipy/spatial/tests/data; "
           "test_cdist_scipy.py compares every metric with scipy's computed results instead")


def load(name):
    return np.loadtxt(os.path.join(DATA, name))


# (reference file, input file, metric, keyword arguments)
MATLAB_PDIST = [
    (f"pdist-{metric}-ml{suffix}.txt", inputs, metric.split("-")[0], kwargs)
    for suffix, inputs in (("", "pdist-double-inp.txt"), ("-iris", "iris.txt"))
    for metric, kwargs in (("euclidean", {}), ("cityblock", {}), ("chebyshev", {}),
                           ("correlation", {}), ("cosine", {}), ("seuclidean", {}),
                           ("jensenshannon", {}), ("minkowski-3.2", {"p": 3.2}))
] + [
    ("pdist-minkowski-5.8-ml-iris.txt", "iris.txt", "minkowski", {"p": 5.8}),
    ("pdist-hamming-ml.txt", "pdist-boolean-inp.txt", "hamming", {}),
    ("pdist-jaccard-ml.txt", "pdist-boolean-inp.txt", "jaccard", {}),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("reference, inputs, metric, kwargs",
                         MATLAB_PDIST, ids=[case[0] for case in MATLAB_PDIST])
def test_pdist_matches_matlab(reference, inputs, metric, kwargs, dtype):
    X = load(inputs)
    X = X.astype(bool) if inputs == "pdist-boolean-inp.txt" else X.astype(dtype)
    got, expected = cudist.pdist(X, metric, **kwargs), load(reference)
    if X.dtype == np.float64:
        # atol: iris has duplicate rows, where cudist gives an exact 0 and MATLAB 1e-16.
        assert_allclose(got, expected, rtol=1e-7, atol=1e-12)
    elif metric == "jensenshannon":
        # The divergence under the square root is accurate to ~1e-7 in float32; compare before it.
        assert_allclose(got.astype(np.float64) ** 2, expected ** 2, rtol=1e-5, atol=1e-7)
    else:
        # Computed in float32: 1 - cos and friends carry ~1e-7 absolute error near 0.
        assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean", "cityblock", "chebyshev",
                                    "minkowski", "cosine", "correlation", "canberra", "braycurtis",
                                    "seuclidean", "mahalanobis", "hamming",
                                    "jaccard", "dice",
                                    "rogerstanimoto", "russellrao", "sokalsneath", "yule"])
def test_cdist_on_scipys_test_inputs(metric):
    X1, X2 = load("cdist-X1.txt"), load("cdist-X2.txt")
    assert_allclose(cudist.cdist(X1, X2, metric), distance.cdist(X1, X2, metric), rtol=1e-10)


@pytest.mark.parametrize("metric", ["dice", "hamming", "jaccard", "rogerstanimoto", "russellrao",
                                    "sokalsneath", "yule"])
def test_boolean_metrics_on_scipys_random_bools(metric):
    X = load("random-bool-data.txt").astype(bool)
    assert_allclose(cudist.pdist(X, metric), distance.pdist(X, metric), rtol=1e-6)
