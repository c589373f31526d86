"""The cudist tool on corrupted input files: seeded mutants (bytes overwritten, inserted, erased,
the file cut short) of .npy, .fvecs, descriptor and Matrix Market files, each run through a
command that reads it. Every run must end on its own with success or a clear error (exit code 1,
"cudist: error: ..."; a mutant that still parses may fail the command's own checks, e.g. a
non-square graph): never a signal (crash), an internal error (exit code 2) or a hang. At least
most rejections are read errors naming the file.
CUDIST_CLI_FUZZ_CASES (default 40 per file) asks for a longer run."""

import os
import random
import subprocess
from pathlib import Path

import numpy as np
import pytest

CLI = os.environ.get("CUDIST_CLI", "cudist")
DEVICE = os.environ.get("CUDIST_DEVICE", "cpu")
CASES = int(os.environ.get("CUDIST_CLI_FUZZ_CASES", "40"))
DATA = Path(__file__).resolve().parents[2] / "data"


def mutate(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not data:
            break
        kind, at = rng.randrange(4), rng.randrange(len(data))
        byte = rng.choice(b"0123456789-+.eE \n%,'():{}") if rng.random() < 0.5 else rng.randrange(256)
        if kind == 0:
            data[at] = byte
        elif kind == 1:
            data.insert(at, byte)
        elif kind == 2:
            del data[at:at + rng.randint(1, 8)]
        else:
            del data[at:]
    return bytes(data)


def small_npy(tmp_path):
    path = tmp_path / "valid.npy"
    np.save(path, np.arange(35, dtype=np.float32).reshape(7, 5))
    return path.read_bytes()


def fvecs(_):
    rows = [np.int32(4).tobytes() + np.arange(4, dtype=np.float32).tobytes() * 1 for _ in range(6)]
    return b"".join(rows)


def mtx(_):
    return b"%%MatrixMarket matrix coordinate real general\n4 4 5\n1 2 1.5\n2 3 2\n3 4 0.5\n4 1 3\n1 4 9\n"


FILES = {  # name: (valid bytes, suffix, command reading the file at {f})
    "npy": (small_npy, ".npy", ["cdist", "{f}", "{f}", "-o", "{out}"]),
    "fvecs": (fvecs, ".fvecs", ["knn", "{f}", "-k", "2", "--indices", "{out}"]),
    "descriptors": (lambda _: (DATA / "descriptors" / "box_a_orb.npy").read_bytes(), ".npy",
                    ["cdist", "{f}", "{f}", "-o", "{out}", "--metric", "hamming_bits"]),
    "mtx": (mtx, ".mtx", ["apsp", "{f}", "-o", "{out}"]),
}


@pytest.mark.parametrize("kind", sorted(FILES))
def test_corrupted_input_files_give_a_result_or_a_clear_error(kind, tmp_path):
    make, suffix, command = FILES[kind]
    valid = make(tmp_path)
    rng = random.Random(f"cudist-{kind}")
    path, out = tmp_path / f"mutant{suffix}", tmp_path / "out.npy"
    rejected = naming_the_file = 0
    for case in range(CASES):
        path.write_bytes(mutate(valid, rng))
        args = [a.format(f=path, out=out) for a in command]
        try:
            done = subprocess.run([CLI, *args, "--device", DEVICE], capture_output=True, text=True,
                                  errors="replace", timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{kind} mutant {case} hung: {args}")
        assert done.returncode in (0, 1), f"{kind} mutant {case}: exit code {done.returncode}\n{done.stderr}"
        if done.returncode == 1:
            assert done.stderr.startswith("cudist: error: "), f"{kind} mutant {case}: {done.stderr}"
            rejected += 1
            naming_the_file += str(path) in done.stderr
    assert naming_the_file >= rejected * 3 // 4, f"{kind}: {naming_the_file} of {rejected} errors name the file"
