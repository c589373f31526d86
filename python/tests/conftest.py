"""Shared pytest configuration: GPU markers, the random generator and the stream spy."""

import zlib

import numpy as np
import pytest

import cudist
from cudist import _cudist


def pytest_collection_modifyitems(config, items):
    # Tests marked gpu need a CUDA GPU and a cudist build with the CUDA backend.
    if cudist.cuda_available():
        return
    skip = pytest.mark.skip(reason="no CUDA GPU, or cudist built without CUDA")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rng(request):
    # Seeded per test, so that a failure reproduces on its own.
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def streams_seen(monkeypatch):
    """streams_seen(name, position) wraps the binding _cudist.<name> so that every call records
    its stream argument (positional argument `position`) in the list it returns."""

    def spy(name, position):
        seen, bound = [], getattr(_cudist, name)

        def recording(*args, **kwargs):
            seen.append(args[position])
            return bound(*args, **kwargs)

        monkeypatch.setattr(_cudist, name, recording)
        return seen

    return spy
