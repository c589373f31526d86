"""torch tensors: used in place on their own device (CPU or CUDA), on the current stream, with the
result a torch tensor on that device. Skipped where torch is not installed; the CUDA tests also
need a GPU and a CUDA build of cudist."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial import distance

import cudist
from cudist import _cudist
from cudist._frameworks import framework_of
from distance_cases import box_descriptors, tolerance

torch = pytest.importorskip("torch")



def cuda_test(function):
    """Marks a test that needs a GPU seen by both torch and cudist."""
    skip = pytest.mark.skipif(not torch.cuda.is_available(), reason="torch sees no GPU")
    return pytest.mark.gpu(skip(function))


def as_numpy(tensor):
    return tensor.detach().cpu().to(torch.float64).numpy()


def torch_allocations(device):
    return torch.cuda.memory_stats(device)["allocation.all.allocated"]


# --- CPU tensors -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16, torch.float16])
def test_cpu_tensors_give_cpu_tensors(dtype):
    XA, XB = torch.randn(31, 7).to(dtype), torch.randn(17, 7).to(dtype)
    got = cudist.cdist(XA, XB, "cityblock")
    assert isinstance(got, torch.Tensor) and got.device.type == "cpu"
    assert got.dtype == (torch.float64 if dtype == torch.float64 else torch.float32)
    tol = tolerance(np.float64 if dtype == torch.float64 else np.float32)
    assert_allclose(got.numpy(), distance.cdist(as_numpy(XA), as_numpy(XB), "cityblock"), **tol)


def test_cpu_bool_tensors_and_pdist():
    X = torch.rand(40, 25) < 0.3
    assert_allclose(cudist.pdist(X, "jaccard").numpy(), distance.pdist(X.numpy(), "jaccard"),
                    **tolerance(np.float32))


def test_tensors_requiring_grad_are_read_without_autograd():
    XA = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    got = cudist.cdist(XA, XA.detach() + 1)
    assert not got.requires_grad
    assert_allclose(got.numpy(), distance.cdist(as_numpy(XA), as_numpy(XA) + 1), rtol=1e-12)


def test_cpu_layouts():
    X = torch.randn(20, 10, dtype=torch.float64)
    assert_allclose(cudist.cdist(X[::2, 1:], X[1::3, 1:]).numpy(),
                    distance.cdist(as_numpy(X[::2, 1:]), as_numpy(X[1::3, 1:])), rtol=1e-12)
    # A layout the kernels cannot read (column-major) is copied once by torch, not refused.
    assert_allclose(cudist.cdist(X.T, X.T).numpy(), distance.cdist(as_numpy(X.T), as_numpy(X.T)),
                    rtol=1e-12)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=[
    pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU")])])
def test_transposed_and_integer_tensors_are_converted_where_they_live(device):
    X = torch.randint(0, 50, (30, 20), device=device)
    got = cudist.cdist(X.T, X.T.flip(0), "euclidean")  # int64, column-major views
    assert got.device == X.device and got.dtype == torch.float64
    expected = distance.cdist(X.T.cpu().numpy(), X.T.flip(0).cpu().numpy())
    assert_allclose(got.cpu().numpy(), expected, **tolerance(np.float64))
    half = cudist.pdist(X.to(torch.float16)[:, ::2], "cityblock")  # float16 keeps float32
    assert half.device == X.device and half.dtype == torch.float32
    assert_allclose(half.cpu().numpy(), distance.pdist(X[:, ::2].cpu().numpy(), "cityblock"),
                    **tolerance(np.float32))
    assert cudist.cdist(X.double(), X.double(), dtype=torch.float32).dtype == torch.float32


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=[
    pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU")])])
def test_callables_squareform_and_hausdorff_keep_tensors_where_they_live(device):
    X = torch.randn(12, 4, dtype=torch.float64, device=device)
    with pytest.warns(UserWarning, match="not run on the GPU"):
        got = cudist.pdist(X, lambda u, v: float(np.abs(u - v).sum()))
    assert got.device == X.device
    square = cudist.squareform(got)
    assert square.device == X.device
    assert_allclose(square.cpu().numpy(), cudist.cdist(X, X, "cityblock").cpu().numpy(),
                    rtol=1e-12)
    assert cudist.squareform(square).device == X.device and cudist.num_obs_dm(square) == 12
    u, v = X.cpu().numpy(), X.cpu().numpy()[:5] + 0.5
    assert cudist.directed_hausdorff(X, X[:5] + 0.5)[0] == pytest.approx(
        distance.directed_hausdorff(u, v)[0], rel=1e-12)


# --- CUDA tensors ----------------------------------------------------------------------------

@cuda_test
@pytest.mark.parametrize("metric, p", [("cityblock", 1.0), ("euclidean", 2.0),
                                       ("minkowski", 3.0), ("chebyshev", float("inf"))])
@pytest.mark.parametrize("shape", [(1, 1, 1), (33, 129, 17), (1023, 203, 300)])
def test_cuda_matches_torch_cdist_in_float64(metric, p, shape):
    mA, mB, n = shape
    XA = torch.randn(mA, n, dtype=torch.float64, device="cuda")
    XB = torch.randn(mB, n, dtype=torch.float64, device="cuda")
    kwargs = {"p": p} if metric == "minkowski" else {}
    got = cudist.cdist(XA, XB, metric, **kwargs)
    assert got.is_cuda and got.device == XA.device and got.dtype == torch.float64
    expected = torch.cdist(XA, XB, p=p, compute_mode="donot_use_mm_for_euclid_dist")
    torch.testing.assert_close(got, expected, rtol=1e-12, atol=1e-12)


@cuda_test
def test_cuda_float32_matches_torch_cdist():
    XA, XB = torch.randn(777, 129, device="cuda"), torch.randn(1025, 129, device="cuda")
    got = cudist.cdist(XA, XB)
    assert got.dtype == torch.float32
    expected = torch.cdist(XA.double(), XB.double(), compute_mode="donot_use_mm_for_euclid_dist")
    torch.testing.assert_close(got.double(), expected, rtol=1e-5, atol=1e-5)


@cuda_test
def test_cuda_inputs_are_not_copied_and_only_the_output_is_allocated():
    XA = torch.randn(300, 64, device="cuda")
    XB = torch.randn(500, 80, device="cuda")[::2, 8:72]  # a row-strided view, read in place
    assert torch.from_dlpack(framework_of(XB).export(XB)).data_ptr() == XB.data_ptr()
    torch.cuda.synchronize()
    before = torch_allocations(XA.device)
    got = cudist.cdist(XA, XB, "sqeuclidean")
    assert torch_allocations(XA.device) - before == 1  # the result, nothing else through torch
    out = torch.empty_like(got)
    pointer, before = out.data_ptr(), torch_allocations(XA.device)
    assert cudist.cdist(XA, XB, "sqeuclidean", out=out) is out
    assert out.data_ptr() == pointer and torch_allocations(XA.device) == before
    torch.testing.assert_close(out, got, rtol=0, atol=0)


@cuda_test
def test_cuda_work_runs_on_the_current_stream(streams_seen):
    seen = streams_seen("cdist", 5)  # the stream argument
    XA, XB = torch.randn(100, 32, device="cuda"), torch.randn(90, 32, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        got = cudist.cdist(XA, XB)
    side.synchronize()
    assert seen == [side.cuda_stream]
    torch.testing.assert_close(got, torch.cdist(XA, XB), rtol=1e-4, atol=1e-4)


@cuda_test
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_cuda_half_precision_is_computed_in_float32(dtype):
    XA = torch.rand(70, 48, device="cuda").to(dtype)
    XB = torch.rand(50, 48, device="cuda").to(dtype)
    got = cudist.cdist(XA, XB, "cosine")
    assert got.dtype == torch.float32 and got.is_cuda
    assert_allclose(got.cpu().numpy(), distance.cdist(as_numpy(XA), as_numpy(XB), "cosine"),
                    **tolerance(np.float32))


@cuda_test
@pytest.mark.parametrize("metric", ["inner_product", "cosine"])
def test_cuda_bfloat16_embedding_search_gives_the_exact_neighbours(metric):
    """bfloat16 embeddings, k = 100 (the cuBLAS path): the neighbours of the float64 answer on the
    same bfloat16 values, distances from the float32 sums."""
    g = torch.Generator(device="cuda").manual_seed(7)
    XA = torch.randn(30, 384, device="cuda", generator=g).to(torch.bfloat16)
    XB = torch.randn(5000, 384, device="cuda", generator=g).to(torch.bfloat16)
    distances, indices = cudist.knn(XA, XB, 100, metric)
    assert distances.is_cuda and distances.dtype == torch.float32 and indices.dtype == torch.int64
    A, B = XA.double(), XB.double()
    if metric == "inner_product":
        exact = A @ B.T
    else:
        exact = 1 - (A @ B.T) / (A.norm(dim=1)[:, None] * B.norm(dim=1)[None, :])
    ranked = torch.sort(exact, dim=1, descending=metric == "inner_product", stable=True).values[:, :100]
    torch.testing.assert_close(distances.double(), ranked, rtol=1e-4, atol=1e-4)  # float32 sums of 384
    torch.testing.assert_close(torch.gather(exact, 1, indices), distances.double(), rtol=1e-4, atol=1e-4)
    assert all(len(set(row.tolist())) == 100 for row in indices)


@cuda_test
def test_cuda_bool_tensors():
    XA, XB = torch.rand(70, 48, device="cuda") < 0.5, torch.rand(50, 48, device="cuda") < 0.5
    got = cudist.cdist(XA, XB, "yule")
    assert got.dtype == torch.float32 and got.is_cuda
    assert_allclose(got.cpu().numpy(), distance.cdist(XA.cpu().numpy(), XB.cpu().numpy(), "yule"),
                    **tolerance(np.float32))


@cuda_test
@pytest.mark.parametrize("metric", [m for m in _cudist.metric_names() if m != "hamming_bits"])
def test_cuda_backend_agrees_with_cpu_backend(metric):
    X = torch.rand(203, 33, dtype=torch.float64, device="cuda")
    X = (X < 0.5).double() if metric in ("dice", "kulczynski1", "rogerstanimoto", "russellrao",
                                         "sokalmichener", "sokalsneath", "yule") else X
    torch.testing.assert_close(cudist.pdist(X, metric).cpu(), cudist.pdist(X.cpu(), metric),
                               rtol=1e-10, atol=1e-12)


@cuda_test
def test_numpy_inputs_can_be_computed_on_the_gpu(rng):
    XA, XB = rng.standard_normal((129, 31)), rng.standard_normal((65, 31))
    got = cudist.cdist(XA, XB, "correlation", device="cuda")
    assert isinstance(got, np.ndarray)
    assert_allclose(got, distance.cdist(XA, XB, "correlation"), **tolerance(np.float64))


@cuda_test
def test_cuda_tensors_can_be_computed_on_the_cpu():
    XA, XB = torch.randn(20, 5, device="cuda"), torch.randn(10, 5, device="cuda")
    got = cudist.cdist(XA, XB, device="cpu")
    assert got.is_cuda
    torch.testing.assert_close(got, torch.cdist(XA, XB), rtol=1e-5, atol=1e-5)


@cuda_test
@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_tensors_on_another_gpu_stay_there():
    torch.cuda.set_device(0)
    XA = torch.randn(10, 4, device="cuda:1")
    got = cudist.cdist(XA, XA)
    assert got.device == XA.device and torch.cuda.current_device() == 0
    with pytest.raises(ValueError, match="cuda:1"):
        cudist.cdist(XA, XA, device="cuda:0")


@cuda_test
def test_cuda_knn_writes_into_tensors_torch_allocates():
    XA, XB = torch.randn(500, 64, device="cuda"), torch.randn(3000, 64, device="cuda")
    torch.cuda.synchronize()
    before = torch_allocations(XA.device)
    distances, indices = cudist.knn(XA, XB, 10)
    assert torch_allocations(XA.device) - before == 2  # the two results, nothing else
    assert distances.is_cuda and indices.is_cuda and indices.dtype == torch.int64
    full = torch.cdist(XA.double(), XB.double(), compute_mode="donot_use_mm_for_euclid_dist")
    torch.testing.assert_close(distances.double(), full.topk(10, largest=False).values,
                               rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(full.gather(1, indices), distances.double(), rtol=1e-5, atol=1e-5)


@cuda_test
@pytest.mark.parametrize("kind, metric", [("sift_u8", "euclidean"), ("orb", "hamming_bits")])
def test_cuda_match_returns_tensors_on_the_gpu(kind, metric):
    query, train, opencv = box_descriptors(kind)
    pairs, distances = cudist.match(torch.from_numpy(query).cuda(), torch.from_numpy(train).cuda(),
                                    metric)
    assert pairs.is_cuda and distances.is_cuda and pairs.dtype == torch.int64
    assert set(map(tuple, pairs.cpu().tolist())) == set(map(tuple, opencv.tolist()))


@cuda_test
def test_cuda_radius_returns_tensors_on_the_gpu():
    XA, XB = torch.randn(100, 8, device="cuda"), torch.randn(150, 8, device="cuda")
    offsets, indices, distances = cudist.radius(XA, XB, 3.0)
    assert offsets.is_cuda and offsets.shape == (101,) and indices.dtype == torch.int64
    full = torch.cdist(XA.double(), XB.double(), compute_mode="donot_use_mm_for_euclid_dist")
    assert int(offsets[-1]) == int((full <= 3.0).sum())


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=[
    pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU")])])
def test_spmv_on_torch_sparse_csr(device):
    dense = torch.randn(300, 200, dtype=torch.float64, device=device)
    dense[dense.abs() < 1.5] = 0
    A, x = dense.to_sparse_csr(), torch.randn(200, dtype=torch.float64, device=device)
    y = cudist.spmv(A, x)
    assert y.device == x.device and y.dtype == torch.float64
    torch.testing.assert_close(y, dense @ x, rtol=1e-12, atol=1e-12)
    X = torch.randn(200, 7, dtype=torch.float64, device=device)
    torch.testing.assert_close(cudist.spmm(A, X), dense @ X, rtol=1e-12, atol=1e-12)


@cuda_test
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_cuda_minplus_matches_broadcasting(dtype):
    A = torch.randint(-8, 9, (130, 70), device="cuda").to(dtype)
    B = torch.randint(-8, 9, (70, 90), device="cuda").to(dtype)
    C, witness = cudist.minplus(A, B, witness=True)
    assert C.is_cuda and C.dtype == dtype and witness.dtype == torch.int32
    terms = A[:, :, None] + B[None]
    torch.testing.assert_close(C, terms.min(dim=1).values, rtol=0, atol=0)
    torch.testing.assert_close(terms.gather(1, witness[:, None].long()).squeeze(1), C,
                               rtol=0, atol=0)


@cuda_test
def test_cuda_apsp_matches_the_cpu_backend():
    weights = torch.rand(300, 300, dtype=torch.float64, device="cuda") + 0.1
    weights[torch.rand(300, 300, device="cuda") > 0.05] = float("inf")
    dist = cudist.apsp(weights)
    assert dist.is_cuda
    torch.testing.assert_close(dist.cpu(), cudist.apsp(weights.cpu()), rtol=1e-12, atol=0)


# --- self_knn, batches, plans and graphs given by their edges ---------------------------------

def devices_to_test():
    """'cpu', and 'cuda' as a gpu-marked parameter."""
    return ["cpu", pytest.param("cuda", marks=[
        pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU")])]


@pytest.mark.parametrize("device", devices_to_test())
def test_self_knn_returns_tensors_where_x_lives(device):
    X = torch.randn(300, 16, dtype=torch.float64, device=device)
    distances, indices = cudist.self_knn(X, 5)
    assert distances.device == X.device and indices.device == X.device
    assert indices.dtype == torch.int64 and distances.dtype == torch.float64
    full = torch.cdist(X, X, compute_mode="donot_use_mm_for_euclid_dist")
    full.fill_diagonal_(float("inf"))
    expected = full.topk(5, largest=False)
    torch.testing.assert_close(distances, expected.values, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(indices, expected.indices, rtol=0, atol=0)


@cuda_test
def test_cuda_self_knn_runs_on_the_current_stream(streams_seen):
    seen = streams_seen("self_knn", 8)  # the stream argument
    X = torch.randn(200, 8, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        distances, _ = cudist.self_knn(X, 3)
    side.synchronize()
    assert seen == [side.cuda_stream] and distances.is_cuda


@cuda_test
def test_cuda_knn_batched_with_offsets_on_the_gpu():
    sizes_a, sizes_b = [40, 0, 75, 13], [90, 20, 5, 33]
    oa = torch.tensor([0] + sizes_a, device="cuda").cumsum(0)
    ob = torch.tensor([0] + sizes_b, device="cuda").cumsum(0)
    XA = torch.randn(int(oa[-1]), 24, dtype=torch.float64, device="cuda")
    XB = torch.randn(int(ob[-1]), 24, dtype=torch.float64, device="cuda")
    distances, indices = cudist.knn_batched(XA, XB, oa, ob, 5, pad=True)
    assert distances.is_cuda and indices.is_cuda and distances.shape == (XA.shape[0], 5)
    for b in range(len(sizes_a)):
        qa, qb = slice(int(oa[b]), int(oa[b + 1])), slice(int(ob[b]), int(ob[b + 1]))
        if qa.start == qa.stop:
            continue
        full = torch.cdist(XA[qa], XB[qb], compute_mode="donot_use_mm_for_euclid_dist")
        present = min(5, full.shape[1])
        expected = full.topk(present, largest=False)
        torch.testing.assert_close(distances[qa, :present], expected.values, rtol=1e-12,
                                   atol=1e-12)
        assert bool((indices[qa, present:] == -1).all())


@cuda_test
def test_cuda_match_batched_agrees_with_the_cpu_backend():
    oa, ob = [0, 100, 100, 250], [0, 80, 200, 260]
    XA = torch.randn(250, 32, dtype=torch.float64, device="cuda")
    XB = torch.randn(260, 32, dtype=torch.float64, device="cuda")
    pairs, distances, offsets = cudist.match_batched(XA, XB, oa, ob, ratio=0.9)
    assert pairs.is_cuda and distances.is_cuda and offsets.is_cuda and offsets.shape == (4,)
    cpu = cudist.match_batched(XA.cpu(), XB.cpu(), oa, ob, ratio=0.9)
    torch.testing.assert_close(pairs.cpu(), cpu[0], rtol=0, atol=0)
    torch.testing.assert_close(offsets.cpu(), cpu[2], rtol=0, atol=0)
    torch.testing.assert_close(distances.cpu(), cpu[1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("device", devices_to_test())
def test_spmv_plan_on_torch_sparse_csr(device):
    dense = torch.randn(400, 250, dtype=torch.float64, device=device)
    dense[dense.abs() < 1.5] = 0
    plan = cudist.SpmvPlan(dense.to_sparse_csr())  # the CSR tensor lives on in the plan only
    assert plan.device == ("cpu" if device == "cpu" else f"cuda:{dense.device.index}")
    for _ in range(2):
        x = torch.randn(250, dtype=torch.float64, device=device)
        X = torch.randn(250, 3, dtype=torch.float64, device=device)
        y = plan.spmv(x)
        assert y.device == x.device and y.dtype == torch.float64
        torch.testing.assert_close(y, dense @ x, rtol=1e-12, atol=1e-12)
        torch.testing.assert_close(plan.spmm(X), dense @ X, rtol=1e-12, atol=1e-12)
    transposed = cudist.SpmvPlan(dense.to_sparse_csr(), transpose=True)
    xt = torch.randn(400, dtype=torch.float64, device=device)
    torch.testing.assert_close(transposed.spmv(xt), dense.T @ xt, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("device", devices_to_test())
def test_min_plus_spmv_on_torch(device):
    dense = torch.rand(200, 150, dtype=torch.float64, device=device)
    dense[dense > 0.1] = 0  # stored entries: the nonzeros, as to_sparse_csr keeps them
    A = dense.to_sparse_csr()
    x = torch.rand(150, dtype=torch.float64, device=device)
    terms = torch.where(dense != 0, dense + x, torch.full_like(dense, float("inf")))
    y = cudist.spmv(A, x, semiring="min-plus")
    assert y.device == x.device
    torch.testing.assert_close(y, terms.min(dim=1).values, rtol=0, atol=0)


@pytest.mark.parametrize("device", devices_to_test())
def test_apsp_of_an_edge_list_of_tensors(device):
    u = torch.tensor([0, 1, 2, 0], device=device)
    v = torch.tensor([1, 2, 3, 3], device=device)
    w = torch.tensor([1.0, 1.0, 1.0, 5.0], dtype=torch.float32, device=device)
    dist, next_hops = cudist.apsp((u, v, w), n=5, next_hops=True)
    assert dist.device == w.device and dist.dtype == torch.float32
    assert next_hops.device == w.device and next_hops.dtype == torch.int32
    assert float(dist[0, 3]) == 3.0 and float(dist[3, 0]) == float("inf")
    assert cudist.apsp_path(next_hops, 0, 3) == [0, 1, 2, 3]
