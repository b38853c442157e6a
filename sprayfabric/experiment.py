"""`sprayfabric sim experiment NAME`: run one published-result scenario of fabricsim.experiments,
print ours beside the published figure, write JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .common import CliError, CommandTree

__all__ = ["format_result", "register"]


def register(sub: CommandTree) -> None:
    p = sub.add_parser(
        "experiment",
        help="reproduce a published result on the simulated fabric",
        description="Runs a named scenario (fabricsim/experiments) over seeds and prints each "
        "variant's figure (mean, min-max, 95%% CI) beside the published one.",
    )
    p.add_argument("name", nargs="?", help="scenario name (--list shows them)")
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    p.add_argument("--seeds", type=int, default=3, help="seeds 1..N (default 3)")
    p.add_argument("--quick", action="store_true", help="small sizes (seconds, for tests)")
    p.add_argument("--out", metavar="DIR", help="write NAME.json to DIR")
    p.add_argument("--json", action="store_true", help="print the JSON result instead")
    p.add_argument(
        "--topo",
        metavar="SPEC",
        help="run on this topology instead of the scenario's: a file under topologies/ or a "
        "path, fat-tree:K[:planes=P], leaf-spine:LxSxH[:planes=P]",
    )
    p.add_argument(
        "--processes",
        type=int,
        default=1,
        metavar="N",
        help="run the (variant, seed) runs on a local pool of N processes (default 1)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDR",
        help="run them on the Dask cluster at ADDR (tcp://HOST:PORT; needs the dask extra)",
    )
    p.add_argument(
        "--no-timing",
        action="store_true",
        help="leave the wall times out of the JSON (then it is the same bytes however the "
        "runs were distributed)",
    )
    p.set_defaults(func=_experiment)


def format_result(res: dict[str, Any]) -> str:
    scn = res["scenario"]
    head = scn["headline"]
    w = max([18, *map(len, res["variants"])])
    lines = [
        f"{scn['name']}: {scn['figure']}",
        f"  topology {scn['topology']}; seeds {res['seeds']}; {'quick' if res['quick'] else 'full'}",
        f"  {'variant':<{w}} {head + ' mean':>22} {'min-max':>16} {'ci95':>8}",
    ]
    for label, v in res["variants"].items():
        s = v["spread"][head]
        lines.append(
            f"  {label:<{w}} {s['mean']:>22.2f} {s['min']:>7.2f}-{s['max']:<8.2f} {s['ci95']:>8.2f}"
        )
    lines.append("  published:")
    for p in scn["published"]:
        lines.append(f"    {p['metric']}: {p['value']} ({p['source']})")
    if "wall_s" in res:
        w = res.get("workers", 1)
        where = f"on {w}" if isinstance(w, str) else f"{w} process{'es' if w != 1 else ''}"
        lines.append(
            f"  {res['packet_hops']} packet-hops, {res['packet_hops_per_s']:,} packet-hops/s in "
            f"the event loop, {res['wall_s']} s wall ({where})"
        )
        if "runs_cpu_s" in res:
            lines.append(
                f"  CPU: {res['runs_cpu_s']} s over the runs, "
                f"{res['packet_hops_per_cpu_s']:,} packet-hops per CPU-s in the event loop"
            )
    else:
        lines.append(f"  {res['packet_hops']} packet-hops")
    return "\n".join(lines)


def _experiment(args: argparse.Namespace) -> int:
    from fabricsim.experiments import SCENARIOS, get, load_spec, run_scenario, without_timing

    if args.list:
        for name, scn in SCENARIOS.items():
            print(f"{name:<20} {scn.figure}")
        return 0
    if not args.name:
        raise CliError(f"experiment: give a NAME, one of {', '.join(SCENARIOS)} (or --list)")
    try:
        scn = get(args.name)
    except ValueError as e:
        raise CliError(str(e)) from None
    if args.seeds < 1:
        raise CliError(f"--seeds {args.seeds}: at least one seed")
    if args.processes < 1:
        raise CliError(f"--processes {args.processes}: at least one")
    if args.topo:
        try:
            load_spec(args.topo)
        except ValueError as e:
            raise CliError(str(e)) from None
    try:
        res = run_scenario(
            scn,
            seeds=tuple(range(1, args.seeds + 1)),
            quick=args.quick,
            topology=args.topo,
            processes=args.processes,
            scheduler=args.scheduler,
        )
    except RuntimeError as e:
        raise CliError(str(e)) from None
    saved = without_timing(res) if args.no_timing else res
    if args.out:
        d = Path(args.out)
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{scn.name}.json").write_text(json.dumps(saved, indent=1))
    if args.json:
        json.dump(saved, sys.stdout, indent=1)
        print()
    else:
        print(format_result(res))
        if args.out:
            print(f"JSON: {Path(args.out) / (scn.name + '.json')}")
    return 0
