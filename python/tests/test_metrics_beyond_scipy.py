"""Metrics scipy 1.17 does not have: kulczynski1 and sokalmichener (removed in scipy 1.17; cudist
keeps the earlier definitions), inner_product and hamming_bits. The references here are written out
from those definitions."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import cudist
from distance_cases import boolean_rows, tolerance


def boolean_counts(XA, XB, w):
    """Weighted counts of (True, True), (True, False), (False, True), (False, False) per pair."""
    a, b = XA.astype(bool)[:, None, :], XB.astype(bool)[None, :, :]
    return [((x & y) * w).sum(-1) for x, y in ((a, b), (a, ~b), (~a, b), (~a, ~b))]


def kulczynski1(XA, XB, w):
    ntt, ntf, nft, _ = boolean_counts(XA, XB, w)
    return ntt / (ntf + nft)


def sokalmichener(XA, XB, w):
    ntt, ntf, nft, nff = boolean_counts(XA, XB, w)
    r = 2.0 * (ntf + nft)
    return r / (ntt + nff + r)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("metric, reference", [("kulczynski1", kulczynski1),
                                                ("sokalmichener", sokalmichener)])
def test_metrics_removed_from_scipy(metric, reference, weighted, rng):
    n = 40  # wide enough that no two random rows are equal (kulczynski1 would be inf)
    XA, XB = boolean_rows(rng, 21, n), boolean_rows(rng, 18, n)
    w = rng.random(n) + 0.1 if weighted else np.ones(n)
    kwargs = {"w": w} if weighted else {}
    assert_allclose(cudist.cdist(XA, XB, metric, **kwargs), reference(XA, XB, w), rtol=1e-5)
    assert_allclose(cudist.cdist(XA.astype(np.float64), XB.astype(np.float64), metric, **kwargs),
                    reference(XA, XB, w), **tolerance(np.float64))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_inner_product(dtype, rng):
    XA = rng.standard_normal((33, 20)).astype(dtype)
    XB = rng.standard_normal((31, 20)).astype(dtype)
    expected = XA.astype(np.float64) @ XB.astype(np.float64).T
    assert_allclose(cudist.cdist(XA, XB, "inner_product"), expected, rtol=tolerance(dtype)["rtol"],
                    atol=1e-5 if dtype == np.float32 else 1e-12)


def differing_bits(XA, XB):
    return np.unpackbits(XA[:, None, :] ^ XB[None, :, :], axis=-1).sum(-1)


def test_hamming_bits_counts_differing_bits(rng):
    XA = rng.integers(0, 256, (17, 32), dtype=np.uint8)  # 256-bit descriptors, ORB-like
    XB = rng.integers(0, 256, (23, 32), dtype=np.uint8)
    np.testing.assert_array_equal(cudist.cdist(XA, XB, "hamming_bits"), differing_bits(XA, XB))
    np.testing.assert_array_equal(cudist.pdist(XA, "hamming_bits"),
                                  differing_bits(XA, XA)[np.triu_indices(17, 1)])
