"""cudist.dask on a dask.distributed LocalCluster (2 worker processes, 1 thread each): the results
equal the single-process calls', bad chunkings are clear errors, and a worker that dies mid-job
costs a retry, not a wrong answer."""

import os

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

import cudist  # noqa: E402
import cudist.dask  # noqa: E402

# Ragged row blocks, a one-row block among them, so that merges see blocks shorter than k.
A_CHUNKS = (13, 1, 20, 9)
B_CHUNKS = (7, 30, 1, 11, 22, 4)


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _integers(rng, rows, dtype=np.float32, high=6):
    # Small integers: every sum of products is exact in float32, so results compare with ==.
    return rng.integers(0, high, (rows, 5)).astype(dtype)


def _blocked(X, chunks):
    return da.from_array(X, chunks=(chunks, -1))


@pytest.mark.parametrize("metric", ["sqeuclidean", "euclidean", "cityblock", "chebyshev",
                                    "inner_product"])
@pytest.mark.parametrize("split_every", [2, 8])
def test_knn_equals_the_single_process_call(client, rng, metric, split_every):
    A, B = _integers(rng, sum(A_CHUNKS)), _integers(rng, sum(B_CHUNKS))
    distances, indices = dask.compute(*cudist.dask.knn(
        _blocked(A, A_CHUNKS), _blocked(B, B_CHUNKS), 9, metric, split_every=split_every))
    expected_distances, expected_indices = cudist.knn(A, B, 9, metric)
    np.testing.assert_array_equal(distances, expected_distances)
    np.testing.assert_array_equal(indices, expected_indices)


def _rows_whose_squares_share_a_root(rng):
    """Two rows of XB at distances from XA's one row whose squares differ but round to one root:
    the first row's square is the larger. One call ranks the second row first."""
    XA = np.zeros((1, 2), np.float32)
    Y = np.stack([np.ones(4096, np.float32), rng.uniform(0, 0.01, 4096).astype(np.float32)], axis=1)
    squares = cudist.cdist(XA, Y, "sqeuclidean", dtype=np.float32)[0]
    roots = cudist.cdist(XA, Y, "euclidean", dtype=np.float32)[0]
    order = np.argsort(squares, kind="stable")
    for a, b in zip(order[:-1], order[1:]):
        if squares[a] < squares[b] and roots[a] == roots[b]:
            return XA, Y[[b, a]]
    pytest.fail("no two squares with one root among 4096 rows")


@pytest.mark.parametrize("metric,kwargs", [("euclidean", {}), ("minkowski", {"p": 2}),
                                           ("seuclidean", {"V": np.ones(2)}),
                                           ("mahalanobis", {"VI": np.eye(2)})])
def test_knn_ranks_ties_of_rounded_roots_as_the_single_process_call(client, rng, metric, kwargs):
    XA, XB = _rows_whose_squares_share_a_root(rng)
    expected = cudist.knn(XA, XB, 1, metric, **kwargs)
    assert expected[1][0, 0] == 1  # the smaller square, though its root ties with row 0's
    result = dask.compute(*cudist.dask.knn(_blocked(XA, 1), _blocked(XB, 1), 1, metric, **kwargs))
    for got, want in zip(result, expected):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("metric,kwargs", [
    ("euclidean", {}), ("sqeuclidean", {}), ("minkowski", {"p": 2}), ("minkowski", {"p": 3}),
    ("seuclidean", {"V": np.full(5, 2.0)}), ("mahalanobis", {"VI": np.eye(5)}), ("cityblock", {}),
    ("chebyshev", {}), ("cosine", {}), ("correlation", {}), ("inner_product", {}),
    ("canberra", {}), ("braycurtis", {})])
