"""The cudist command-line tool end to end: each command on files, its output checked against
NumPy / SciPy, and bad input rejected with a message naming the file or argument.

Run by ctest once per backend (labels cpu, cuda) with CUDIST_CLI (the tool) and CUDIST_DEVICE
(cpu or cuda) in the environment; the cuda run skips where no GPU is usable."""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import scipy.io
from numpy.testing import assert_allclose, assert_array_equal
from scipy.sparse import csgraph
from scipy.spatial import distance

CLI = os.environ.get("CUDIST_CLI", "cudist")
DEVICE = os.environ.get("CUDIST_DEVICE", "cpu")
DATA = Path(__file__).resolve().parents[2] / "data"


def run(*args, device=True, expect_ok=True):
    command = [CLI, *map(str, args)] + (["--device", DEVICE] if device else [])
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if expect_ok:
        assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stderr}"
    else:
        assert done.returncode != 0, f"{' '.join(command)} succeeded but should have failed"
    return done


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def save(tmp_path, name, array):
    path = tmp_path / name
    np.save(path, array)
    return path


@pytest.mark.parametrize("metric", ["euclidean", "cityblock", "cosine", "chebyshev"])
def test_cdist_matches_scipy(metric, tmp_path, rng):
    x, y = rng.standard_normal((37, 19)), rng.standard_normal((23, 19))
    out = tmp_path / "d.npy"
    run("cdist", save(tmp_path, "x.npy", x), save(tmp_path, "y.npy", y), "-o", out, "--metric", metric, "-q")
    assert_allclose(np.load(out), distance.cdist(x, y, metric), rtol=1e-12, atol=1e-12)


def test_minkowski_p_and_weights_reach_the_metric(tmp_path, rng):
    x, y = rng.standard_normal((9, 4)), rng.standard_normal((6, 4))
    out = tmp_path / "d.npy"
    run("cdist", save(tmp_path, "x.npy", x), save(tmp_path, "y.npy", y), "-o", out,
        "--metric", "minkowski", "--p", 3, "--w", "1,2,0.5,3", "-q")
    assert_allclose(np.load(out), distance.cdist(x, y, "minkowski", p=3, w=[1, 2, 0.5, 3]), rtol=1e-12)


