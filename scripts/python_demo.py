"""A short cudist session: pairwise distances on torch CUDA tensors (NumPy where no GPU is usable),
then descriptor matching (cudist.match: 2-NN + Lowe's ratio test) on the box images of
data/descriptors, checked against the matches OpenCV's brute-force matcher keeps.

    pip install .                   # or: pip install --no-build-isolation .
    python scripts/python_demo.py
"""

import pathlib
import time

import numpy as np

import cudist

DESCRIPTORS = pathlib.Path(__file__).resolve().parents[1] / "data" / "descriptors"


def gpu_tensors_or_none():
    """torch's CUDA module when torch, a GPU and a CUDA build of cudist are all present."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() and cudist.cuda_available() else None


def pairwise_session():
    torch = gpu_tensors_or_none()
    if torch is not None:
        XA = torch.randn(20_000, 128, device="cuda")
        XB = torch.randn(5_000, 128, device="cuda")
        torch.cuda.synchronize()
        start = time.perf_counter()
        D = cudist.cdist(XA, XB, "euclidean")  # in place, on torch's current stream
        torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        reference = torch.cdist(XA.double(), XB.double(),
                                compute_mode="donot_use_mm_for_euclid_dist")
        error = (D.double() - reference).abs().max().item()
        print(f"cdist on torch CUDA tensors: {tuple(XA.shape)} x {tuple(XB.shape)} -> "
              f"{type(D).__module__}.{type(D).__name__} {tuple(D.shape)} {D.dtype} on {D.device}")
    else:
        from scipy.spatial import distance

        rng = np.random.default_rng(0)
        XA = rng.standard_normal((4_000, 128), np.float32)
        XB = rng.standard_normal((1_000, 128), np.float32)
        start = time.perf_counter()
        D = cudist.cdist(XA, XB, "euclidean")  # CPU backend
        seconds = time.perf_counter() - start
        error = np.abs(D - distance.cdist(XA, XB)).max()
        print(f"cdist on NumPy arrays (no GPU here): {XA.shape} x {XB.shape} -> "
              f"numpy {D.shape} {D.dtype}")
    print(f"  {seconds * 1e3:.1f} ms, max |cudist - float64 reference| = {error:.2e}")


def matching_session(kind, metric):
    query = np.load(DESCRIPTORS / f"box_a_{kind}.npy")
    train = np.load(DESCRIPTORS / f"box_b_{kind}.npy")
    opencv = np.load(DESCRIPTORS / f"box_{kind.split('_')[0]}_ratio075_matches.npy")
    torch = gpu_tensors_or_none()
    if torch is not None:  # match on the GPU, in place; results are CUDA tensors
        query, train = torch.from_numpy(query).cuda(), torch.from_numpy(train).cuda()
    start = time.perf_counter()
    pairs, distances = cudist.match(query, train, metric, ratio=0.75)  # synchronizes
    seconds = time.perf_counter() - start
    where = "torch CUDA tensors" if torch is not None else "NumPy arrays"
    pairs, distances = pairs.tolist(), distances.tolist()
    agree = len(set(map(tuple, pairs)) & set(map(tuple, opencv.tolist())))
    print(f"match {kind} on {where}: {query.shape[0]} x {train.shape[0]} uint8 descriptors, "
          f"{metric}: {len(pairs)} matches pass the 0.75 ratio test in {seconds * 1e3:.1f} ms; "
          f"OpenCV keeps {len(opencv)}, {agree} in common")
    first = [(*pair, d) for pair, d in zip(pairs[:3], distances[:3])]
    print(f"  first (query, train, distance): {first}")


def main():
    print(f"cudist {cudist.__version__}: devices {cudist.devices()}")
    pairwise_session()
    matching_session("sift_u8", "euclidean")
    matching_session("orb", "hamming_bits")


if __name__ == "__main__":
    main()
