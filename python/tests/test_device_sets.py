"""Device sets (device="cuda:0,1" / "cuda:all"): the names parse, bad sets are clear errors
naming the problem, and on the GPU machine a set gives the single-device answer exactly."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import cudist
from cudist import _cudist


def test_device_set_names_are_canonical():
    assert _cudist.canonical_device("cuda:0,1") == "cuda:0,1"
    assert _cudist.canonical_device("cuda:2") == "cuda:2"
    assert _cudist.canonical_device("cpu") == "cpu"


@pytest.mark.parametrize("bad, says", [("cuda:0,0", "twice"), ("cuda:0,", "not a CUDA ordinal"),
                                       ("cuda:0,x", "not a CUDA ordinal")])
def test_malformed_or_duplicate_sets_are_value_errors(bad, says, rng):
    X = rng.random((5, 3))
    with pytest.raises(ValueError, match=says):
        cudist.knn(X, X, 2, device=bad)


def test_a_set_naming_missing_gpus_is_a_device_error(rng):
    X, Y = rng.random((5, 3)), rng.random((7, 3))
    beyond = cudist._cudist.cuda_device_count()
    with pytest.raises(cudist.DeviceUnavailableError, match="knn"):
        cudist.knn(X, Y, 2, device=f"cuda:0,{beyond + 1}")


@pytest.mark.gpu
@pytest.mark.parametrize("call", ["knn", "self_knn", "match", "radius", "cdist", "pdist"])
def test_all_gpus_give_the_single_device_answer(call, rng):
    X = rng.standard_normal((300, 32)).astype(np.float32)
    Y = rng.standard_normal((2001, 32)).astype(np.float32)
    run = {
        "knn": lambda device: cudist.knn(X, Y, 10, device=device),
        "match": lambda device: cudist.match(X, Y, ratio=0.9, mutual=True, device=device),
        "radius": lambda device: cudist.radius(X, Y, 6.5, device=device),
        "self_knn": lambda device: cudist.self_knn(Y, 10, device=device),
        "cdist": lambda device: (cudist.cdist(X, Y, device=device),),
        "pdist": lambda device: (cudist.pdist(X, device=device),),
    }[call]
    for got, want in zip(run("cuda:all"), run("cuda:0")):
        assert_array_equal(got, want)
