#!/usr/bin/env python3
"""What a CUDIST_TIMELINE trace says, as text: per call name, the median call and the median time
of each step inside it (any thread, by time: the parts of a device set run on threads of their
own; a step on several threads is summed over them), so the host side of a call can be read
without a trace viewer.

    CUDIST_TIMELINE=trace.json python3 my_job.py
    scripts/timeline_summary.py trace.json [--calls knn,match] [--tree]

--tree also prints the median call of each name as it ran: each thread's spans in time order,
indented by nesting, with their start from the call's start. The totals above add a step's
nested spans to its own (a download that waits for the kernels before it counts both), so the
tree is what says which step the time of a call is spent in.
"""
import argparse
import json
import statistics
from collections import defaultdict

CALLS = ("knn", "self_knn", "knn_batched", "match", "match_batched", "radius", "cdist", "pdist",
         "sparse product", "semiring_product", "apsp")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--calls", default=",".join(CALLS), help="span names that are calls")
    ap.add_argument("--tree", action="store_true", help="the median call of each name, span by span")
    args = ap.parse_args()
    calls = set(args.calls.split(","))
    events = sorted(json.load(open(args.trace))["traceEvents"], key=lambda e: e["ts"])
    outer = [e for e in events if e["name"] in calls]
    # A call nested in another (a device set's part calling knn) is a step of the outer one.
    tops = [c for c in outer if not any(o is not c and o["ts"] <= c["ts"] and
                                        c["ts"] + c["dur"] <= o["ts"] + o["dur"] for o in outer)]
    per_name = defaultdict(list)
    for call in tops:
        end = call["ts"] + call["dur"]
        steps = defaultdict(float)
        for e in events:
            if e is not call and call["ts"] <= e["ts"] and e["ts"] + e["dur"] <= end:
                steps[e["name"]] += e["dur"]
        # Calls on a device set (their parts are spans of their own) apart from one-device calls.
        on_set = "part on one device of the set" in steps
        per_name[call["name"] + (" on a device set" if on_set else "")].append((call["dur"], steps, call))
    for name, runs in per_name.items():
        print(f"{name}: {len(runs)} calls, median {statistics.median(d for d, _, _ in runs) / 1e3:.2f} ms")
        names = sorted({s for _, steps, _ in runs for s in steps})
        rows = [(statistics.median(steps.get(s, 0.0) for _, steps, _ in runs), s) for s in names]
        for t, s in sorted(rows, reverse=True):
            print(f"  {t / 1e3:9.2f} ms  {s}")
        if args.tree:
            median_call = sorted(runs, key=lambda r: r[0])[len(runs) // 2][2]
            print_tree(median_call, events)


def print_tree(call, events):
    """The spans inside `call`, thread by thread in time order, indented by nesting."""
    end = call["ts"] + call["dur"]
    inside = [e for e in events if call["ts"] <= e["ts"] and e["ts"] + e["dur"] <= end]
    print(f"  the median call ({call['dur'] / 1e3:.2f} ms), span by span (start from the call's, ms):")
    for tid in sorted({e["tid"] for e in inside}, key=lambda t: min(e["ts"] for e in inside if e["tid"] == t)):
        print(f"    thread {tid}")
        open_ends = []  # ends of the spans that enclose the next one
        for e in (e for e in inside if e["tid"] == tid):
            while open_ends and e["ts"] >= open_ends[-1]:
                open_ends.pop()
            note = f" ({e['args']['bytes'] / 1e6:.1f} MB)" if "bytes" in e.get("args", {}) else ""
            print(f"    {'  ' * len(open_ends)}{(e['ts'] - call['ts']) / 1e3:8.2f} +{e['dur'] / 1e3:7.2f}  {e['name']}{note}")
            open_ends.append(e["ts"] + e["dur"])


if __name__ == "__main__":
    main()
