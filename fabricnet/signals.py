"""SIGTERM and SIGHUP end a runner through its `with` blocks, so that a runner stopped by
`kill PID` or a closed terminal still removes what it created.

The signal raises `Terminated`, a BaseException like KeyboardInterrupt but not one:
Mininet's prompt catches KeyboardInterrupt (Ctrl-C interrupts the running command and the
prompt carries on), while a termination request must end the run."""

from __future__ import annotations

import signal
from types import FrameType

__all__ = ["Terminated", "interrupt_on_termination"]


class Terminated(BaseException):
    """The process was asked to end (SIGTERM or SIGHUP)."""


def _terminate(signum: int, _frame: FrameType | None) -> None:
    raise Terminated(f"signal {signal.Signals(signum).name}")


def interrupt_on_termination() -> None:
    """Raise `Terminated` in the main thread on SIGTERM and SIGHUP (call from the entry
    script's main)."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _terminate)
