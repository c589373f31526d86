#!/usr/bin/env python3
"""What NVIDIA's tuned kernels reach on this GPU at the shapes of cudist's open FP32 SIMT cases
(issue 13: D1, D2, D6, D7, M1, M2; and D8), beside cudist's own figures from the same run.

Two yardsticks a case. The first is cuBLAS's float32 GEMM through torch with TF32 off, so that it
runs on the FP32 pipes as those cases do, sized to issue the case's FP32 instructions into an
output of the case's shape: D6's |x - y| sums are two FADDs a term at d = 128, the instructions of
a 10000^2 GEMM of depth 256; D1's (x - y)^2 sums an FADD and an FFMA a term at d = 16, a
2048 x 1024 GEMM of depth 32. Its floor is that count at the FMA ceiling that `cudist bench`
measured in the same run (--bench-json), so "floor / time" is the fraction of the FP32 issue rate
it sustains. M1 and M2 also run half-rate FMNMX, so their own floor (FADD + FMNMX) is longer than
the matching GEMM's; their row compares the two fractions. The second is one kernel filling the
case's output: the least any single launch that writes it takes (D1's and D2's floor is the 8 MB
write).

    cudist bench --case D1 --case D6 ... --json /tmp/ours.json
    python3 bench/peers/fp32_yardsticks.py --bench-json /tmp/ours.json > yardsticks.json
    python3 bench/peers/fp32_yardsticks.py --only D6 --profile-once   # under ncu: the GEMMs

Timed as the torch peers are (torch_peers.median_us), which is how cudist bench times.
"""
import argparse
import json
import sys

import torch

from torch_peers import median_us

# case id -> (GEMM rows, columns, depth): the case's FP32 instruction count and output shape.
MATCHING_GEMMS = {
    "D1": (2048, 1024, 32),     # euclidean d = 16: FADD + FFMA a term
    "D2": (2048, 1024, 2),      # euclidean d = 1
    "D6": (10000, 10000, 256),  # cityblock d = 128: two FADDs a term
    "D7": (10000, 10000, 256),  # chebyshev d = 128: FADD + FMNMX (half rate) a term
    "D8": (10000, 10000, 512),  # cosine d = 512: one FFMA a term, the same GEMM
    "M1": (4096, 4096, 4096),   # min-plus 4096^3: FADD + FMNMX a term
    "M2": (8192, 8192, 8192),
}


def gemm_kernel_names(a, b):
    """The kernels one GEMM launches (proves the FP32 SIMT path: no tensor-core kernel)."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        torch.mm(a, b)
        torch.cuda.synchronize()
    return sorted({e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA})


def operands(m, n, k):
    g = torch.Generator(device="cuda").manual_seed(7)
    return (torch.rand(m, k, device="cuda", generator=g) * 2 - 1,
            torch.rand(k, n, device="cuda", generator=g) * 2 - 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench-json", help="cudist bench --json output of the same run (ceilings, our times)")
    parser.add_argument("--only", nargs="+", choices=sorted(MATCHING_GEMMS), help="these cases only")
    parser.add_argument("--profile-once", action="store_true",
                        help="run each GEMM a few times untimed (for ncu) and print nothing")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    cases = args.only or sorted(MATCHING_GEMMS)

    if args.profile_once:
        for cid in cases:
            a, b = operands(*MATCHING_GEMMS[cid])
            for _ in range(4):
                torch.mm(a, b)
            torch.cuda.synchronize()
        return

    ours, fma_per_s = {}, None
    if args.bench_json:
        with open(args.bench_json) as f:
            bench = json.load(f)
        fma_per_s = bench["ceilings"]["fma_per_s"]
        ours = {c["id"]: c for c in bench["cases"]}
    rows = []
    for cid in cases:
        m, n, k = MATCHING_GEMMS[cid]
        a, b = operands(m, n, k)
        gemm_us = median_us(lambda: torch.mm(a, b), repeats=20 if m * n * k < 1e12 else 7)
        output = torch.empty(m, n, device="cuda")
        fill_us = median_us(lambda: output.fill_(1.0))
        row = {"id": cid, "gemm": [m, n, k], "gemm_us": gemm_us, "gemm_kernels": gemm_kernel_names(a, b),
               "fill_us": fill_us}
        if fma_per_s:
            row["gemm_floor_us"] = m * n * k / fma_per_s * 1e6
            row["gemm_fraction_of_floor"] = row["gemm_floor_us"] / gemm_us
        if cid in ours:
            c = ours[cid]
            row.update(ours_us=c["time_us"], ours_floor_us=c["floor_us"], ours_floor_basis=c["floor_basis"],
                       ours_fraction_of_floor=c["floor_us"] / c["time_us"], gemm_over_ours=gemm_us / c["time_us"])
        rows.append(row)
        del a, b, output
        torch.cuda.empty_cache()

    for r in rows:
        line = (f"{r['id']:>3}  fill {r['fill_us']:8.1f} us  GEMM {'x'.join(map(str, r['gemm'])):>16} "
                f"{r['gemm_us']:10.1f} us")
        if "gemm_fraction_of_floor" in r:
            line += f" ({100 * r['gemm_fraction_of_floor']:.1f}% of its FFMA floor)"
        if "ours_us" in r:
            line += (f"   cudist {r['ours_us']:10.1f} us ({100 * r['ours_fraction_of_floor']:.1f}% of its "
                     f"{r['ours_floor_basis']} floor)   GEMM / cudist {r['gemm_over_ours']:.2f}")
        print(line, file=sys.stderr)
    # The events' own span around a kernel that does nothing: what every figure above includes.
    empty_kernel_us = median_us(lambda: torch.cuda._sleep(0))
    print(f"an empty kernel between the events: {empty_kernel_us:.1f} us", file=sys.stderr)
    json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "fma_per_s": fma_per_s,
               "empty_kernel_us": empty_kernel_us, "cases": rows}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
