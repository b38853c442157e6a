"""`sprayfabric report compare A B`: figures of two runs or sweeps side by side, regressions
marked.

Exit status 0 when B has no regression against A, 2 when it has one (for CI), 1 on an error.
"""

from __future__ import annotations

import argparse
import json

from .common import CliError, CommandTree, checked, output

__all__ = ["REGRESSION_STATUS", "register"]

REGRESSION_STATUS = 2


_threshold = checked(
    lambda text: float(text.rstrip("%")), lambda v: v >= 0, "a percentage of 0 or more"
)


def register(sub: CommandTree) -> None:
    p = sub.add_parser(
        "compare",
        help="compare two runs or sweeps figure by figure, with bootstrap intervals over seeds",
        description="A is the baseline, B the candidate: each a run (`sim run --json`), a sweep "
        "(`sim sweep -o`), an experiment's JSON, a demo summary.json, or a directory of run and "
        "sweep files. Runs are grouped by configuration, seeds aside; a field that differs "
        "between the sides as a whole (e.g. mode) is what is compared. A figure regresses "
        "when B is worse by more than the threshold and the 95%% bootstrap interval of the "
        "difference excludes 0. Exit status 2 when something regressed.",
    )
    p.add_argument("a", metavar="A", help="baseline: file or directory")
    p.add_argument("b", metavar="B", help="candidate: file or directory")
    p.add_argument(
        "--threshold",
        type=_threshold,
        default=5.0,
        metavar="PCT",
        help="relative change (of A's mean) below which nothing regresses (default 5)",
    )
    p.add_argument(
        "--metrics",
        type=lambda s: [m for m in s.split(",") if m],
        metavar="A,B,...",
        help="compare only these figures",
    )
    p.add_argument("--all", action="store_true", help="also list unchanged figures")
    p.add_argument("--json", metavar="FILE", help="write the comparison as JSON (- for stdout)")
    p.set_defaults(func=_compare)


def _compare(args: argparse.Namespace) -> int:
    from fabricsim.compare import CompareError, compare, format_comparison, load_rows

    try:
        result = compare(
            load_rows(args.a), load_rows(args.b), threshold_pct=args.threshold, metrics=args.metrics
        )
    except CompareError as e:
        raise CliError(str(e)) from None
    if args.json:
        with output(args.json) as f:
            json.dump(result.to_json(), f, indent=1)
    if args.json != "-":
        print(format_comparison(result, show_all=args.all))
    return REGRESSION_STATUS if result.regressions else 0
