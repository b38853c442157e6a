"""The entry scripts in mininet/: bad input is one line on stderr and exit 1, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fabricnet.mn import mininet_missing_reason

ROOT = Path(__file__).resolve().parents[2]


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "mininet" / script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_a_bad_topology_file_is_one_line_and_exit_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nswitches:\n  - {name: s1, role: leaf}\n")  # no device_id
    for script, args in (("demo.py", ["--topology", str(bad)]), ("run.py", [str(bad)])):
        got = _run(script, *args)
        assert got.returncode == 1, got
        assert "Traceback" not in got.stderr
        reason = mininet_missing_reason()
        if reason is not None:  # checked first: nothing is built without root and Mininet
            assert reason in got.stderr
        else:
            assert str(bad) in got.stderr and "device_id" in got.stderr, got.stderr
        assert len(got.stderr.strip().splitlines()) == 1, got.stderr


@pytest.mark.skipif(
    mininet_missing_reason() is not None,
    reason=f"the Mininet check comes first: {mininet_missing_reason()}",
)
def test_a_bad_policy_flag_is_one_line_and_exit_1() -> None:
    got = _run("run.py", str(ROOT / "topologies" / "leaf-spine-2x2.yaml"), "--ecn-red", "1,2")
    assert got.returncode == 1
    assert "--ecn-red" in got.stderr and "Traceback" not in got.stderr, got.stderr
