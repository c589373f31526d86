"""float32 results whose squares overflow or underflow float32 (issue 9): the answer is right
whenever it is representable, for NumPy inputs with a float32 result and for torch tensors."""
import numpy as np
import pytest
from scipy.spatial.distance import cdist as scipy_cdist
from scipy.spatial.distance import pdist as scipy_pdist

import cudist

# The issue's two examples, and what scipy gives (in float64; both are float32 values).
EXAMPLES = [([[1e20, 0]], [[0, 0]], 1e20), ([[3e-25, 4e-25]], [[0, 0]], 5e-25)]
SQUARING = ["euclidean", "seuclidean", "mahalanobis", "minkowski", "cosine", "correlation"]


def params(metric, d):
    return {"seuclidean": {"V": np.ones(d)}, "mahalanobis": {"VI": np.eye(d)},
            "minkowski": {"p": 3}}.get(metric, {})


@pytest.mark.parametrize("xa,xb,want", EXAMPLES)
def test_issue_examples_numpy_float32(xa, xb, want):
    got = cudist.cdist(np.array(xa, np.float32), np.array(xb, np.float32), dtype="float32")
    assert got.dtype == np.float32
    assert got[0, 0] == np.float32(want)


@pytest.mark.parametrize("metric", SQUARING)
@pytest.mark.parametrize("scale", [1e19, 1e-24])
def test_extreme_magnitudes_match_scipy_in_float32(metric, scale):
    rng = np.random.default_rng(9)
    XA = (rng.uniform(-3, 3, (5, 7)) * scale).astype(np.float32)
    XB = (rng.uniform(-3, 3, (4, 7)) * scale).astype(np.float32)
    kw = params(metric, 7)
    want = scipy_cdist(XA.astype(np.float64), XB.astype(np.float64), metric, **kw).astype(np.float32)
    got = cudist.cdist(XA, XB, metric, dtype="float32", **kw)
    assert np.all(np.isfinite(got)) and np.all(got > 0)
    np.testing.assert_allclose(got, want, rtol=2e-5)
    want_pairs = scipy_pdist(XA.astype(np.float64), metric, **kw).astype(np.float32)
    np.testing.assert_allclose(cudist.pdist(XA, metric, dtype="float32", **kw), want_pairs, rtol=2e-5)


@pytest.mark.parametrize("xa,xb,want", EXAMPLES)
def test_issue_examples_torch_cpu(xa, xb, want):
    torch = pytest.importorskip("torch")
    got = cudist.cdist(torch.tensor(xa, dtype=torch.float32), torch.tensor(xb, dtype=torch.float32))
    assert got.dtype == torch.float32
    assert got[0, 0].item() == np.float32(want)


def tf32_bound(XA, XB, metric):
    """The stated bound of precision='tf32' (docs/accuracy.md) against the exact float32 path:
    E on sum |x_k y_k|, plus the exact path's own float32 error."""
    d = XA.shape[1]
    e = 2.0**-9 + 2.0**-20 + (d + 2) * 2.0**-22 + 2.0**-21 + (d + 2) * 2.0**-24
    sx = (XA.astype(np.float64) ** 2).sum(1)[:, None]
    sy = (XB.astype(np.float64) ** 2).sum(1)[None, :]
    if metric == "sqeuclidean":
        return e * (sx + sy)
    if metric == "inner_product":
        return e * np.sqrt(sx * sy)
    return np.full(sx.shape[:1] + sy.shape[1:], e)  # cosine: absolute


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("metric", ["sqeuclidean", "inner_product", "cosine"])
def test_tf32_precision_is_within_its_bound_and_exact_on_identical_rows(metric, device, rng):
    XA = rng.standard_normal((60, 96)).astype(np.float32)
    XB = rng.standard_normal((80, 96)).astype(np.float32)
    XB[3] = XA[2]
    exact = cudist.cdist(XA, XB, metric, dtype=np.float32, device=device)
    fast = cudist.cdist(XA, XB, metric, dtype=np.float32, device=device, precision="tf32")
    assert fast.dtype == np.float32
    assert np.all(np.abs(fast.astype(np.float64) - exact) <= tf32_bound(XA, XB, metric) * (1 + 1e-6))
    if metric != "inner_product":
        assert fast[2, 3] == exact[2, 3]  # identical rows: computed exactly
    if device == "cpu":
        assert np.array_equal(fast, exact)  # the CPU backend is exact under tf32
    condensed = cudist.pdist(XA, metric, dtype=np.float32, device=device, precision="tf32")
    assert condensed.shape == (60 * 59 // 2,)


def test_precision_names_are_checked():
    with pytest.raises(ValueError, match="valid values: exact, tf32"):
        cudist.cdist(np.ones((2, 3)), np.ones((2, 3)), precision="fp8")
