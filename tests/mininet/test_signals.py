"""SIGTERM reaches a runner as KeyboardInterrupt, so its clean-up code runs."""

from __future__ import annotations

import signal
import subprocess
import sys

_CHILD = """
import os, signal, time
from fabricnet.signals import Terminated, interrupt_on_termination
interrupt_on_termination()
try:
    print("ready", flush=True)
    time.sleep(30)
except Terminated as e:
    print("cleaned up after", e, flush=True)
"""


def test_sigterm_unwinds_the_main_thread() -> None:
    proc = subprocess.Popen([sys.executable, "-c", _CHILD], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=10)
    assert out.strip() == "cleaned up after signal SIGTERM"
    assert proc.returncode == 0


_ENTRY = """
import sys, time
from fabricnet.footprint import CleanupError, Leftovers
from fabricnet.signals import run_entry

def body():
    how = sys.argv[1]
    if how == "sleep":
        print("ready", flush=True)
        time.sleep(30)
    if how == "fail":
        raise ValueError("no such switch")
    if how == "leftover":
        raise CleanupError(Leftovers(("s1-eth1",), (), ()))
    return 3

sys.exit(run_entry("prog", body))
"""


def _entry(how: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _ENTRY, how], capture_output=True, text=True, timeout=30
    )


def test_run_entry_turns_failures_into_one_line_and_an_exit_code() -> None:
    assert _entry("return").returncode == 3
    got = _entry("fail")
    assert (got.returncode, got.stderr) == (1, "prog: error: no such switch\n")
    got = _entry("leftover")
    assert got.returncode == 1
    assert got.stderr == "prog: left behind after stopping the network: links s1-eth1\n"


def test_run_entry_ends_on_sigterm_with_130() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", _ENTRY, "sleep"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=10)
    assert proc.returncode == 130
    assert err.strip() == "prog: stopped (signal SIGTERM); everything it started was removed"
