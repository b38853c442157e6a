"""SIGTERM and SIGHUP end a runner through its `with` blocks, so that a runner stopped by
`kill PID` or a closed terminal still removes what it created.

The signal raises `Terminated`, a BaseException like KeyboardInterrupt but not one:
Mininet's prompt catches KeyboardInterrupt (Ctrl-C interrupts the running command and the
prompt carries on), while a termination request must end the run.

`run_entry` is an entry script's main around its body: one line on stderr for a failure
(exit 1) or an interruption (exit 130), never a traceback."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from types import FrameType

from .footprint import CleanupError

__all__ = ["Terminated", "interrupt_on_termination", "run_entry"]


class Terminated(BaseException):
    """The process was asked to end (SIGTERM or SIGHUP)."""


def _terminate(signum: int, _frame: FrameType | None) -> None:
    raise Terminated(f"signal {signal.Signals(signum).name}")


def interrupt_on_termination() -> None:
    """Raise `Terminated` in the main thread on SIGTERM and SIGHUP (call from the entry
    script's main)."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _terminate)


def run_entry(prog: str, body: Callable[[], int]) -> int:
    """Run an entry script's `body` (whose `with` blocks remove what it creates) with
    SIGTERM and SIGHUP ending it like Ctrl-C; its exit code, 130 when interrupted, 1 with a
    line on stderr naming `prog` when it failed."""
    interrupt_on_termination()
    try:
        return body()
    except CleanupError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, Terminated) as e:
        print(
            f"\n{prog}: stopped ({e or 'interrupted'}); everything it started was removed",
            file=sys.stderr,
        )
        return 130
    except Exception as e:  # one line for the user; everything was stopped already
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
