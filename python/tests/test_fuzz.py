"""Seeded fuzzing of cudist.cdist / pdist against scipy: random shapes, dtypes, layouts, metric
spellings, parameters and result dtypes, for CUDIST_FUZZ_SECONDS (default 60) seconds. A failing
case names its seed: CUDIST_FUZZ_SEED=<seed> replays exactly that case."""

import os
import time

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial import distance

import cudist
from distance_cases import BOOLEAN_METRICS, REAL_METRICS, WEIGHTED_METRICS, spd_matrix

SECONDS = float(os.environ.get("CUDIST_FUZZ_SECONDS", "60"))
DTYPES = [np.float64, np.float32, np.float16, np.int8, np.int32, np.int64, np.uint8, np.uint64,
          bool]
LAYOUTS = {
    "C": lambda a: a,
    "Fortran": np.asfortranarray,
    "transposed": lambda a: np.ascontiguousarray(a.T).T,
    "column step": lambda a: np.repeat(a, 2, axis=1)[:, ::2],
    "reversed rows": lambda a: a[::-1].copy()[::-1],
    "row window": lambda a: np.pad(a, ((0, 0), (1, 2)))[:, 1:-2],
}
# Spellings a scipy user may write for each metric, besides its name.
ALIASES = {name: [alias for alias, info in distance._METRIC_ALIAS.items()
                  if info.canonical_name == name] for name in REAL_METRICS + BOOLEAN_METRICS}


def rows(rng, shape, metric, dtype):
    """Random rows of `dtype` that `metric` is defined on, the same for scipy and cudist."""
    if metric == "jensenshannon":  # no all-zero row: not a distribution (docs/scipy_differences)
        values = rng.integers(0, 2 if dtype is bool else 6, shape)
        values[:, 0] = 1
    elif metric in BOOLEAN_METRICS or dtype is bool:
        values = rng.random(shape) < 0.4  # boolean metrics: 0 / 1 rows, as they are meant
    elif np.dtype(dtype).kind == "u":
        values = rng.integers(0, 6, shape)
    else:
        values = rng.integers(-5, 6, shape) if np.dtype(dtype).kind == "i" else (
            rng.standard_normal(shape) * 3)
    return values.astype(dtype)


def parameters(rng, metric, n):
    """Keyword arguments scipy's metric takes: sometimes none, sometimes each of them."""
    if metric == "minkowski" and rng.random() < 0.7:
        return {"p": rng.choice([0.5, 1.0, 1.5, 2.0, 3.0, np.inf])}
    if metric == "seuclidean":
        return {"V": rng.random(n) + 0.2}  # the default (a variance) can be 0 on small data
    if metric == "mahalanobis":
        return {"VI": spd_matrix(rng, n)}  # the default can be singular on small data
    if metric in WEIGHTED_METRICS and rng.random() < 0.4:
        w = rng.random(n)
        w[rng.random(n) < 0.2] = 0.0
        return {"w": w}
    return {}


def spelling(rng, metric):
    name = rng.choice(ALIASES[metric] + [metric, "test_" + metric])
    return name.upper() if rng.random() < 0.2 else name


def one_case(seed):
    """Runs the case of `seed`; returns its description (for the failure message)."""
    rng = np.random.default_rng(seed)
    metric = rng.choice(REAL_METRICS + BOOLEAN_METRICS)
    dtype = DTYPES[rng.integers(len(DTYPES))]
    layout = rng.choice(list(LAYOUTS))
    m_a, m_b, n = rng.integers(0, 40), rng.integers(0, 40), rng.integers(1, 20)
    XA = LAYOUTS[layout](rows(rng, (m_a, n), metric, dtype))
    XB = LAYOUTS[layout](rows(rng, (m_b, n), metric, dtype))
    kwargs = parameters(rng, metric, n)
    precision = rng.choice(["default", "float32", "out float32", "out float64"])
    pairwise = rng.random() < 0.5
    described = (f"seed {seed}: {'cdist' if pairwise else 'pdist'} {metric} {np.dtype(dtype)} "
                 f"{layout} XA {XA.shape} XB {XB.shape} {sorted(kwargs)} result {precision}")
    expected = (distance.cdist(XA, XB, metric, **kwargs) if pairwise
                else distance.pdist(XA, metric, **kwargs))
    choice = {}
    if precision == "float32":
        choice["dtype"] = np.float32
    elif precision.startswith("out"):
        choice["out"] = np.full(expected.shape, np.nan, precision.split()[1])
    name = spelling(rng, metric)
    got = (cudist.cdist(XA, XB, name, **kwargs, **choice) if pairwise
           else cudist.pdist(XA, name, **kwargs, **choice))
    computed_in = np.float32 if "float32" in precision else np.float64
    assert got.dtype == computed_in, described
    if "out" in choice:
        assert got is choice["out"], described
    # float32 results: relative to the size of the terms summed, as float32 accumulation is.
    scale = np.abs(expected[np.isfinite(expected)])
    # yule divides by ntt*nff + ntf*nft, which small weights make tiny: float32 rounding of the
    # weighted counts reaches ~1e-3 of the result there (seed 20337874).
    rtol = 2e-3 if metric == "yule" and "w" in kwargs else 2e-4
    tolerance = ({"rtol": 1e-10, "atol": 1e-10} if computed_in == np.float64 else
                 {"rtol": rtol, "atol": rtol * max(1.0, float(scale.max(initial=0.0)))})
    if metric == "jensenshannon" and computed_in == np.float32:  # sqrt magnifies errors near 0
        got, expected = got.astype(np.float64) ** 2, expected ** 2
    if metric == "correlation":
        # A constant row centres to exactly 0 (0/0: NaN) only where its weighted mean rounds to
        # exactly its value, which depends on the order of the sums (and the precision): scipy's
        # NaN entries, or cudist's, are not compared (docs/scipy_differences.md, "Rounding").
        compared = ~np.isnan(expected) & ~np.isnan(got)
        got, expected = got[compared], expected[compared]
    assert_allclose(got, expected, err_msg=described, **tolerance)
    return described


def seeds():
    """The seeds to run: CUDIST_FUZZ_SEED alone, or consecutive ones until the time is up."""
    if "CUDIST_FUZZ_SEED" in os.environ:
        yield int(os.environ["CUDIST_FUZZ_SEED"])
        return
    deadline = time.monotonic() + SECONDS
    seed = 20261124
    while time.monotonic() < deadline:
        yield seed
        seed += 1


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # scipy's NaN for zero rows (cosine, ...)
def test_cdist_and_pdist_match_scipy_on_random_cases():
    cases = [one_case(seed) for seed in seeds()]
    print(f"fuzz: {len(cases)} cases")
    assert cases
