"""The `sprayfabric` command.

Each module of this package named in `COMMANDS` adds its subcommands with
`register(subparsers)`; a subcommand's handler takes the parsed arguments and returns the
exit status. Errors a user can cause (bad files, bad names, unreachable switches) are
raised as `CliError`, `TopologyError`, `OSError` or `ValueError` and printed as one line,
exit status 1, no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from controller.topology import TopologyError

from .common import CliError

__all__ = ["COMMANDS", "CliError", "build_parser", "main"]

# modules of controller.cli that register subcommands, in help order
COMMANDS = ("topo", "routes", "sim", "experiment", "compare", "doctor", "job_report", "fabric")


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line and exit status 1."""

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(1)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sprayfabric",
        description="Topologies, routes and fabrics of P4 switches that spray.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # usage errors (status 1) and --help (status 0)
        return e.code if isinstance(e.code, int) else 1
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # `sprayfabric ... | head`: the reader went away
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except (CliError, TopologyError, OSError, ValueError) as e:
        print(f"sprayfabric: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
