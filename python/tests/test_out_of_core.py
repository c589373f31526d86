"""Out of core from Python: a NumPy output larger than the memory budget is streamed into in
windows of rows, and a NumPy database larger than it is searched in chunks, with the same answer
as the call that fits (bit for bit). A small memory_budget forces both on small problems; on a GPU
(marked gpu) that is the path of results and databases larger than the GPU."""

import numpy as np
import pytest

import cudist

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def integers(rng, shape):
    return rng.integers(-3, 4, shape).astype(np.float32)  # exact distances, many ties


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("metric", ["euclidean", "cosine", "cityblock"])
def test_cdist_into_a_numpy_output_in_windows_is_the_whole_call(device, metric, rng):
    XA, XB = rng.standard_normal((131, 7)).astype(np.float32), rng.standard_normal((45, 7)).astype(np.float32)
    whole = cudist.cdist(XA, XB, metric, device=device, out=np.empty((131, 45), np.float32))
    streamed = cudist.cdist(XA, XB, metric, device=device, out=np.empty((131, 45), np.float32),
                            memory_budget=6 * 45 * 4)  # windows of 3 rows
    np.testing.assert_array_equal(streamed, whole)


@pytest.mark.parametrize("device", DEVICES)
def test_pdist_into_a_numpy_output_in_windows_is_the_whole_call(device, rng):
    X = rng.standard_normal((97, 5))
    whole = cudist.pdist(X, "sqeuclidean", device=device)
    streamed = cudist.pdist(X, "sqeuclidean", device=device, out=np.empty(97 * 96 // 2),
                            memory_budget=10 * 97 * 8)
    np.testing.assert_array_equal(streamed, whole)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("metric,k", [("euclidean", 7), ("inner_product", 3), ("cityblock", 40)])
def test_knn_over_a_numpy_database_in_chunks_is_the_whole_call(device, metric, k, rng):
    XA, XB = integers(rng, (60, 4)), integers(rng, (250, 4))
    whole_d, whole_i = cudist.knn(XA, XB, k, metric, device=device)
    chunked_d, chunked_i = cudist.knn(XA, XB, k, metric, device=device, memory_budget=2 * 4 * 4 * 13)
    np.testing.assert_array_equal(chunked_i, whole_i)  # ties included: same indices, same order
    np.testing.assert_array_equal(chunked_d, whole_d)


@pytest.mark.parametrize("budget", [-1, 2.5, True, "1GB"])
def test_a_memory_budget_that_is_not_a_byte_count_is_refused(budget):
    with pytest.raises(ValueError, match="memory_budget must be a non-negative number of bytes"):
        cudist.cdist(np.ones((2, 2)), np.ones((2, 2)), memory_budget=budget)
