#!/usr/bin/env python3
"""Draws a benchmark run as a roofline-style picture: each case is one filled mark at (its floor,
its time), so the diagonal is "at the floor" and the height above it is how far from the hardware
a case is; its peers (torch, scipy, ...) are hollow marks on the same vertical, joined to it.

Reads `cudist bench --json` output or a merged bench/results/*.json (report.py):
    python3 bench/plot.py RESULTS.json OUT.png
`cudist bench --plot OUT.png` and `bench/report.py --plot OUT.png` call this."""
import argparse
import json
import sys


def cases_of(doc):
    """One entry per case id: its suite, time, floor and the peers' (name, time) pairs. Raw bench
    output names one built-in peer per case (peer, peer_us); report.py's merged rows repeat a
    case once per peer (peer_name, peer_time_us)."""
    cases = {}
    for row in doc.get("cases", []):
        case = cases.setdefault(row["id"], {"id": row["id"], "suite": row.get("suite", ""),
                                            "time_us": row["time_us"], "floor_us": row["floor_us"],
                                            "peers": []})
        name = row.get("peer_name", row.get("peer", ""))
        time = row.get("peer_time_us", row.get("peer_us"))
        if name and time:
            case["peers"].append((name, time))
    return [c for c in cases.values() if c["time_us"] > 0 and c["floor_us"] > 0]


def plot(doc, path):
    """Writes the picture of doc (a results dict) to path; returns the number of cases drawn."""
    import matplotlib
    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    cases = cases_of(doc)
    if not cases:
        raise ValueError("no case with a time and a floor to plot")
    suites = sorted({c["suite"] for c in cases})
    colors = {s: plt.get_cmap("tab10")(i % 10) for i, s in enumerate(suites)}
    fig, ax = plt.subplots(figsize=(8, 6.5))
    values = [v for c in cases for v in [c["time_us"], c["floor_us"]] + [t for _, t in c["peers"]]]
    lo, hi = min(values) / 2, max(values) * 2
    for factor, style in [(1, "-"), (2, "--"), (10, ":")]:
        ax.plot([lo, hi], [lo * factor, hi * factor], style, color="grey", linewidth=0.8)
        ax.annotate("floor" if factor == 1 else f"{factor}x floor", (hi / 1.5, hi / 1.5 * factor),
                    color="grey", fontsize=8, ha="right", va="bottom")
    peer_names = set()
    for c in cases:
        color = colors[c["suite"]]
        for name, time in c["peers"]:
            ax.plot([c["floor_us"]] * 2, [c["time_us"], time], color=color, linewidth=0.6, alpha=0.6)
            ax.scatter(c["floor_us"], time, s=36, facecolors="none", edgecolors=color, linewidths=1)
            peer_names.add(name)
        ax.scatter(c["floor_us"], c["time_us"], s=42, color=color, zorder=3,
                   label=c["suite"] if c is next(d for d in cases if d["suite"] == c["suite"]) else None)
        ax.annotate(c["id"], (c["floor_us"], c["time_us"]), xytext=(4, -3), textcoords="offset points", fontsize=7)
    if peer_names:
        ax.scatter([], [], s=36, facecolors="none", edgecolors="black", label="peer: " + ", ".join(sorted(peer_names)))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi * 10)
    ax.set_xlabel("floor: time at the measured ceiling (us)")
    ax.set_ylabel("time (us)")
    ax.set_title(f"cudist bench on {doc.get('device', '?')}: {len(cases)} cases", fontsize=10)
    ax.legend(fontsize=7, loc="lower right")  # below the diagonal: nothing is faster than its floor
    ax.grid(True, which="major", linewidth=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return len(cases)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", help="cudist bench --json output or a bench/results/*.json")
    ap.add_argument("out", help="picture to write (.png, .svg, .pdf)")
    args = ap.parse_args()
    with open(args.results) as f:
        drawn = plot(json.load(f), args.out)
    print(f"plot: {drawn} cases drawn to {args.out}")


if __name__ == "__main__":
    sys.exit(main())
