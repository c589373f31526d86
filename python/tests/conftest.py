"""Shared pytest configuration: GPU markers and the random generator."""

import zlib

import numpy as np
import pytest

import cudist


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
