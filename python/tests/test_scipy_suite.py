"""scipy's own tests of scipy.spatial.distance, run against cudist: the test file is copied from
the installed scipy at test time (never vendored) and run by a separate pytest with cudist's
functions in place of scipy's (upstream/swap_in_cudist.py). At least 95% must pass, and every
failure must be one that docs/scipy_differences.md lists as a deliberate difference."""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

scipy_tests = pytest.importorskip("scipy.spatial.tests")

HERE = pathlib.Path(__file__).parent
DIFFERENCES = HERE.parents[1] / "docs" / "scipy_differences.md"


def documented_failures():
    """The test ids listed in the docs, as `TestClass::test_name[parameters]`."""
    return set(re.findall(r"^- `(\S+)`", DIFFERENCES.read_text(), flags=re.MULTILINE))


def run_upstream(test_files, tmp_path, device=None):
    """(passed, failed) test ids of scipy's `test_files` run with cudist swapped in (cdist and
    pdist computing on `device` when given)."""
    source = pathlib.Path(scipy_tests.__file__).parent
    for test_file in test_files:
        shutil.copy(source / test_file, tmp_path)
    (tmp_path / "data").symlink_to(source / "data")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # not this repository's configuration
    report = tmp_path / "report.xml"
    path = os.pathsep.join(filter(None, [str(HERE / "upstream"), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path)
    if device:
        env["CUDIST_SCIPY_DEVICE"] = device
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "swap_in_cudist",
                    "-p", "no:cacheprovider", f"--junitxml={report}", *test_files],
                   cwd=tmp_path, env=env, capture_output=True,
                   check=False)
    passed, failed = [], []
    for case in ElementTree.parse(report).iter("testcase"):
        test_id = case.get("classname").replace(".", ".py::", 1) + "::" + case.get("name")
        outcomes = {child.tag for child in case}
        if "skipped" not in outcomes:
            (failed if outcomes & {"failure", "error"} else passed).append(test_id)
    return passed, failed


@pytest.mark.parametrize("device", [None, pytest.param("cuda", marks=pytest.mark.gpu)], ids=["cpu", "cuda"])
def test_scipy_distance_suite(tmp_path, device):
    passed, failed = run_upstream(["test_distance.py", "test_hausdorff.py"], tmp_path, device)
    print(f"scipy's distance tests with cudist on {device or 'cpu'}: {len(passed)} passed, {len(failed)} failed")
    assert len(passed) >= 0.95 * (len(passed) + len(failed)), sorted(failed)
    assert set(failed) <= documented_failures(), sorted(set(failed) - documented_failures())
