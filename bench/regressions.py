"""Flags cases that got slower: each case's time against its newest committed result on the same
device (bench/results/*.json, newest file first by its dated name), so a regression shows up in
the report of the run that caused it rather than in a later comparison by hand."""
import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
TOLERANCE = 1.10  # slower than this factor of the last committed time is flagged


def committed_times(device, results=RESULTS):
    """{(id, description): (time_us, file name)} from the newest committed run of each case."""
    times = {}
    for path in sorted(results.glob("*.json"), reverse=True):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if data.get("device") != device:
            continue
        for case in data.get("cases", []):
            key = (case.get("id"), case.get("description"))
            if case.get("time_us") and key not in times:
                times[key] = (case["time_us"], path.name)
    return times


def slowdowns(cases, device, results=RESULTS, tolerance=TOLERANCE):
    """Report lines for the cases more than `tolerance` times slower than last committed."""
    before = committed_times(device, results)
    lines = []
    for case in cases:
        key = (case["id"], case["description"])
        if key not in before or not case.get("time_us"):
            continue
        then, source = before[key]
        if case["time_us"] > tolerance * then:
            lines.append(f"- SLOWER: {case['id']} {case['description']}: {case['time_us']:.1f} us, "
                         f"{case['time_us'] / then:.2f}x the {then:.1f} us of {source}")
    return lines
