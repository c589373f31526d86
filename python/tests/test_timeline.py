"""CUDIST_TIMELINE: a process that sets it leaves a Chrome trace of its calls' steps when it exits
(include/cudist/core/timeline.hpp)."""

import json
import os
import subprocess
import sys


def test_timeline_names_each_call_and_its_steps(tmp_path):
    trace = tmp_path / "trace.json"
    code = ("import numpy as np, cudist\n"
            "x = np.arange(400, dtype=np.float32).reshape(50, 8)\n"
            "cudist.knn(x, x[:30], 3)\n"
            "cudist.cdist(x, x[:30])\n")
    env = dict(os.environ, CUDIST_TIMELINE=str(trace))
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=300)
    events = json.loads(trace.read_text())["traceEvents"]
    names = [e["name"] for e in events]
    assert names.count("knn") == 1 and names.count("cdist") == 1, names
    assert "plan (inputs staged where the device reads them)" in names
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in events)
    # The package's own span holds the library's call: the Python side of it is the difference.
    python = next(e for e in events if e["name"] == "cudist.knn (Python)")
    library = next(e for e in events if e["name"] == "knn")
    assert python["tid"] == library["tid"]
    assert python["ts"] <= library["ts"] and library["ts"] + library["dur"] <= python["ts"] + python["dur"] + 1e-3


def test_spans_of_callers_own_steps_and_the_public_functions_unchanged(tmp_path):
    import cudist
    from cudist import _cudist
    assert not _cudist.timeline_on()  # this process did not set CUDIST_TIMELINE
    with _cudist.TimelineSpan("not recorded"):
        pass
    assert cudist.knn.__name__ == "knn" and "nearest" in cudist.knn.__doc__
    assert "XA" in str(__import__("inspect").signature(cudist.cdist))


def test_an_unwritable_timeline_is_reported_at_exit(tmp_path):
    code = "import numpy as np, cudist\ncudist.cdist(np.ones((3, 2)), np.ones((4, 2)))\n"
    env = dict(os.environ, CUDIST_TIMELINE=str(tmp_path / "no-such-dir" / "trace.json"))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0  # the work is not lost for want of its trace
    assert "no-such-dir" in done.stderr and "CUDIST_TIMELINE" in done.stderr
