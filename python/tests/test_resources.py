"""Resources from Python: a result that cannot fit is refused before any work with the size it
needed (not allocated lazily and the process killed when written), and repeated calls leave the
process's memory flat. 10^4 calls of every family are tests/trust/resources_test.cpp's; here
1000 go through the bindings, enough for a leaked result (~60 kB for cdist) to show, since OpenMP
team start-ups make each call cost milliseconds on a loaded two-core machine."""

import os

import numpy as np
import pytest

import cudist


def resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_a_result_that_cannot_fit_is_refused_with_its_size():
    x = np.zeros((3_000_000, 1), np.float32)  # pdist: 4.5e12 float32 distances, 18 TB
    with pytest.raises(cudist.OutOfMemoryError, match=r"\(4499998500000,\) float32 result needs 18000\.0 GB of host memory"):
        cudist.pdist(x, device="cpu", dtype=np.float32)


def test_available_memory_is_what_the_refusals_compare_with():
    assert 0 < cudist._cudist.available_memory("cpu") < 2**63


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_repeated_calls_leave_memory_flat(rng):
    x, y = rng.standard_normal((61, 9)), rng.standard_normal((129, 9))
    for _ in range(100):  # settle allocator pools and lazily imported modules
        cudist.cdist(x, y, device="cpu")
        cudist.knn(x, y, 3, device="cpu")
    before = resident_bytes()
    for i in range(1000):
        cudist.cdist(x, y, device="cpu") if i % 2 else cudist.knn(x, y, 3, device="cpu")
    growth = resident_bytes() - before
    assert growth < 8 << 20, f"1000 calls grew the resident set by {growth} bytes"
