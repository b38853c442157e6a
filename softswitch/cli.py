"""The `softswitch` command line: one subcommand per task (`compile`, `stf`)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    from .compile_cli import add_compile_command
    from .stf.cli import add_stf_command

    parser = argparse.ArgumentParser(
        prog="softswitch", description="A pure-Python P4_16 v1model switch."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_compile_command(subparsers)
    add_stf_command(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(argv) if argv is not None else None)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(handler(args))
    except BrokenPipeError:  # e.g. `softswitch stf ... | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
