"""What the entry scripts in mininet/ (run.py, demo.py) share: their common flags, and
how a run starts. Mininet and root are checked first (nothing is built without them), then
the inputs are loaded (a bad topology file or policy flag is one line and exit 1), then the
body runs under fabricnet.signals.run_entry (Ctrl-C, SIGTERM and SIGHUP remove everything
it built)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TypeVar

from controller.lb import PolicyError
from controller.topology import TopologyError

__all__ = ["add_switch_arguments", "run_script"]

T = TypeVar("T")


def add_switch_arguments(parser: argparse.ArgumentParser) -> None:
    """`--target softswitch|bmv2` and `--pcap`."""
    parser.add_argument("--target", choices=("softswitch", "bmv2"), default="softswitch")
    parser.add_argument("--pcap", action="store_true", help="a pcap per switch port")


def run_script(prog: str, load: Callable[[], T], body: Callable[[T], int]) -> int:
    """Check for Mininet and root, `load()` the inputs, run `body(inputs)`; the exit code
    (1 with one line on stderr naming `prog` when the check or `load` fails)."""
    from fabricnet import mininet_missing_reason

    reason = mininet_missing_reason()
    if reason is not None:
        print(f"{prog}: {reason}", file=sys.stderr)
        return 1
    from fabricnet.signals import run_entry

    try:
        inputs = load()
    except (OSError, TopologyError, PolicyError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 1
    return run_entry(prog, lambda: body(inputs))
