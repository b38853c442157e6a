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
