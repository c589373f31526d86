#!/usr/bin/env python3
"""The SASS lines of one profiled kernel that take the most warp stall samples and executed
instructions, from an ncu report: what to read first when a kernel is slower than its floor.

    ncu --set full --import-source yes -k regex:NAME --launch-count 1 -o rep BINARY ARGS
    scripts/ncu_hotspots.py rep.ncu-rep [--top 40]
"""
import argparse
import csv
import io
import subprocess
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report")
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    if args.report.endswith(".csv"):  # the table already exported (ncu --page source --csv)
        sass = open(args.report).read()
    else:
        sass = subprocess.run(["ncu", "--import", args.report, "--page", "source", "--print-source", "sass", "--csv"],
                              check=True, capture_output=True, text=True).stdout
    # The table follows a line naming the kernel.
    start = sass.index('"Address"')
    rows = list(csv.DictReader(io.StringIO(sass[start:])))
    if not rows:
        sys.exit("ncu_hotspots: no SASS rows in " + args.report)
    columns = [k for k in rows[0] if k]
    samples = next((k for k in columns if k.startswith("Warp Stall Sampling (All")), None)
    executed = next((k for k in columns if k.startswith("Instructions Executed")), None)
    if samples is None or executed is None:
        sys.exit("ncu_hotspots: no stall / executed columns among " + ", ".join(columns))
    total_s = sum(number(r[samples]) for r in rows) or 1.0
    total_e = sum(number(r[executed]) for r in rows) or 1.0
    print(f"{len(rows)} SASS lines; {total_s:.0f} stall samples; {total_e:.3g} warp instructions executed")
    for key, total, label in ((samples, total_s, "stall samples"), (executed, total_e, "instructions executed")):
        print(f"\n-- top {args.top} lines by {label}")
        for r in sorted(rows, key=lambda r: -number(r[key]))[: args.top]:
            print(f"{100 * number(r[key]) / total:5.1f}%  {r.get('Address', ''):>6}  {r.get('Source', '')[:110]}")
    print_opcodes(rows, executed, total_e)


def opcode(source):
    """The instruction's opcode without its modifiers: "@!P1 FSETP.GE.AND P0, ..." -> "FSETP"."""
    words = source.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else "?"


def print_opcodes(rows, executed, total):
    """Executed instructions by opcode: where a kernel whose lines all run equally often (an
    epilogue-bound one) spends its issue slots."""
    counts = {}
    for r in rows:
        op = opcode(r.get("Source", ""))
        counts[op] = counts.get(op, 0.0) + number(r[executed])
    print("\n-- executed instructions by opcode")
    for op, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        if n / total >= 0.002:
            print(f"{100 * n / total:5.1f}%  {n:12.4g}  {op}")


if __name__ == "__main__":
    main()
