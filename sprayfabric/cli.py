"""The `sprayfabric` command.

Commands are noun verb (`fabric up`, `lb set`, `sim run`). Each module of this package named
in `COMMANDS` adds its commands with `register(tree)` (a `CommandTree`); `PLACES` puts each
name a module registers under its noun, and the old flat spellings (`up`, `set-lb`,
`sweep`, `sim TOPO`, ...) stay aliases of the new ones (`canonical_argv`). A command's
handler takes the parsed arguments and returns the exit status. Errors a user can cause
(bad files, bad names, unreachable switches) are raised as `CliError`, `TopologyError`,
`OSError` or `ValueError` and printed as one line, exit status 1, no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from controller.topology import TopologyError

from .common import CliError, CommandTree

__all__ = ["COMMANDS", "GROUPS", "PLACES", "CliError", "build_parser", "canonical_argv", "main"]

# modules of sprayfabric that register commands
COMMANDS = (
    "topo",
    "routes",
    "sim",
    "experiment",
    "compare",
    "doctor",
    "job_report",
    "fabric",
    "faults",
)

# the nouns, in help order (`link` and `fault` follow, nouns of their own modules)
GROUPS = {
    "topo": "generate, check and show topology files; compute their routes",
    "sim": "simulate fabrics running fabric.p4: one run, a grid, a published experiment",
    "report": "read runs: compare two of them, a collective's job report",
    "doctor": "rank the links or switches behind a run's lost or slow probes",
    "fabric": "start, watch and stop a fabric of switch processes",
    "lb": "load balancing of a running fabric",
}

# name a module registers -> (noun, verb) it is placed at; each name is also the old
# spelling, an alias of `noun verb` (`sim TOPO` and `doctor RUN.json`: of the noun's first
# verb, as `sim` and `doctor` are nouns now)
PLACES = {
    "routes": ("topo", "routes"),
    "sim": ("sim", "run"),
    "sweep": ("sim", "sweep"),
    "experiment": ("sim", "experiment"),
    "compare": ("report", "compare"),
    "job-report": ("report", "job"),
    "doctor": ("doctor", "diagnose"),
    "doctor-eval": ("doctor", "eval"),
    "up": ("fabric", "up"),
    "down": ("fabric", "down"),
    "status": ("fabric", "status"),
    "telemetry": ("fabric", "telemetry"),
    "send": ("fabric", "send"),
    "shell": ("fabric", "shell"),
    "probe": ("fabric", "probe"),
    "set-lb": ("lb", "set"),
}


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line and exit status 1."""

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(1)


def _alias_help() -> str:
    lines = ["old spellings, aliases of the commands above:"]
    for old, (noun, verb) in PLACES.items():
        if old == noun:
            lines.append(f"  {old} ARGS".ljust(20) + f"= {noun} {verb} ARGS")
        else:
            lines.append(f"  {old}".ljust(20) + f"= {noun} {verb}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sprayfabric",
        description="Topologies, routes and fabrics of P4 switches that spray.",
        epilog=_alias_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    tree = CommandTree(sub, PLACES)
    for noun, text in GROUPS.items():
        tree.group(noun, help=text)
    for name in COMMANDS:
        importlib.import_module(f"{__package__}.{name}").register(tree)
    return parser


def canonical_argv(argv: Sequence[str]) -> list[str]:
    """`argv` in the noun verb spelling: an alias's first word replaced by its noun and verb
    (`set-lb ecmp` -> `lb set ecmp`; `sim TOPO` -> `sim run TOPO`, while `sim sweep TOPO`,
    `sim` and `sim --help` stay as they are)."""
    args = list(argv)
    if not args or args[0] not in PLACES:
        return args
    noun, verb = PLACES[args[0]]
    if args[0] == noun:
        verbs = {v for n, v in PLACES.values() if n == noun}
        if len(args) == 1 or args[1] in verbs or args[1] in ("-h", "--help"):
            return args
    return [noun, verb, *args[1:]]


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(canonical_argv(sys.argv[1:] if argv is None else argv))
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
