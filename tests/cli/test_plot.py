"""The benchmark pictures: bench/plot.py and report.py --plot on a committed run, and
`cudist bench --plot` end to end on the CPU suite; `cudist bench --case` runs only the cases named."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUN = ROOT / "bench/results/2026-11-21-H100-run2-all-suites.json"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

if os.environ.get("CUDIST_DEVICE", "cpu") != "cpu":
    pytest.skip("pictures do not depend on the device: the cpu run draws them", allow_module_level=True)
if os.environ.get("CI") != "true":  # CI's scripts/setup.sh installs matplotlib: there it must be present
    pytest.importorskip("matplotlib", reason="scripts/setup.sh installs matplotlib")
sys.path.insert(0, str(ROOT / "bench"))
import plot  # noqa: E402  bench/plot.py


def is_png(path):
    return path.read_bytes()[:8] == PNG_MAGIC and path.stat().st_size > 10_000


def test_committed_run_draws_one_mark_per_case(tmp_path):
    doc = json.loads(RUN.read_text())
    ids = {c["id"] for c in doc["cases"]}  # the merged file repeats a case once per peer
    out = tmp_path / "run.png"
    assert plot.plot(doc, out) == len(ids) == 24
    assert is_png(out)


def test_raw_and_merged_rows_give_the_same_peers():
    raw = {"cases": [{"id": "D1", "suite": "dense", "time_us": 10, "floor_us": 3, "peer": "torch", "peer_us": 50},
                     {"id": "S1", "suite": "sparse", "time_us": 5, "floor_us": 4, "peer": "", "peer_us": 0}]}
    merged = {"cases": [dict(raw["cases"][0], peer_name="torch", peer_time_us=50),
                        dict(raw["cases"][0], peer_name="scipy", peer_time_us=900),
                        dict(raw["cases"][1], peer_name="", peer_time_us=None)]}
    assert [c["peers"] for c in plot.cases_of(raw)] == [[("torch", 50)], []]
    assert [c["peers"] for c in plot.cases_of(merged)] == [[("torch", 50), ("scipy", 900)], []]


def test_nothing_to_draw_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="no case"):
        plot.plot({"cases": [{"id": "X", "time_us": 0, "floor_us": 0}]}, tmp_path / "x.png")


def test_report_draws_the_merged_run(tmp_path):
    out = tmp_path / "report.png"
    done = subprocess.run([sys.executable, str(ROOT / "bench/report.py"), str(RUN), "--plot", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "plot: 24 cases drawn" in done.stdout and is_png(out)


def test_cli_bench_plot_on_the_cpu_suite(tmp_path):
    out = tmp_path / "bench.png"
    done = subprocess.run([os.environ.get("CUDIST_CLI", "cudist"), "bench", "--suite", "cpu", "--quick",
                           "--repeats", "1", "--plot", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "cases drawn to" in done.stdout and is_png(out)
    assert not (tmp_path / "bench.png.json").exists()  # the scratch JSON is removed


def test_cli_bench_runs_only_the_cases_asked_for(tmp_path):
    cli = os.environ.get("CUDIST_CLI", "cudist")
    out = tmp_path / "bench.json"
    done = subprocess.run([cli, "bench", "--suite", "cpu", "--quick", "--repeats", "1", "--case", "C1",
                           "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert [c["id"] for c in json.loads(out.read_text())["cases"]] == ["C1"]
    done = subprocess.run([cli, "bench", "--suite", "cpu", "--quick", "--repeats", "1", "--case", "X9"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode != 0 and "no case of the suites run matches the --case ids given" in done.stderr