def test_tf32_precision_reaches_cdist_and_pdist(tmp_path, rng):
    x, y = rng.standard_normal((37, 96)).astype(np.float32), rng.standard_normal((23, 96)).astype(np.float32)
    y[4] = x[3]
    out = tmp_path / "d.npy"
    run("cdist", save(tmp_path, "x.npy", x), save(tmp_path, "y.npy", y), "-o", out, "--metric", "sqeuclidean",
        "--precision", "tf32", "-q")
    exact = distance.cdist(x.astype(np.float64), y.astype(np.float64), "sqeuclidean")
    norms = (x.astype(np.float64) ** 2).sum(1)[:, None] + (y.astype(np.float64) ** 2).sum(1)[None, :]
    assert np.all(np.abs(np.load(out) - exact) <= 2.0**-8 * norms)  # docs/accuracy.md's bound, rounded up
    assert np.load(out)[3, 4] == 0  # identical rows: computed exactly
    run("pdist", save(tmp_path, "x.npy", x), "-o", out, "--precision", "tf32", "-q")
    assert np.load(out).shape == (37 * 36 // 2,)
    done = run("cdist", tmp_path / "x.npy", tmp_path / "y.npy", "-o", out, "--precision", "fp8", expect_ok=False)
    assert "--precision" in done.stderr


def test_pdist_is_condensed_like_scipy(tmp_path, rng):
    x = rng.integers(0, 5, (31, 7)).astype(np.float32)
    out = tmp_path / "d.npy"
    run("pdist", save(tmp_path, "x.npy", x), "-o", out, "--metric", "sqeuclidean", "-q")
    assert_array_equal(np.load(out), distance.pdist(x, "sqeuclidean"))


def test_knn_finds_the_nearest_rows(tmp_path, rng):
    x, y = rng.standard_normal((41, 8)), rng.standard_normal((57, 8))
    idx, dist = tmp_path / "i.npy", tmp_path / "d.npy"
    run("knn", save(tmp_path, "x.npy", x), save(tmp_path, "y.npy", y), "-k", 5,
        "--indices", idx, "--distances", dist, "-q")
    full = distance.cdist(x, y)
    want = np.argsort(full, axis=1, kind="stable")[:, :5]
    assert_array_equal(np.load(idx), want)
    assert_allclose(np.load(dist), np.take_along_axis(full, want, axis=1), rtol=1e-12)


@pytest.mark.parametrize("metric", ["euclidean", "cityblock", "inner_product"])
def test_knn_over_shards_merged_is_one_knn(tmp_path, rng, metric):
    x = rng.integers(-2, 3, (23, 4)).astype(np.float32)
    y = rng.integers(-2, 3, (50, 4)).astype(np.float32)
    y[45:] = y[:5]  # equal keys in the first and the last shard
    whole_i, whole_d = tmp_path / "i.npy", tmp_path / "d.npy"
    xs = save(tmp_path, "x.npy", x)
    run("knn", xs, save(tmp_path, "y.npy", y), "-k", 6, "--metric", metric, "--indices", whole_i,
        "--distances", whole_d, "-q")
    parts = []
    for s, (a, b) in enumerate([(0, 4), (4, 30), (30, 50)]):
        d, i = tmp_path / f"d{s}.npy", tmp_path / f"i{s}.npy"
        run("knn", xs, save(tmp_path, f"y{s}.npy", y[a:b]), "-k", 6, "--pad", "--metric", metric,
            "--first-row", a, "--rank-values", "--indices", i, "--distances", d, "-q")
        parts.append((d, i))
    merged_i, merged_d = tmp_path / "mi.npy", tmp_path / "md.npy"
    run("merge-knn", "--parts-distances", *[d for d, _ in parts], "--parts-indices",
        *[i for _, i in parts], "-k", 6, "--metric", metric, "--indices", merged_i, "--distances",
        merged_d, "-q", device=False)
    assert_array_equal(np.load(merged_i), np.load(whole_i))
    assert_array_equal(np.load(merged_d), np.load(whole_d))


def test_merge_knn_names_what_is_wrong(tmp_path, rng):
    d = save(tmp_path, "d.npy", np.zeros((3, 2), np.float32))
    i = save(tmp_path, "i.npy", np.zeros((3, 2), np.int64))
    d4 = save(tmp_path, "d4.npy", np.zeros((4, 2), np.float32))
    out = tmp_path / "o.npy"
    assert "but 1 of --parts-indices" in run(
        "merge-knn", "--parts-distances", d, d, "--parts-indices", i, "-k", 1, "--indices", out,
        device=False, expect_ok=False).stderr
    assert "d4.npy" in run("merge-knn", "--parts-distances", d, d4, "--parts-indices", i, i, "-k", 1,
                           "--indices", out, device=False, expect_ok=False).stderr
    assert "--pad" in run("merge-knn", "--parts-distances", d, "--parts-indices", i, "-k", 3,
                          "--indices", out, device=False, expect_ok=False).stderr
    assert not out.exists()


def test_self_knn_leaves_each_point_out(tmp_path, rng):
    x = rng.standard_normal((30, 3))
    idx = tmp_path / "i.npy"
    run("knn", save(tmp_path, "x.npy", x), "-k", 3, "--indices", idx, "-q")
    got = np.load(idx)
    assert not (got == np.arange(30)[:, None]).any()
    full = distance.cdist(x, x)
    np.fill_diagonal(full, np.inf)
    assert_array_equal(got, np.argsort(full, axis=1, kind="stable")[:, :3])


@pytest.mark.parametrize("kind, metric, opencv", [("sift_u8", "euclidean", 80), ("orb", "hamming_bits", 53)])
def test_match_on_the_box_descriptors_keeps_what_opencv_keeps(kind, metric, opencv, tmp_path):
    out, dist = tmp_path / "m.npy", tmp_path / "d.npy"
    query = DATA / "descriptors" / f"box_a_{kind}.npy"
    train = DATA / "descriptors" / f"box_b_{kind}.npy"
    run("match", query, train, "--metric", metric, "-o", out, "--distances", dist, "-q")
    got = np.load(out)
    assert got.dtype == np.int32 and got.shape == (opencv, 2)
    assert (np.diff(got[:, 0]) > 0).all(), "ordered by query, one match per query"
    full = distance.cdist(np.load(query).astype(np.float64), np.load(train).astype(np.float64))
    if metric == "hamming_bits":
        bits = lambda a: np.unpackbits(np.load(a), axis=1).astype(np.float64)
        full = distance.cdist(bits(query), bits(train), "cityblock")
    assert_allclose(np.load(dist).ravel(), full[got[:, 0], got[:, 1]], rtol=1e-6)
    assert_allclose(full[got[:, 0], got[:, 1]], full[got[:, 0]].min(axis=1), rtol=1e-12)


def test_radius_returns_every_pair_within_r(tmp_path, rng):
    x, y = rng.standard_normal((25, 2)), rng.standard_normal((40, 2))
    prefix = tmp_path / "r"
    run("radius", save(tmp_path, "x.npy", x), save(tmp_path, "y.npy", y), "--r", 0.8, "-o", prefix, "-q")
    offsets = np.load(f"{prefix}_offsets.npy").ravel()
    indices = np.load(f"{prefix}_indices.npy").ravel()
    full = distance.cdist(x, y)
    for i in range(len(x)):
        assert_array_equal(indices[offsets[i]:offsets[i + 1]], np.flatnonzero(full[i] <= 0.8))


def test_minplus_with_witness(tmp_path, rng):
    a = rng.integers(0, 50, (13, 17)).astype(np.int32)
    b = rng.integers(0, 50, (17, 11)).astype(np.int32)
    out, witness = tmp_path / "c.npy", tmp_path / "w.npy"
    run("minplus", save(tmp_path, "a.npy", a), save(tmp_path, "b.npy", b), "-o", out,
        "--witness", witness, "-q")
    sums = a[:, :, None] + b[None, :, :]
    assert_array_equal(np.load(out), sums.min(axis=1))
    w = np.load(witness)
    assert_array_equal(np.take_along_axis(sums, w[:, None, :], axis=1)[:, 0, :], sums.min(axis=1))


def test_apsp_on_uscounties_matches_scipy_and_prints_a_path(tmp_path):
    graph = DATA / "sparse" / "uscounties.mtx"
    out, nxt = tmp_path / "d.npy", tmp_path / "n.npy"
    done = run("apsp", graph, "-o", out, "--next", nxt, "--path", 0, 3000)
    want = csgraph.shortest_path(scipy.io.mmread(graph).tocsr(), method="D", directed=False)
    assert_allclose(np.load(out), want, rtol=1e-12)
    assert "0" in done.stdout and "3000" in done.stdout


@pytest.mark.parametrize("name", ["lund_a.mtx", "pores_1.mtx"])
def test_spmv_matches_scipy(name, tmp_path, rng):
    a = scipy.io.mmread(DATA / "sparse" / name).tocsr()
    x = rng.standard_normal(a.shape[1])
    out = tmp_path / "y.npy"
    run("spmv", DATA / "sparse" / name, save(tmp_path, "x.npy", x), "-o", out, "--alpha", 2, "-q")
    assert_allclose(np.load(out).ravel(), 2 * (a @ x), rtol=1e-12, atol=1e-12 * abs(a).sum())


def test_malformed_matrix_market_is_rejected_with_its_name_and_line(tmp_path):
    done = run("spmv", DATA / "sparse" / "wrong.mtx", save(tmp_path, "x.npy", np.ones(2)), "-o",
               tmp_path / "y.npy", expect_ok=False)
    assert "wrong.mtx" in done.stderr and "line" in done.stderr


def test_unknown_metric_is_rejected_by_name(tmp_path):
    x = save(tmp_path, "x.npy", np.ones((2, 2)))
    done = run("cdist", x, x, "-o", tmp_path / "d.npy", "--metric", "nosuch", expect_ok=False)
    assert "nosuch" in done.stderr and "euclidean" in done.stderr


def test_mismatched_columns_are_rejected(tmp_path):
    done = run("cdist", save(tmp_path, "x.npy", np.ones((2, 3))), save(tmp_path, "y.npy", np.ones((2, 4))),
               "-o", tmp_path / "d.npy", expect_ok=False)
    assert "columns" in done.stderr


def test_truncated_npy_is_rejected_with_its_name(tmp_path):
    path = save(tmp_path, "x.npy", np.ones((20, 20)))
    path.write_bytes(path.read_bytes()[:200])
    done = run("pdist", path, "-o", tmp_path / "d.npy", expect_ok=False)
    assert "x.npy" in done.stderr


def test_demo_matches_the_shipped_descriptors():
    done = run("demo")
    assert "OpenCV's BFMatcher keeps 80" in done.stdout and "OpenCV's BFMatcher keeps 53" in done.stdout


@pytest.mark.parametrize("device, says", [("cuda:0,0", "names cuda:0 twice"),
                                          ("cuda:0,x", "not a CUDA ordinal")])
def test_a_bad_device_set_is_refused_naming_it(device, says, tmp_path, rng):
    x = save(tmp_path, "x.npy", rng.random((6, 3)).astype(np.float32))
    done = run("knn", x, x, "-k", "2", "--indices", tmp_path / "i.npy", "--device", device,
               device=False, expect_ok=False)
    assert says in done.stderr
    assert not (tmp_path / "i.npy").exists()


def test_a_device_set_gives_the_single_device_answer(tmp_path, rng):
    # cuda:all splits the database over every GPU and merges exactly; on one GPU it is that GPU.
    if DEVICE == "cpu":
        pytest.skip("device sets name GPUs")
    x = save(tmp_path, "x.npy", rng.random((40, 8)).astype(np.float32))
    y = save(tmp_path, "y.npy", rng.random((301, 8)).astype(np.float32))
    for name, device in (("one", "cuda:0"), ("all", "cuda:all")):
        run("knn", x, y, "-k", "7", "--indices", tmp_path / f"i_{name}.npy",
            "--distances", tmp_path / f"d_{name}.npy", "--device", device, device=False)
    for kind in "id":
        assert_array_equal(np.load(tmp_path / f"{kind}_one.npy"), np.load(tmp_path / f"{kind}_all.npy"))
