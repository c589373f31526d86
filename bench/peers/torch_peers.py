#!/usr/bin/env python3
"""The torch peers of the benchmark suite (BENCHMARKS.md), on the same shapes, dtype and GPU as
`cudist bench`, timed as it times (bench/common/gpu_timer.cuh): CUDA-event median of 20 runs after
warm-up, L2 flushed and a 200 us spin queued before each run's start event, so that the host's
launch work is hidden as it is for cudist's own figures (it is not, for a 10 us kernel, otherwise). Where
torch's answer is less accurate than the float64 reference allows, the note says by how much."""
import argparse
import json
import sys

import torch

L2_FLUSH = None
SPIN_CYCLES = 400_000  # ~200 us at the H100's and H200's 1.98 GHz, as cudist bench's spin
CASES = None  # the case ids asked for (--cases); None: every case


def wants(case_id):
    return CASES is None or case_id in CASES


def median_us(fn, repeats=20, warmup=3):
    global L2_FLUSH
    if L2_FLUSH is None:
        L2_FLUSH = torch.empty(int(2 * torch.cuda.get_device_properties(0).L2_cache_size), dtype=torch.uint8,
                               device="cuda")
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        L2_FLUSH.zero_()
        torch.cuda._sleep(SPIN_CYCLES)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000.0)
    times.sort()
    return times[len(times) // 2]


def rand(m, d, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.rand(m, d, device="cuda", generator=g) * 2 - 1


def max_error(got, x, y, p):
    """Largest |torch - float64 reference| over three sampled rows."""
    rows = [0, x.shape[0] // 2, x.shape[0] - 1]
    ref = torch.cdist(x[rows].double(), y.double(), p=p)
    return (got[rows].double() - ref).abs().max().item()


def dense_cases():
    out = []
    for cid, m, n, d, p in [("D1", 2048, 1024, 16, 2.0), ("D2", 2048, 1024, 1, 2.0), ("D5", 10000, 10000, 3, 2.0),
                            ("D6", 10000, 10000, 128, 1.0), ("D7", 10000, 10000, 128, float("inf"))]:
        if not wants(cid):
            continue
        x, y = rand(m, d, 1), rand(n, d, 2)
        us = median_us(lambda: torch.cdist(x, y, p=p), repeats=5 if p != 2.0 else 20)
        out.append({"id": cid, "peer": "torch.cdist", "peer_us": us,
                    "note": f"max err {max_error(torch.cdist(x, y, p=p), x, y, p):.2e}"})
    if wants("D3"):
        out.append(d3_case("D3", "torch.cdist**2", "matmul path"))
    if wants("D3u"):
        out.append(d3_bytes_case("D3u", torch.uint8, 0, 256))
    if wants("D3i"):
        out.append(d3_bytes_case("D3i", torch.int8, -128, 128))
    if wants("D4") or wants("D4c"):
        out.extend(d4_cases())
    if wants("D8"):
        out.append(d8_case("D8", "normalize+matmul", "TF32 off: fp32 matmul"))
    if wants("D3t") or wants("D8t"):
        out.extend(tf32_cases())
    return out


def tf32_cases():
    """D3t, D8t: torch's matmul paths with TF32 allowed, against cudist's precision='tf32'."""
    out = []
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        if wants("D3t"):
            out.append(d3_case("D3t", "torch.cdist**2 tf32", "matmul path, TF32 on"))
        if wants("D8t"):
            out.append(d8_case("D8t", "normalize+matmul tf32", "TF32 on"))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = False
    return out


def d3_bytes_case(case_id, dtype, lo, hi):
    """D3's shape on byte rows (D3u uint8, D3i int8): torch has no integer cdist, so float32 copies
    through its matmul path, squared."""
    g = torch.Generator(device="cuda").manual_seed(3)
    xb = torch.randint(lo, hi, (4000, 128), dtype=dtype, device="cuda", generator=g)
    yb = torch.randint(lo, hi, (20000, 128), dtype=dtype, device="cuda", generator=g)
    d3 = lambda: torch.cdist(xb.float(), yb.float(), compute_mode="use_mm_for_euclid_dist") ** 2  # noqa: E731
    exact = torch.cdist(xb[[0, 1999, 3999]].double(), yb.double()) ** 2
    err = (d3()[[0, 1999, 3999]].double() - exact).abs().max().item()
    name = str(dtype).rpartition(".")[2]
    return {"id": case_id, "peer": "torch.cdist**2", "peer_us": median_us(d3),
            "note": f"float32 copies of the {name} rows, matmul path; max err {err:.2e} (exact: 0)"}


def d4_cases():
    out = []
    x = rand(30336, 2, 1)
    if wants("D4"):
        us = median_us(lambda: torch.cdist(x, x))
        self_err = torch.cdist(x, x).diagonal().abs().max().item()
        out.append({"id": "D4", "peer": "torch.cdist", "peer_us": us, "note": f"diagonal up to {self_err:.2e}, not 0"})
    if wants("D4c"):
        us = median_us(lambda: torch.pdist(x), repeats=3, warmup=1)
        out.append({"id": "D4c", "peer": "torch.pdist", "peer_us": us, "note": ""})
    return out


def d3_case(case_id, peer, note):
    """D3's shape (4000 x 20000 x 128) through torch.cdist's matmul path, squared."""
    x, y = rand(4000, 128, 1), rand(20000, 128, 2)
    us = median_us(lambda: torch.cdist(x, y) ** 2)
    return {"id": case_id, "peer": peer, "peer_us": us,
            "note": f"{note}; max err {max_error(torch.cdist(x, y), x, y, 2.0):.2e}"}


def d8_case(case_id, peer, note):
    """D8's shape (10000^2 x 512): cosine distances as 1 - normalized rows' matmul."""
    x, y = rand(10000, 512, 1), rand(10000, 512, 2)
    us = median_us(lambda: 1 - torch.nn.functional.normalize(x) @ torch.nn.functional.normalize(y).T)
    return {"id": case_id, "peer": peer, "peer_us": us, "note": note}


# The FAISS-style search's GEMM, by the precision of its operands: float32 on the FP32 pipes, or
# on the tensor cores as TF32 (float32 rows, 10-bit mantissas inside the GEMM), float16 or
# bfloat16 (rows rounded to 16 bits); float32 accumulation and product in every case.
GEMM_PRECISIONS = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def gemm_knn(x, y, k, chunk, precision="fp16"):
    """FAISS's brute-force method in torch: |y|^2 - 2 x.y from one GEMM per chunk of query rows
    (operands in `precision`, GEMM_PRECISIONS), then topk. Returns the indices."""
    dtype = GEMM_PRECISIONS[precision]
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    try:
        yg, yn = y.to(dtype), (y * y).sum(1)
        out = []
        for s in range(0, x.shape[0], chunk):
            d = yn - 2 * (x[s:s + chunk].to(dtype) @ yg.t()).float()
            out.append(d.topk(k, largest=False).indices)
        return torch.cat(out)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = False


def wrong_rows(indices, x, y, k, rows=256, exact_scores=None, largest=False):
    """Sampled rows whose k nearest (as a set) differ from the float64 answer's: euclidean unless
    exact_scores(x_rows, y) gives the float64 scores (largest first with largest=True)."""
    pick = torch.linspace(0, x.shape[0] - 1, rows, device=x.device).long()
    scores = exact_scores(x[pick], y) if exact_scores else torch.cdist(x[pick].double(), y.double())
    exact = scores.topk(k, largest=largest).indices
    return sum(set(a.tolist()) != set(b.tolist()) for a, b in zip(indices[pick], exact))


def fastest_chunk(run, rows, chunks=(1024, 2500, 5000, 10000)):
    """The chunk of query rows (of `chunks` up to `rows`, and all rows) for which run(chunk) is
    fastest, and what each took: the peer's own tuning, so that it is measured at its best."""
    tried = {c: median_us(lambda c=c: run(c), repeats=3, warmup=1) for c in sorted({min(c, rows) for c in chunks})}
    return min(tried, key=tried.get), tried


def gemm_knn_cases(case, x, y, k, repeats, precisions=("fp32", "tf32", "fp16", "bf16")):
    """The FAISS-style search at each GEMM precision, its chunk tuned: ids K?-gemm (fp16, as
    before) and K?-gemm-fp32 / -tf32 / -bf16."""
    out = []
    for precision in precisions:
        chunk, tried = fastest_chunk(lambda c: gemm_knn(x, y, k, c, precision), x.shape[0])
        us = median_us(lambda: gemm_knn(x, y, k, chunk, precision), repeats=repeats)
        wrong = wrong_rows(gemm_knn(x, y, k, chunk, precision), x, y, k)
        where = "on the FP32 pipes (TF32 off)" if precision == "fp32" else "on the tensor cores"
        tried_text = ", ".join(f"{c}: {t:.0f} us" for c, t in tried.items())
        out.append({"id": f"{case}-gemm" + ("" if precision == "fp16" else f"-{precision}"),
                    "peer": f"{precision} GEMM+topk", "peer_us": us,
                    "note": f"FAISS-style (|y|^2 - 2 x.y, {precision} GEMM {where}, float32 products), "
                            f"{chunk}-row chunks (fastest of {tried_text}); "
                            f"{wrong} of 256 sampled rows get other neighbours than the exact ones"})
    return out


def cosine_knn(x, y, k):
    """torch's plain cosine k-NN: normalize, one float32 matmul (TF32 off), topk of the
    similarities (largest), distances 1 - sim of the k kept. The whole 10000 x 100000 product
    (4 GB) fits the GPU, so no chunks."""
    xn, yn = torch.nn.functional.normalize(x), torch.nn.functional.normalize(y)
    top = (xn @ yn.T).topk(k, largest=True)
    return 1 - top.values, top.indices


def gemm_cosine_knn(x, y, k, chunk):
    """FAISS's method for cosine in torch: normalized rows in float16, GEMM on the tensor cores
    (float32 accumulation), topk of the similarities per chunk of query rows. Returns the indices."""
    xh = torch.nn.functional.normalize(x).half()
    yh = torch.nn.functional.normalize(y).half()
    return torch.cat([(xh[s:s + chunk] @ yh.T).float().topk(k, largest=True).indices
                      for s in range(0, x.shape[0], chunk)])


def exact_cosine(xs, y):
    """float64 cosine similarities of the rows xs against every row of y."""
    return torch.nn.functional.normalize(xs.double()) @ torch.nn.functional.normalize(y.double()).T


def bf16_rows(m, d, seed):
    """Unit-norm Gaussian rows rounded to bfloat16: embeddings, as the suite's K4 draws them."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.nn.functional.normalize(torch.randn(m, d, device="cuda", generator=g)).bfloat16()


def bf16_ip_knn(x, y, k, chunk):
    """The FAISS-style inner-product search in torch on bf16 rows: per chunk of query rows one bf16
    GEMM (float32 accumulation inside cuBLAS, the products written as bf16) and topk(largest)."""
    return torch.cat([(x[s:s + chunk] @ y.T).topk(k, largest=True).indices for s in range(0, x.shape[0], chunk)])


def k4_case():
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False  # float32 accumulation throughout
    x, y, k = bf16_rows(10000, 768, 1), bf16_rows(1_000_000, 768, 2), 100
    tried = {c: median_us(lambda c=c: bf16_ip_knn(x, y, k, c), repeats=3, warmup=1) for c in (256, 512, 1024, 2048)}
    chunk = min(tried, key=tried.get)
    us = median_us(lambda: bf16_ip_knn(x, y, k, chunk), repeats=5, warmup=1)
    got = bf16_ip_knn(x, y, k, chunk)
    rows = 8
    wrong = wrong_rows(got, x, y, k, rows=rows, largest=True, exact_scores=lambda xs, yy: xs.double() @ yy.double().T)
    tried_text = ", ".join(f"{c}: {t / 1000:.0f} ms" for c, t in tried.items())
    return {"id": "K4", "peer": "bf16 GEMM+topk", "peer_us": us,
            "note": f"FAISS-style: x_chunk @ y.T in bf16 (float32 accumulation, bf16 scores) + topk(100), "
                    f"{chunk}-row chunks (fastest of {tried_text}); {wrong} of {rows} sampled rows get other "
                    f"neighbours than an exact float64 scan"}


def knn_cases():
    out = []
    if wants("K1"):
        x, y = rand(4000, 128, 1), rand(20000, 128, 2)
        out.append({"id": "K1", "peer": "cdist+topk",
                    "peer_us": median_us(lambda: torch.cdist(x, y).topk(2, largest=False)),
                    "note": "then ratio test on 2 columns"})
        out.extend(gemm_knn_cases("K1", x, y, 2, 20))
    if wants("K2") or wants("K2c"):
        x, y = rand(10000, 128, 1), rand(100000, 128, 2)
        if wants("K2"):
            out.append({"id": "K2", "peer": "cdist+topk",
                        "peer_us": median_us(lambda: torch.cdist(x, y).topk(10, largest=False), repeats=5),
                        "note": ""})
            out.extend(gemm_knn_cases("K2", x, y, 10, 5))
        if wants("K2c"):
            out.append({"id": "K2c", "peer": "normalize+matmul+topk",
                        "peer_us": median_us(lambda: cosine_knn(x, y, 10), repeats=5),
                        "note": "K2's rows; fp32 matmul (TF32 off), topk of the similarities, 1 - sim"})
            wrong = wrong_rows(gemm_cosine_knn(x, y, 10, 2500), x, y, 10, largest=True, exact_scores=exact_cosine)
            out.append({"id": "K2c-gemm", "peer": "fp16 GEMM+topk",
                        "peer_us": median_us(lambda: gemm_cosine_knn(x, y, 10, 2500), repeats=5),
                        "note": f"FAISS-style (normalized rows in fp16 on the tensor cores, 2500-row chunks); "
                                f"{wrong} of 256 sampled rows get other neighbours than the exact ones"})
        del x, y
    if wants("K3"):
        out.extend(k3_cases())
    if wants("K3i"):
        out.extend(k3i_cases())
    torch.cuda.empty_cache()
    if wants("K4"):
        out.append(k4_case())  # last, as in the suite: the largest
    return out


def k3_cases():
    try:
        import numpy as np
        corpus = torch.from_numpy(np.load("data/descriptors/opencv_images_sift_u8.npy")).cuda().float()
    except FileNotFoundError as e:
        print(f"K3 skipped: {e}", file=sys.stderr)
        return []

    def chunked():
        for s in range(0, corpus.shape[0], 16384):
            torch.cdist(corpus[s:s + 16384], corpus).topk(10, largest=False)

    return [{"id": "K3", "peer": "chunked cdist+topk", "peer_us": median_us(chunked, repeats=3, warmup=1),
             "note": "fp32 copies of the uint8 corpus, 16384-row chunks"}]


def k3i_cases():
    """K3i's shape: quantised int8 embeddings (32 N(0, 1) rounded and clamped), 10000 x 200000 x 128,
    k = 10, squared L2. torch has no int8 distance: the FAISS-style search on float16 copies (exact
    here: the products and their sums stay below 2^24) and cdist + topk on float32 copies."""
    g = torch.Generator(device="cuda").manual_seed(31)
    quantised = lambda rows: (32 * torch.randn(rows, 128, device="cuda", generator=g)).round().clamp(-128, 127)  # noqa: E731
    x, y = quantised(10000), quantised(200000)
    out = [{"id": "K3i", "peer": "cdist+topk", "note": "float32 copies of the int8 rows",
            "peer_us": median_us(lambda: torch.cdist(x, y).topk(10, largest=False), repeats=5)}]
    return out + gemm_knn_cases("K3i", x, y, 10, 5, precisions=("fp16",))  # exact here, as fast as any


SUITES = {"dense": dense_cases, "knn": knn_cases}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--suites", nargs="*", default=list(SUITES))
    ap.add_argument("--cases", nargs="*", default=None, help="case ids to run (as cudist bench --case)")
    args = ap.parse_args()
    global CASES
    CASES = set(args.cases) if args.cases else None
    torch.backends.cuda.matmul.allow_tf32 = False
    cases = []
    for name in args.suites:
        if name in SUITES:
            for c in SUITES[name]():
                print(f"{c['id']:8} {c['peer']:22} {c['peer_us']:12.1f} us  {c['note']}", flush=True)
                cases.append(c)
    json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "cases": cases},
              open(args.json, "w"), indent=2)


if __name__ == "__main__":
    main()
