"""`sprayfabric doctor diagnose RUN.json` and `sprayfabric doctor eval TOPO`: localise the fault
behind lost or slow probes (fabricsim.doctor), and measure how often it is right."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from .common import CliError, CommandTree, read_json

__all__ = ["hit_rank", "observable", "random_fault", "register"]


def register(sub: CommandTree) -> None:
    p = sub.add_parser(
        "doctor",
        help="rank the links or switches behind a run's lost or slow probes",
        description="Reads a run's JSON (sprayfabric sim run --probes --json FILE) and ranks "
        "suspect links and switches, 007-style votes over the probes' paths, with evidence.",
    )
    p.add_argument("run", metavar="RUN.json")
    p.add_argument("--json", action="store_true", help="the diagnosis as JSON")
    p.add_argument(
        "--html",
        metavar="FILE",
        help="also write one self-contained HTML page: the fabric with links coloured by "
        "suspicion, the probe matrix, the suspects",
    )
    p.set_defaults(func=_doctor)
    e = sub.add_parser(
        "doctor-eval",
        help="inject random faults in short probe runs and score the doctor",
        description="N runs each with one random fault (loss, slow, blackhole, flap, "
        "wcmp-skew, pfc-storm or hot-port at a random place, from the seed) and some runs "
        "without; counts top-1 and top-3 hits and false alarms.",
    )
    e.add_argument("topology", metavar="TOPO")
    e.add_argument("--faults", type=int, default=10, metavar="N")
    e.add_argument("--no-fault-runs", type=int, default=None, metavar="Z", help="default N/4")
    e.add_argument("--seed", type=int, default=1)
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=_eval)


def _doctor(args: argparse.Namespace) -> int:
    from fabricsim.doctor import diagnose, format_report

    path = Path(args.run)
    run = read_json(path)
    d = diagnose(run)
    if run.get("faults"):
        d["injected"] = run["faults"]
    if args.html:
        from fabricsim.doctor_html import render_html

        try:
            page = render_html(run, d)
        except ValueError as e:
            raise CliError(f"--html: {path}: {e}") from None
        Path(args.html).write_text(page)
        print(f"wrote {args.html}", file=sys.stderr)
    if args.json:
        json.dump(d, sys.stdout, indent=1)
        print()
    else:
        print(format_report(d))
    return 0


# what doctor-eval injects, per kind
EVAL_ARGS = {
    "loss": "0.05",
    "slow": "0.25",
    "flap": "100000ns/0.5",
    "wcmp-skew": "8",
    "hot-port": "0.8",
}


def random_fault(topo: Any, rng: random.Random) -> Any:
    """One fault of a random kind (fabricsim.faults.KINDS) at a random place of `topo`:
    loss (one direction), slow, flap or a hot port (one direction) on a switch-to-switch
    link; a blackhole of a leaf's prefix at a transit switch; a WCMP skew toward one
    member at a switch with an equal-cost group; a PFC storm from a host."""
    from fabricsim.faults import KINDS, Fault

    kind = rng.choice(KINDS)
    if kind == "blackhole":
        transit = [s for s in topo.switches if not topo.hosts_of(s.name)]
        sw = rng.choice(transit)
        nets = [n for s in topo.switches for n in s.subnets]
        return Fault("blackhole", (sw.name,), rng.choice(nets), 0)
    if kind == "pfc-storm":
        return Fault(kind, (rng.choice(topo.hosts).name,), "", 0)
    if kind == "wcmp-skew":
        groups = _ecmp_choices(topo)
        sw = rng.choice(sorted(groups))
        return Fault(kind, (sw, rng.choice(sorted(groups[sw]))), EVAL_ARGS[kind], 0)
    link = rng.choice(list(topo.links))
    a, b = (link.a, link.b) if rng.random() < 0.5 else (link.b, link.a)
    return Fault(kind, (a, b), EVAL_ARGS[kind], 0)


def _ecmp_choices(topo: Any) -> dict[str, set[str]]:
    """Switch -> the neighbours that are members of one of its equal-cost groups (two
    or more next hops toward some host)."""
    import networkx as nx

    g = nx.Graph()
    g.add_edges_from((link.a, link.b) for link in topo.links)
    g.add_edges_from((h.name, h.switch) for h in topo.hosts)
    out: dict[str, set[str]] = {}
    for h in topo.hosts:
        d = nx.single_source_shortest_path_length(g, h.name)
        for s in topo.switches:
            near = {n for n in g[s.name] if d.get(n) == d[s.name] - 1}
            if len(near) > 1:
                out.setdefault(s.name, set()).update(near)
    return out


def hit_rank(d: dict[str, Any], fault: Any) -> int | None:
    """1-based rank of the injected fault's place among the suspects (None: not among
    them): the link for loss, slow and flap (either direction), the direction for a hot
    port, the switch for a blackhole or a WCMP skew, the host for a PFC storm."""
    for i, s in enumerate(d["suspects"], 1):
        if _places_match(s, fault):
            return i
    return None


def _places_match(s: dict[str, Any], fault: Any) -> bool:
    if fault.kind in ("blackhole", "wcmp-skew"):
        return s["kind"] == "switch" and s["where"] == fault.place[0]
    if fault.kind == "pfc-storm":
        return s["kind"] == "host" and s["where"] == fault.place[0]
    if s["kind"] != "link":
        return False
    if fault.kind == "hot-port":
        return tuple(s["link"]) == fault.place
    return set(s["link"]) == set(fault.place)


def observable(run: dict[str, Any], fault: Any) -> bool:
    """Did any probe cross the fault's place (the direction, for loss and hot-port)? With
    one hash at every switch some links carry no probe at all (fat-tree-k4: half of the
    aggregation-to-core links); a fault there cannot be seen, and harms nothing."""
    hops: set[tuple[str, str]] = set()
    nodes: set[str] = set()
    for a in run.get("probes", []):
        p = a["path"]
        nodes.update(p)
        hops.update(zip(p, p[1:], strict=False))
    if fault.kind in ("loss", "hot-port"):
        return fault.place in hops
    if len(fault.place) == 2 and fault.kind != "wcmp-skew":
        a, b = fault.place
        return (a, b) in hops or (b, a) in hops
    return fault.place[0] in nodes


def _by_kind(rows: list[dict[str, Any]]) -> dict[str, list[int]]:
    """kind -> [runs, top-1 hits, top-3 hits]."""
    out: dict[str, list[int]] = {}
    for r in rows:
        if r["kind"] is None:
            continue
        c = out.setdefault(r["kind"], [0, 0, 0])
        c[0] += 1
        c[1] += r["rank"] == 1
        c[2] += r["rank"] is not None and r["rank"] <= 3
    return dict(sorted(out.items()))


def _eval(args: argparse.Namespace) -> int:
    from controller.topology import load_topology
    from fabricsim.doctor import diagnose
    from fabricsim.run import SimConfig, simulate

    if args.faults < 0:
        raise CliError("--faults: at least 0")
    if not Path(args.topology).is_file():
        raise CliError(f"{args.topology}: no such topology file")
    topo = load_topology(args.topology)
    rng = random.Random(args.seed)
    z = args.no_fault_runs if args.no_fault_runs is not None else max(1, args.faults // 4)
    plan = [random_fault(topo, rng) for _ in range(args.faults)] + [None] * z
    top1 = top3 = false_alarms = cause1 = 0
    seen = seen1 = seen3 = 0
    rows = []
    for i, fault in enumerate(plan):
        cfg = SimConfig(
            workload="permutation",
            seed=args.seed * 1000 + i,
            flow_bytes=20_000,
            probes=True,
            time_limit_ns=600_000,
            faults=(fault,) if fault is not None else (),
            reports=True,  # drop and queue reports: evidence beside probes and counters
        )
        r = simulate(topo, cfg)
        record = r.to_dict()
        d = diagnose(record)
        rank = hit_rank(d, fault) if fault is not None else None
        vis = fault is not None and observable(record, fault)
        if fault is None:
            false_alarms += bool(d["suspects"])
        else:
            top1 += rank == 1
            top3 += rank is not None and rank <= 3
            cause1 += rank == 1 and d["suspects"][0]["cause"] == fault.kind
            seen += vis
            seen1 += vis and rank == 1
            seen3 += vis and rank is not None and rank <= 3
        what = fault.spec() if fault is not None else "no fault"
        rows.append(
            {
                "kind": fault.kind if fault else None,
                "fault": what,
                "verdict": d["verdict"],
                "rank": rank,
            }
        )
        print(f"[{i + 1}/{len(plan)}] {what}: {d['verdict']} (rank {rank})", file=sys.stderr)
    out = {
        "faults": args.faults,
        "top1": top1,
        "top3": top3,
        "false_alarms": false_alarms,
        "no_fault_runs": z,
        "top1_with_cause": cause1,  # the first suspect also names the right kind of fault
        # faults at a place some probe crossed, and the hits among them
        "observable": seen,
        "top1_observable": seen1,
        "top3_observable": seen3,
        "by_kind": _by_kind(rows),
    }
    if args.json:
        json.dump(out | {"runs": rows}, sys.stdout, indent=1)
        print()
    else:
        print(json.dumps(out))
    return 0
