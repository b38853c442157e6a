"""The PTF suite (ptf_tests/) on the in-process softswitch, run as `make ptf` runs it."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "ptf_tests" / "run.py"


@pytest.mark.skipif(
    importlib.util.find_spec("ptf") is None, reason="ptf is not installed (pip install ptf)"
)
def test_ptf_suite_passes_on_softswitch() -> None:
    proc = subprocess.run(
        [sys.executable, str(RUNNER), "--target", "softswitch"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
    )
    out = proc.stdout + proc.stderr
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    m = re.fullmatch(r"(\d+) passed, (\d+) failed, (\d+) skipped", last)
    assert m, f"no summary line; output:\n{out[-5000:]}"
    assert proc.returncode == 0 and m[2] == "0", out[-20000:]
    assert int(m[1]) > 0, out[-5000:]


def _can_make_namespaces() -> bool:
    import os
    import shutil

    return os.geteuid() == 0 and shutil.which("ip") is not None


@pytest.mark.skipif(
    importlib.util.find_spec("ptf") is None, reason="ptf is not installed (pip install ptf)"
)
@pytest.mark.skipif(
    not _can_make_namespaces(), reason="veth pairs in a namespace need root and iproute2"
)
def test_ptf_suite_over_veth_through_the_softswitch_process() -> None:
    """The same suite through the `softswitch` command on AF_PACKET veth ports (the
    runner creates a namespace with the veths and removes it afterwards)."""
    proc = subprocess.run(
        [sys.executable, str(RUNNER), "--target", "softswitch", "--veth"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
    )
    out = proc.stdout + proc.stderr
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    m = re.fullmatch(r"(\d+) passed, (\d+) failed, (\d+) skipped", last)
    assert m, f"no summary line; output:\n{out[-5000:]}"
    assert proc.returncode == 0 and m[2] == "0", out[-20000:]
    assert int(m[1]) > 0, out[-5000:]
