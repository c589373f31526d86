"""Loaded by the pytest run of a copied upstream test file (see test_scipy_suite.py): puts
cudist's functions in place of scipy.spatial.distance's while the test module is imported, so
that its `from scipy.spatial.distance import cdist, ...` binds cudist's, then restores scipy's, so
that the references the tests compare with (scipy's metric functions) stay scipy's own."""

import functools
import os

import pytest
import scipy.spatial.distance

import cudist.distance

_SCIPY = {name: getattr(scipy.spatial.distance, name) for name in cudist.distance.__all__
          if hasattr(scipy.spatial.distance, name)}


def _on_device(function, device):
    """cudist's `function` computing on `device` (NumPy in, NumPy out, as the tests expect)."""

    @functools.wraps(function)
    def computed_there(*args, **kwargs):
        kwargs.setdefault("device", device)
        return function(*args, **kwargs)

    return computed_there


def pytest_sessionstart(session):
    # CUDIST_SCIPY_DEVICE=cuda: cdist and pdist compute on the GPU (test_scipy_suite.py's GPU run).
    device = os.environ.get("CUDIST_SCIPY_DEVICE")
    for name in _SCIPY:
        function = getattr(cudist.distance, name)
        if device and name in ("cdist", "pdist"):
            function = _on_device(function, device)
        setattr(scipy.spatial.distance, name, function)


def pytest_collection_finish(session):
    for name, function in _SCIPY.items():
        setattr(scipy.spatial.distance, name, function)


@pytest.fixture
def num_parallel_threads():
    """What scipy's conftest provides without pytest-run-parallel: tests run on one thread."""
    return 1


def pytest_collection_modifyitems(config, items):
    # scipy's conftest runs its `xslow` tests (e.g. a 48 GB directed_hausdorff input) only under
    # SCIPY_XSLOW=1; without its conftest they would run wherever memory allows.
    if os.environ.get("SCIPY_XSLOW", "0") != "0":
        return
    skip = pytest.mark.skip(reason="very slow test; set SCIPY_XSLOW=1 to run it (as in scipy)")
    for item in items:
        if "xslow" in item.keywords:
            item.add_marker(skip)
