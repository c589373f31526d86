"""cdist / pdist write their .npy in place (a memory-mapped file under a temporary name, renamed
when complete): a long job draws a progress bar on a terminal, and a job interrupted half way
leaves neither a result nor a temporary file, and an older result untouched.

Run by ctest with test_cli.py (same CUDIST_CLI / CUDIST_DEVICE environment)."""

import os
import pty
import select
import signal
import subprocess
import time

import numpy as np
import pytest

CLI = os.environ.get("CUDIST_CLI", "cudist")
DEVICE = os.environ.get("CUDIST_DEVICE", "cpu")


def read_until(fd, needle, timeout):
    """What the terminal `fd` shows until `needle` appears or `timeout` seconds pass."""
    seen = b""
    deadline = time.monotonic() + timeout
    while needle not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:  # the other side closed
                break
    return seen


def test_the_mapped_output_of_a_cdist_is_the_matrix(tmp_path):
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal((301, 5)), rng.standard_normal((77, 5))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    out = tmp_path / "d.npy"
    done = subprocess.run([CLI, "cdist", tmp_path / "x.npy", tmp_path / "y.npy", "-o", out, "--metric",
                           "cityblock", "-q", "--device", DEVICE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    want = np.abs(x[:, None, :] - y[None, :, :]).sum(axis=2)
    np.testing.assert_allclose(np.load(out), want, rtol=1e-12, atol=1e-12)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.npy", "x.npy", "y.npy"]


@pytest.mark.skipif(DEVICE != "cpu", reason="a GPU finishes this job (or one window) within the "
                    "second the test waits; a single CUDA kernel is not interrupted")
def test_an_interrupted_cdist_shows_progress_and_leaves_no_file(tmp_path):
    # 6000^2 pairs of 4096 columns: seconds on two cores, so the CLI computes it in ~50 windows of
    # rows with a progress bar; Ctrl-C once the bar has moved.
    x = tmp_path / "x.npy"
    np.save(x, np.random.default_rng(1).standard_normal((6000, 4096)).astype(np.float32))
    out = tmp_path / "d.npy"
    out.write_bytes(b"an older result")
    terminal, terminal_side = pty.openpty()
    proc = subprocess.Popen([CLI, "cdist", x, x, "-o", out, "--device", DEVICE],
                            stdout=subprocess.PIPE, stderr=terminal_side)
    os.close(terminal_side)
    try:
        shown = read_until(terminal, b"%", timeout=60)
        assert proc.poll() is None, f"the job ended before the signal: {shown!r}"
        assert b"cdist [" in shown, shown
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
        shown += read_until(terminal, b"interrupted", timeout=5)
    finally:
        proc.kill()
        os.close(terminal)
    assert proc.returncode == 130, shown
    assert b"interrupted" in shown
    assert out.read_bytes() == b"an older result"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.npy", "x.npy"]  # no temporary file
