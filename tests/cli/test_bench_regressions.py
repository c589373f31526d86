"""bench/regressions.py: a case more than 10% slower than its newest committed result on the same
device is flagged; other devices, other cases and older files are not compared."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from regressions import slowdowns  # noqa: E402


def write(path, device, cases):
    path.write_text(json.dumps({"device": device, "cases": cases}))


def case(id_, time_us, description="case"):
    return {"id": id_, "description": description, "time_us": time_us}


def test_flags_only_slowdowns_against_the_newest_run_of_the_same_device(tmp_path):
    write(tmp_path / "2026-01-01-gpu.json", "GPU", [case("D1", 10.0), case("D2", 100.0)])
    write(tmp_path / "2026-02-01-gpu.json", "GPU", [case("D1", 20.0)])  # newer: D1's baseline
    write(tmp_path / "2026-03-01-other.json", "Other GPU", [case("D1", 1.0), case("D2", 1.0)])
    now = [case("D1", 21.9), case("D2", 111.0), case("D3", 5.0), case("D1", 99.0, "another D1 case")]
    lines = slowdowns(now, "GPU", results=tmp_path)
    assert len(lines) == 1
    assert lines[0].startswith("- SLOWER: D2 case: 111.0 us, 1.11x the 100.0 us of 2026-01-01-gpu.json")


def test_unreadable_files_are_skipped(tmp_path):
    (tmp_path / "2026-01-01-broken.json").write_text("{not json")
    write(tmp_path / "2026-01-02-gpu.json", "GPU", [case("D1", 10.0)])
    assert slowdowns([case("D1", 12.0)], "GPU", results=tmp_path) == [
        "- SLOWER: D1 case: 12.0 us, 1.20x the 10.0 us of 2026-01-02-gpu.json"]
