"""`sprayfabric report job RUN.json`: why a collective was slow (fabricsim.job_report).

A command of its own rather than `doctor --job`: the doctor ranks suspect links from a
run's probes, for any workload; the job report reads a collective's own flows (steps,
FCTs) and the INT its packets carried, needs no probes, and answers a different question
(which step, which flow, where it waited), so it shares neither input nor output."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .common import CliError, CommandTree, read_json

__all__ = ["register"]


def register(sub: CommandTree) -> None:
    p = sub.add_parser(
        "job-report",
        help="a collective's steps, slowest flows and where they waited (INT)",
        description="Reads a collective run's JSON (sprayfabric sim run --workload "
        "allreduce|alltoall --json FILE): per step its start, end and duration, the "
        "slowest flows of each step with FCT and slowdown, the hops where their packets "
        "waited (queue occupancy and hop latency from INT), and a one-line verdict.",
    )
    p.add_argument("run", metavar="RUN.json")
    p.add_argument(
        "--top", type=int, default=3, metavar="K", help="slowest flows per step (default 3)"
    )
    p.add_argument("--json", action="store_true", help="the report as JSON")
    p.set_defaults(func=_job_report)


def _job_report(args: argparse.Namespace) -> int:
    from fabricsim.job_report import format_job_report, job_report

    if args.top < 1:
        raise CliError("--top: at least 1")
    path = Path(args.run)
    run = read_json(path)
    try:
        d = job_report(run, top=args.top)
    except ValueError as e:
        raise CliError(f"{path}: {e}") from None
    if args.json:
        json.dump(d, sys.stdout, indent=1)
        print()
    else:
        print(format_job_report(d))
    return 0
