"""`sprayfabric topo routes TOPO`: compute every switch's routes, print a summary or JSON."""

from __future__ import annotations

import argparse
import time

from controller.routing import compute_routes, write_routes_json
from controller.topology import load_topology

from .common import CliError, CommandTree, output

__all__ = ["register"]


def _pair(text: str) -> tuple[str, str]:
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise argparse.ArgumentTypeError(f"expected two switch names A,B, got {text!r}")
    return parts[0].strip(), parts[1].strip()


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def register(sub: CommandTree) -> None:
    p = sub.add_parser(
        "routes",
        help="compute ECMP/WCMP routes of every switch",
        description="Shortest-path next hops per switch and destination prefix, with "
        "capacity weights, on the topology minus the failed links and switches.",
    )
    p.add_argument("topology", metavar="TOPO", help="topology file")
    p.add_argument(
        "--fail-link",
        type=_pair,
        action="append",
        default=[],
        metavar="A,B",
        help="leave out the link between switches A and B (repeatable)",
    )
    p.add_argument(
        "--fail-switch",
        action="append",
        default=[],
        metavar="SWITCH",
        help="leave out a switch (repeatable)",
    )
    p.add_argument("--json", action="store_true", help="every route as JSON")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default stdout)")
    p.set_defaults(func=_routes)


def _routes(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    topo = load_topology(args.topology)
    t1 = time.perf_counter()
    routes = compute_routes(topo, failed_links=args.fail_link, failed_switches=args.fail_switch)
    seconds = time.perf_counter() - t1
    if args.json:
        with output(args.output) as f:
            write_routes_json(routes, f, seconds)
        return 0
    s = routes.summary()
    if s.switches == s.failed_switches:
        raise CliError("every switch is failed")
    lines = [
        f"{topo.name}: {s.switches} switches"
        + (f" ({s.failed_switches} failed)" if s.failed_switches else "")
        + f", {_count(len(args.fail_link), 'failed link')}, "
        + _count(s.destination_classes, "destination class", "destination classes"),
        f"groups: {s.groups}",
        f"entries: {s.entries} (per switch min {s.entries_min}, "
        f"mean {s.entries_mean:.1f}, max {s.entries_max})",
        f"seconds: {seconds:.3f} (loading the topology: {t1 - t0:.3f})",
    ]
    with output(args.output) as f:
        f.write("\n".join(lines) + "\n")
    return 0
