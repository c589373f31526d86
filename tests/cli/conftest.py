"""Shared by the CLI tests: every module skips its cuda run (CUDIST_DEVICE=cuda) where the tool
reports no usable GPU."""

import os
import subprocess

import pytest


@pytest.fixture(scope="module", autouse=True)
def usable_device():
    device = os.environ.get("CUDIST_DEVICE", "cpu")
    if device == "cpu":
        return
    info = subprocess.run([os.environ.get("CUDIST_CLI", "cudist"), "info"], capture_output=True, text=True,
                          timeout=600).stdout
    if "no CUDA GPU" in info or "CUDA backend not built" in info:
        pytest.skip(f"no usable GPU for the {device} run: {info.strip()}")