def test_the_merges_answer_as_the_single_process_call_on_both_paths(rng, metric, kwargs):
    from cudist import _dask_blocks

    A, B = rng.integers(-2, 3, (6, 5)).astype(float), rng.integers(-2, 3, (13, 5)).astype(float)
    B[10:] = B[:3]  # equal keys in the first and the last part
    if metric in ("cosine", "correlation"):
        A[0] = 0.0  # a NaN row
    expected = cudist.knn(A, B, 4, metric, **kwargs)
    parts = [_dask_blocks.knn_block(A, B[a:b], a, 4, metric, None, kwargs, rank_values=True)
             for a, b in ((0, 3), (3, 9), (9, 13))]
    p = float(kwargs.get("p", 2.0))
    for layout in ("C", "F"):  # the library's merge; the array module's (what CuPy blocks take)
        laid = [tuple(np.asarray(a, order=layout) for a in part) for part in parts]
        inner = _dask_blocks.merge_nearest(laid[1:], 4, metric, p)
        for merged in (_dask_blocks.merge_nearest(laid, 4, metric, p, last=True),
                       _dask_blocks.merge_nearest([laid[0], inner], 4, metric, p, last=True)):
            for got, want in zip(merged, expected):
                np.testing.assert_array_equal(got, want, err_msg=layout)


def test_knn_pads_past_the_rows_of_xb_as_the_single_process_call(client, rng):
    A, B = _integers(rng, 6), _integers(rng, 5)
    result = dask.compute(*cudist.dask.knn(_blocked(A, 4), _blocked(B, 2), 8, pad=True))
    expected = cudist.knn(A, B, 8, pad=True)
    for got, want in zip(result, expected):
        np.testing.assert_array_equal(got, want)  # NaN distances and -1 in the same places


def test_knn_on_real_values_with_weights(client, rng):
    A, B = rng.standard_normal((40, 7)), rng.standard_normal((90, 7))
    w = rng.uniform(0.5, 2.0, 7)
    distances, indices = dask.compute(*cudist.dask.knn(
        _blocked(A, 15), _blocked(B, 25), 4, "cosine", w=w))
    expected_distances, expected_indices = cudist.knn(A, B, 4, "cosine", w=w)
    np.testing.assert_allclose(distances, expected_distances, rtol=1e-12)
    np.testing.assert_array_equal(indices, expected_indices)  # random reals: no ties


def test_knn_runs_one_task_per_block_pair(rng):
    X = _blocked(_integers(rng, sum(A_CHUNKS)), A_CHUNKS)
    Y = _blocked(_integers(rng, sum(B_CHUNKS)), B_CHUNKS)
    distances, _ = cudist.dask.knn(X, Y, 3)
    block_tasks = [key for key in dict(distances.__dask_graph__())
                   if str(key).startswith("knn_block-")]
    assert len(block_tasks) == len(A_CHUNKS) * len(B_CHUNKS)


@pytest.mark.parametrize("kwargs, shared", [({}, 0), ({"p": 3}, 0), ({"w": [1, 2, 1, 2, 1]}, 1)])
def test_knn_blocks_wait_for_no_task_but_a_shared_array(client, rng, kwargs, shared):
    # Scalars are written into each task; a task of their own would hold every block task back
    # by a scheduler round trip. Arrays go into the graph once.
    A, B = rng.standard_normal((sum(A_CHUNKS), 5)), rng.standard_normal((sum(B_CHUNKS), 5))
    XA, XB = _blocked(A, A_CHUNKS), _blocked(B, B_CHUNKS)
    result = cudist.dask.knn(XA, XB, 3, "minkowski", **kwargs)
    blocks = [task for key, task in dict(result[0].__dask_graph__()).items()
              if str(key).startswith("knn_block-")]
    inputs = {key for task in blocks for key in task.dependencies}
    assert len(inputs) == len(A_CHUNKS) + len(B_CHUNKS) + shared
    distances, indices = dask.compute(*result)
    expected_distances, expected_indices = cudist.knn(A, B, 3, "minkowski", **kwargs)
    np.testing.assert_array_equal(distances, expected_distances)
    np.testing.assert_array_equal(indices, expected_indices)  # random reals: no ties


