"""SIGTERM and SIGHUP handled like Ctrl-C, so that a runner stopped by `kill PID` or a closed
terminal still leaves through its `with` blocks and removes what it created."""

from __future__ import annotations

import signal
from types import FrameType

__all__ = ["interrupt_on_termination"]


def _interrupt(signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def interrupt_on_termination() -> None:
    """Raise KeyboardInterrupt in the main thread on SIGTERM and SIGHUP (call from the
    entry script's main)."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)
