#!/usr/bin/env python3
"""Merges `cudist bench --json` with the torch peers' JSON into the suite table of BENCHMARKS.md:
ours / floor and peer / ours, from one run. With --out DIR it also writes the table and the merged
JSON as bench/results/<date>-<device>.{md,json}; with --plot FILE the roofline picture (plot.py).
Cases more than 10% slower than their newest committed result on the same device are listed at
the end (bench/regressions.py)."""
import argparse
import datetime
import json
import os
import re

from regressions import slowdowns


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"cases": []}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ours")
    ap.add_argument("peers", nargs="*")
    ap.add_argument("--out", help="directory to write <date>-<device>.md/.json into")
    ap.add_argument("--plot", help="also draw the merged run (plot.py) into this picture")
    args = ap.parse_args()
    ours = load(args.ours)
    # A peer file's case "D3" is the peer of our D3; "D3-sklearn" is a further peer of it, shown
    # on a row of its own.
    peers = {}
    for p in args.peers:
        for c in load(p).get("cases", []):
            peers.setdefault(c["id"].split("-")[0], []).append(c)
    rows = []
    lines = [f"device: {ours.get('device', '?')}; date: {datetime.date.today()}",
             "",
             "| id | case | ours (us) | floor (us) | ours / floor | floor basis | peer | peer (us) | peer / ours | correct |",
             "|---|---|---:|---:|---:|---|---|---:|---:|---|"]
    for c in ours.get("cases", []):
        own = [{"id": c["id"], "peer": c["peer"], "peer_us": c["peer_us"], "note": ""}] if c.get("peer") else []
        # A peer file's entry with the case's own id replaces the suite's built-in peer.
        case_peers = peers.get(c["id"]) or []
        if not any(p["id"] == c["id"] for p in case_peers):
            case_peers = own + case_peers
        ratio = c["time_us"] / c["floor_us"] if c["floor_us"] else float("nan")
        for peer in case_peers or [None]:
            speedup = peer["peer_us"] / c["time_us"] if peer and c["time_us"] else None
            row = dict(c, ours_over_floor=ratio, peer_name=peer["peer"] if peer else "",
                       peer_time_us=peer["peer_us"] if peer else None, peer_over_ours=speedup,
                       peer_note=peer.get("note", "") if peer else "")
            rows.append(row)
            lines.append(f"| {c['id']} | {c['description']} | {c['time_us']:.1f} | {c['floor_us']:.1f} | {ratio:.2f} | "
                         f"{c['floor_basis']} | {row['peer_name']} | "
                         f"{'' if speedup is None else format(peer['peer_us'], '.1f')} | "
                         f"{'' if speedup is None else f'{speedup:.2f}x'} | {'yes' if c['correct'] else 'NO'} |")
    notes = [f"- {r['id']} {r['peer_name']}: {r['peer_note']}" for r in rows if r["peer_note"]]
    slower = slowdowns(ours.get("cases", []), ours.get("device"))
    text = "\n".join(lines + ([""] + ["Peer notes:"] + notes if notes else []) +
                     ([""] + [f"Slower than the last committed run by more than 10% ({len(slower)}):"] + slower
                      if slower else [])) + "\n"
    print(text, end="")
    if args.out:
        stem = f"{datetime.date.today()}-{re.sub(r'[^A-Za-z0-9]+', '-', ours.get('device', 'unknown')).strip('-')}"
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, stem + ".md"), "w") as f:
            f.write(text)
        with open(os.path.join(args.out, stem + ".json"), "w") as f:
            json.dump({"device": ours.get("device"), "ceilings": ours.get("ceilings"), "cases": rows}, f, indent=2)
    if args.plot:
        import plot  # bench/plot.py, beside this script
        drawn = plot.plot({"device": ours.get("device"), "cases": rows}, args.plot)
        print(f"plot: {drawn} cases drawn to {args.plot}")


if __name__ == "__main__":
    main()