@pytest.mark.parametrize("k, pad", [(4, False), (4, True), (9, True)])
def test_knn_with_one_database_block_merges_only_to_pad(client, rng, k, pad):
    A, B = _integers(rng, sum(A_CHUNKS)), _integers(rng, 7)
    result = cudist.dask.knn(_blocked(A, A_CHUNKS), _blocked(B, 7), k, pad=pad)
    merges = [key for key in dict(result[0].__dask_graph__()) if str(key).startswith("merge_nearest-")]
    assert len(merges) == (len(A_CHUNKS) if k > 7 else 0)
    for got, want in zip(dask.compute(*result), cudist.knn(A, B, k, pad=pad)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mutual", [False, True])
@pytest.mark.parametrize("max_distance", [np.inf, 6.0])
def test_match_equals_the_single_process_call(client, rng, mutual, max_distance):
    # Few distinct values: many ties between the best two, which the ratio test must see.
    A, B = _integers(rng, sum(A_CHUNKS), high=3), _integers(rng, sum(B_CHUNKS), high=3)
    pairs, distances = dask.compute(*cudist.dask.match(
        _blocked(A, A_CHUNKS), _blocked(B, B_CHUNKS), "cityblock", ratio=0.8, mutual=mutual,
        max_distance=max_distance, split_every=2))
    expected_pairs, expected_distances = cudist.match(
        A, B, "cityblock", ratio=0.8, mutual=mutual, max_distance=max_distance)
    assert len(expected_pairs) > 0
    np.testing.assert_array_equal(pairs, expected_pairs)
    np.testing.assert_array_equal(distances, expected_distances)


def test_match_with_one_train_row_passes_every_query_as_the_single_process_call(client, rng):
    A, B = _integers(rng, 5), _integers(rng, 1)
    got = dask.compute(*cudist.dask.match(_blocked(A, 2), _blocked(B, 1), mutual=False))
    for got_array, want in zip(got, cudist.match(A, B)):
        np.testing.assert_array_equal(got_array, want)


@pytest.mark.parametrize("metric", ["sqeuclidean", "cityblock", "hamming"])
def test_cdist_and_pdist_equal_the_single_process_calls(client, rng, metric):
    A, B = _integers(rng, sum(A_CHUNKS)), _integers(rng, sum(B_CHUNKS))
    Y = cudist.dask.cdist(_blocked(A, A_CHUNKS), _blocked(B, B_CHUNKS), metric)
    assert Y.chunks == (A_CHUNKS, B_CHUNKS)
    condensed = cudist.dask.pdist(_blocked(B, B_CHUNKS), metric)
    got_cdist, got_pdist = dask.compute(Y, condensed)
    np.testing.assert_array_equal(got_cdist, cudist.cdist(A, B, metric))
    np.testing.assert_array_equal(got_pdist, cudist.pdist(B, metric))


@pytest.mark.parametrize("dtype", [None, "float32", "float64"])
def test_cdist_and_pdist_results_have_the_single_process_dtype(client, rng, dtype):
    A = _integers(rng, sum(A_CHUNKS)).astype(np.float32)
    B = _integers(rng, sum(B_CHUNKS), np.float64)  # float32 against float64 rows, as scipy takes
    Y = cudist.dask.cdist(_blocked(A, A_CHUNKS), _blocked(B, B_CHUNKS), dtype=dtype)
    condensed = cudist.dask.pdist(_blocked(A, A_CHUNKS), "cityblock", dtype=dtype)
    want_cdist, want_pdist = cudist.cdist(A, B, dtype=dtype), cudist.pdist(A, "cityblock", dtype=dtype)
    assert Y.dtype == want_cdist.dtype and condensed.dtype == want_pdist.dtype
    got_cdist, got_pdist = dask.compute(Y, condensed)
    assert got_cdist.dtype == want_cdist.dtype and got_pdist.dtype == want_pdist.dtype
    np.testing.assert_array_equal(got_cdist, want_cdist)
    np.testing.assert_array_equal(got_pdist, want_pdist)


def test_seuclidean_with_v_given_on_real_values(client, rng):
    X = rng.standard_normal((50, 5))
    V = X.var(axis=0, ddof=1)
    got = cudist.dask.pdist(_blocked(X, 12), "seuclidean", V=V).compute()
    np.testing.assert_allclose(got, cudist.pdist(X, "seuclidean", V=V), rtol=1e-12)


_ROWS = np.arange(15.0).reshape(5, 3)
_NO_ROWS = np.empty((0, 3))


@pytest.mark.parametrize("dask_call, single_process_call", [
    (lambda X, Y: cudist.dask.knn(X, Y, 3), lambda X, Y: cudist.knn(X, Y, 3)),
    (lambda X, Y: cudist.dask.knn(Y, X, 3, pad=True), lambda X, Y: cudist.knn(Y, X, 3, pad=True)),
    (lambda X, Y: (cudist.dask.cdist(Y, X),), lambda X, Y: (cudist.cdist(Y, X),)),
    (lambda X, Y: (cudist.dask.pdist(X),), lambda X, Y: (cudist.pdist(X),)),
    (lambda X, Y: cudist.dask.match(X, Y, mutual=True),
     lambda X, Y: cudist.match(X, Y, mutual=True)),
    (lambda X, Y: cudist.dask.match(Y, X, mutual=True),
     lambda X, Y: cudist.match(Y, X, mutual=True)),
])
def test_no_rows_give_what_the_single_process_call_gives(dask_call, single_process_call):
    got = dask.compute(*dask_call(_blocked(_NO_ROWS, 2), _blocked(_ROWS, 2)))
    for got_array, want in zip(got, single_process_call(_NO_ROWS, _ROWS)):
        assert got_array.shape == want.shape and got_array.dtype == want.dtype
        np.testing.assert_array_equal(got_array, want)


X_ = np.arange(40.0).reshape(8, 5)


@pytest.mark.parametrize("call, exception, message", [
    (lambda: cudist.dask.knn(da.from_array(X_, chunks=(4, 2)), _blocked(X_, 4), 2), ValueError,
     "XA's 5 columns are split into 3 chunks"),
    (lambda: cudist.dask.pdist(da.from_array(X_, chunks=(4, 3))), ValueError,
     "X's 5 columns are split into 2 chunks"),
    (lambda: cudist.dask.cdist(_blocked(X_, 4), _blocked(X_[:, :3], 4)), ValueError,
     "XA has 5 columns but XB has 3"),
    (lambda: cudist.dask.knn(X_, _blocked(X_, 4), 2), TypeError,
     "XA must be a dask.array.Array, got ndarray"),
    (lambda: cudist.dask.match(_blocked(X_, 4), da.from_array(np.ones(3))), ValueError,
     "XB must be a 2-dimensional array"),
    (lambda: cudist.dask.knn(_blocked(X_, 4)[_blocked(X_, 4)[:, 0] > 3], _blocked(X_, 4), 2),
     ValueError, "XA has unknown chunk sizes"),
    (lambda: cudist.dask.knn(_blocked(X_, 4), _blocked(X_, 4), 9), ValueError,
     "k = 9 but XB has only 8 rows"),
    (lambda: cudist.dask.knn(_blocked(X_, 4), _blocked(X_, 4), 0), ValueError,
     "k must be at least 1"),
    (lambda: cudist.dask.knn(_blocked(X_, 4), _blocked(X_, 4), 2, split_every=1), ValueError,
     "split_every = 1"),
    (lambda: cudist.dask.knn(_blocked(X_, 4), _blocked(X_.astype(np.float32), 4), 2), TypeError,
     "XA is float64 but XB is float32"),
    (lambda: cudist.dask.pdist(_blocked(X_, 4), "seuclidean"), ValueError,
     "seuclidean needs V given"),
    (lambda: cudist.dask.cdist(_blocked(X_, 4), _blocked(X_, 4), "mahalanobis"), ValueError,
     "mahalanobis needs VI given"),
    (lambda: cudist.dask.cdist(_blocked(X_, 4), _blocked(X_, 4), "euclidean", p=3), TypeError,
     "unexpected keyword argument 'p'"),
    (lambda: cudist.dask.match(_blocked(X_, 4), _blocked(X_, 4), "inner_product"), ValueError,
     "ratio test needs a distance"),
    (lambda: cudist.dask.match(_blocked(X_, 4), _blocked(X_, 4), ratio=2), ValueError,
     "ratio = 2"),
    (lambda: cudist.dask.cdist(_blocked(X_, 4), _blocked(X_, 4), device="tpu"), ValueError,
     "'tpu' is not a device"),
])
def test_bad_input_is_refused_before_any_task_runs(call, exception, message):
    with pytest.raises(exception) as raised:
        call()
    assert message in str(raised.value)


def test_a_device_that_does_not_exist_fails_the_job_with_the_library_error(client, rng):
    X = _blocked(_integers(rng, 10), 5)
    with pytest.raises(cudist.DeviceUnavailableError):
        cudist.dask.knn(X, X, 2, device="cuda:99")[0].compute()


def _die_in_the_first_merge(marker):
    """Run in every worker: the first top-k merge task on any of them (the one that creates
    `marker`) kills its worker process, after the knn tasks it merges have run."""
    from cudist import _dask_blocks

    merge = _dask_blocks.merge_nearest

    def dying_merge(*args, **kwargs):
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return merge(*args, **kwargs)
        os._exit(1)

    dying_merge.__wrapped__ = merge
    _dask_blocks.merge_nearest = dying_merge


def _undo_die_in_the_first_merge():
    from cudist import _dask_blocks

    _dask_blocks.merge_nearest = getattr(_dask_blocks.merge_nearest, "__wrapped__",
                                         _dask_blocks.merge_nearest)


def test_a_worker_that_dies_mid_job_is_replaced_and_the_answer_is_still_exact(
        client, rng, tmp_path):
    A, B = _integers(rng, 60), _integers(rng, 80)
    marker = str(tmp_path / "worker-killed")
    workers_before = set(client.run(os.getpid).values())
    client.run(_die_in_the_first_merge, marker)
    try:
        distances, indices = dask.compute(*cudist.dask.knn(_blocked(A, 15), _blocked(B, 10), 5,
                                                           split_every=2))
    finally:
        client.run(_undo_die_in_the_first_merge)
    assert os.path.exists(marker)  # a worker did die
    client.wait_for_workers(2)
    assert set(client.run(os.getpid).values()) != workers_before  # and was replaced
    expected_distances, expected_indices = cudist.knn(A, B, 5)
    np.testing.assert_array_equal(distances, expected_distances)
    np.testing.assert_array_equal(indices, expected_indices)


@pytest.mark.gpu
def test_cupy_chunks_stay_on_the_gpu_and_equal_the_single_process_call(client, rng):
    cupy = pytest.importorskip("cupy")
    A, B = _integers(rng, sum(A_CHUNKS)), _integers(rng, sum(B_CHUNKS))
    XA = da.from_array(cupy.asarray(A), chunks=(A_CHUNKS, -1), asarray=False)
    XB = da.from_array(cupy.asarray(B), chunks=(B_CHUNKS, -1), asarray=False)
    distances, indices = cudist.dask.knn(XA, XB, 6, "euclidean")
    assert isinstance(distances._meta, cupy.ndarray)
    distances, indices = dask.compute(distances, indices)
    assert isinstance(distances, cupy.ndarray)
    expected_distances, expected_indices = cudist.knn(A, B, 6, "euclidean")
    np.testing.assert_array_equal(cupy.asnumpy(distances), expected_distances)
    np.testing.assert_array_equal(cupy.asnumpy(indices), expected_indices)
    pairs, _ = dask.compute(*cudist.dask.match(XA, XB, "cityblock", mutual=True))
    np.testing.assert_array_equal(cupy.asnumpy(pairs),
                                  cudist.match(A, B, "cityblock", mutual=True)[0])
