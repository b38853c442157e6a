"""BMv2 `simple_switch` behaviours, each pinned by a small program with an STF test.

Every `programs/X.p4` has an `X.stf` whose expected packets were checked on the real
BMv2 (`run-stf programs/X.p4`, p4c-bm2-ss 1.2.4.8 + simple_switch 1.15.5). The same
files run here on softswitch; when p4c's `run-stf` wrapper is on PATH they also run on
BMv2, so a changed expectation is caught on both targets.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from softswitch.clock import SimClock
from softswitch.compiler import compile_file
from softswitch.stf import run_stf
from softswitch.v1model.switch import Switch

PROGRAMS = sorted((Path(__file__).parent / "programs").glob("*.p4"))


@pytest.mark.parametrize("p4", PROGRAMS, ids=lambda p: p.stem)
def test_softswitch_gives_bmv2s_packets(p4: Path) -> None:
    r = run_stf(p4)
    assert r.status == "pass", r.reason


@pytest.mark.skipif(
    shutil.which("run-stf") is None or shutil.which("simple_switch") is None,
    reason="run-stf / simple_switch (the p4lang BMv2 toolchain) are not on PATH",
)
@pytest.mark.parametrize("p4", PROGRAMS, ids=lambda p: p.stem)
def test_bmv2_gives_the_same_packets(p4: Path) -> None:
    out = subprocess.run(["run-stf", str(p4)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]


def test_resubmitted_pass_reads_no_ingress_timestamp() -> None:
    """BMv2 sets ingress_global_timestamp only when a packet arrives from a port."""
    p4 = Path(__file__).parent / "programs" / "resubmit_metadata.p4"
    sw = Switch(compile_file(p4), clock=SimClock(start_us=5_000))
    [(port, data)] = sw.process(3, bytes(6))
    assert port == 2
    assert data[4] == 1  # ts_zero: the resubmitted pass saw a zero timestamp
