"""The cudist tool's promises about its files: Ctrl-C stops a long command within a second or
two with exit code 130 and writes nothing; an output that is an input (by any spelling or link)
or another output is refused before anything is read; a finished output appears whole.

Run by ctest with test_cli.py (same CUDIST_CLI / CUDIST_DEVICE environment)."""

import os
import signal
import subprocess
import time

import numpy as np
import pytest

CLI = os.environ.get("CUDIST_CLI", "cudist")
DEVICE = os.environ.get("CUDIST_DEVICE", "cpu")


def run(*args):
    return subprocess.run([CLI, *map(str, args), "--device", DEVICE], capture_output=True, text=True, timeout=120)


def leftovers(directory, keep):
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


@pytest.fixture
def points(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.random.default_rng(3).standard_normal((40, 8)).astype(np.float32))
    return path


@pytest.mark.skipif(DEVICE != "cpu", reason="a GPU finishes any job this test can afford within the second "
                    "before the signal; a single CUDA kernel is not interrupted")
def test_sigint_stops_a_long_command_with_130_and_no_output(tmp_path):
    # A self-join far too long to finish (30000^2 x 256 on the CPU: minutes), interrupted once it
    # is under way.
    x = tmp_path / "x.npy"
    np.save(x, np.random.default_rng(1).standard_normal((30000, 256)).astype(np.float32))
    out = tmp_path / "d.npy"
    proc = subprocess.Popen([CLI, "knn", str(x), "-k", "5", "--distances", str(out), "--device", DEVICE],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    assert proc.poll() is None, f"the job ended before the signal: {proc.communicate()}"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, stderr = proc.communicate(timeout=10)
    finally:
        proc.kill()
    stopped_after = time.monotonic() - sent
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr
    assert stopped_after < 2.0, f"took {stopped_after:.2f} s to stop"
    assert leftovers(tmp_path, {"x.npy"}) == []  # neither d.npy nor a temporary file


@pytest.mark.parametrize("spelling", ["same", "dot", "symlink", "hardlink"])
def test_output_that_is_the_input_is_refused(spelling, tmp_path, points):
    before = points.read_bytes()
    output = {"same": lambda: points,
              "dot": lambda: tmp_path / "." / "x.npy"}.get(spelling, lambda: tmp_path / "alias.npy")()
    if spelling == "symlink":
        output.symlink_to(points)
    elif spelling == "hardlink":
        os.link(points, output)
    done = run("cdist", points, points, "-o", output)
    assert done.returncode == 1
    assert "--output" in done.stderr and "input X" in done.stderr and str(output) in done.stderr, done.stderr
    assert points.read_bytes() == before


def test_each_command_refuses_to_overwrite_its_inputs(tmp_path, points):
    graph = tmp_path / "g.mtx"
    graph.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1.5\n")
    prefixed = tmp_path / "r_offsets.npy"  # radius writes PREFIX_offsets.npy
    prefixed.write_bytes(points.read_bytes())
    cases = [("pdist", points, "-o", points),
             ("knn", points, "-k", 2, "--indices", points),
             ("match", points, points, "--distances", points, "-o", tmp_path / "m.npy"),
             ("radius", prefixed, points, "--r", 1, "-o", tmp_path / "r"),
             ("minplus", points, points, "--witness", points, "-o", tmp_path / "w.npy"),
             ("apsp", graph, "-o", graph),
             ("spmv", graph, points, "-o", points)]
    for args in cases:
        done = run(*args)
        assert done.returncode == 1 and "would destroy the input" in done.stderr, (args, done.stderr)


def test_two_outputs_on_one_file_are_refused(tmp_path, points):
    out = tmp_path / "o.npy"
    done = run("knn", points, "-k", 2, "--indices", out, "--distances", out)
    assert done.returncode == 1 and "--indices" in done.stderr and "--distances" in done.stderr, done.stderr
    assert not out.exists()


def test_a_written_output_is_whole_and_leaves_no_temporary_file(tmp_path, points):
    out = tmp_path / "d.npy"
    out.write_bytes(b"an older result")  # replaced, not truncated and rewritten
    assert run("cdist", points, points, "-o", out, "-q").returncode == 0
    assert np.load(out).shape == (40, 40)
    assert leftovers(tmp_path, {"x.npy", "d.npy"}) == []
