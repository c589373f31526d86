#!/usr/bin/env python3
"""Counts, per kernel whose name contains NAME_PART, the FFMAs and FADDs of a SASS listing
(scripts/sass.sh) that read two of their register sources from one bank, in a two-bank model (bank = register number
mod 2) where a source marked .reuse in the same slot of the instruction before comes from the
operand reuse cache instead. A model, not a measurement: ncu's dispatch stalls say whether it costs
time (docs/tuning.md, "The deep large tiles' issue").

    scripts/sass_banks.py OBJECT.sass NAME_PART
"""
import re
import sys


def kernels(text):
    for part in re.split(r"\n\s*Function : ", text)[1:]:
        name, body = part.split("\n", 1)
        yield name.strip(), body


def count(body):
    counts = {"FFMA": [0, 0], "FADD": [0, 0]}  # instructions, two sources from one bank
    reused = {}
    for line in body.split("\n"):
        m = re.search(r"\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)\s+([^;]*);", line)
        if not m:
            continue
        op, args = m.group(1).split(".")[0], [a.strip() for a in m.group(2).split(",")]
        if op not in ("FFMA", "FADD", "FMUL"):
            reused = {}
            continue
        banks, now = [], {}
        for slot, arg in enumerate(args[1:]):
            r = re.match(r"-?\|?R(\d+)(\.reuse)?", arg)
            if not r:
                continue
            if r.group(2):
                now[slot] = r.group(1)
            if reused.get(slot) != r.group(1):
                banks.append(int(r.group(1)) % 2)
        reused = now
        if op in counts:
            counts[op][0] += 1
            counts[op][1] += len(banks) >= 2 and max(banks.count(0), banks.count(1)) >= 2
    return counts


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    found = False
    for name, body in kernels(open(sys.argv[1]).read()):
        if sys.argv[2] not in name:
            continue
        found = True
        print(name)
        for op, (total, same) in count(body).items():
            if total:
                print(f"  {op} {total}, two sources from one bank {same} ({100.0 * same / total:.0f}%)")
    if not found:
        sys.exit(f"sass_banks.py: no kernel whose name contains {sys.argv[2]!r}")


if __name__ == "__main__":
    main()
