"""Faults and probes on a running fabric (`sprayfabric fabric up` in this directory):

    sprayfabric fault inject KIND:ARGS        e.g. loss:leaf1-spine1,0.05 (fabricsim's --fault syntax)
    sprayfabric fault list [--json]           the active faults and what each changed
    sprayfabric fault clear ID | --all        undo them
    sprayfabric fabric probe [--pairs all] [--paths N] [--rounds R] --json OUT
                                              Pingmesh-style probes; OUT is doctor's input

How they act: controller/fabric/live_faults.py and live_probe.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from controller.fabric.control import STATE_FILE, ControlClient, ControlError, RunState

from .common import CliError, CommandTree

__all__ = ["register"]


def register(sub: CommandTree) -> None:
    p = sub.add_parser("fault", help="inject, list or clear faults on the running fabric")
    fs = p.add_subparsers(dest="fault_cmd", metavar="ACTION", required=True)
    i = fs.add_parser(
        "inject",
        help="inject a fault: loss, slow, flap, blackhole, wcmp-skew, pfc-storm or hot-port",
        description="KIND:ARGS as fabricsim's --fault (no time: it starts now): "
        "loss:A-B,FRAC  slow:A-B,FRAC  flap:A-B,PERIOD[/DUTY]  blackhole:SWITCH,PREFIX  "
        "wcmp-skew:A-B,WEIGHT  pfc-storm:HOST  hot-port:SWITCH-PEER,BUSY.",
    )
    i.add_argument("spec", metavar="KIND:ARGS")
    i.set_defaults(func=_inject)
    c = fs.add_parser("clear", help="undo one fault (its id) or all of them")
    c.add_argument("id", nargs="?", type=int, metavar="ID")
    c.add_argument("--all", action="store_true")
    c.set_defaults(func=_clear)
    ls = fs.add_parser("list", help="the active faults")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=_list)

    p = sub.add_parser(
        "probe",
        help="probe every host pair over several paths; the JSON is doctor's input",
        description="Each round every host probes each peer from --paths UDP source ports "
        "(paths from INT, lost 5-tuples traced); writes the latency/loss aggregates "
        "`sprayfabric doctor diagnose OUT.json` reads. Needs ecmp groups (lb set ecmp).",
    )
    p.add_argument("--pairs", default="all", metavar="all|A-B,...")
    p.add_argument("--paths", type=int, default=4, metavar="N", help="source ports per pair")
    p.add_argument("--rounds", type=int, default=20, metavar="R")
    p.add_argument("--interval", type=float, default=0.05, metavar="S", help="seconds a round")
    p.add_argument("--json", required=True, type=Path, metavar="OUT")
    p.set_defaults(func=_probe)


def _client() -> ControlClient:
    return ControlClient(RunState.load(STATE_FILE).endpoint, timeout=300.0)


def _post(path: str, body: dict[str, Any]) -> Any:
    try:
        return _client().post(path, body)
    except ControlError as e:
        raise CliError(str(e)) from None


def describe(f: dict[str, Any]) -> str:
    """One line for an active fault: its id, spec and what it changed."""
    bits = []
    for sw, ports in (f.get("cables") or {}).items():
        for port, s in ports.items():
            bits.append(f"{sw} port {port} {', '.join(_setting(k, v) for k, v in s.items())}")
    for sw, e in (f.get("entries") or {}).items():
        if sw != "written":
            bits.append(f"{sw}: {len(e['before'])} entries replaced by {len(e['after'])}")
    return f"{f['id']}  {f['spec']}  ({'; '.join(bits)})"


def _setting(key: str, value: Any) -> str:
    if key == "flap":
        return f"down {value[1]:.0%} of every {value[0]:g} s"
    if key == "rate_pps":
        return f"{value:g} frames/s"
    if key == "busy":
        return f"busy {value[1]:.0%} of every {value[0]:g} s"
    if key == "pause":
        return "paused by its peer"
    return f"{key} {value:g}"


def _inject(args: argparse.Namespace) -> int:
    r = _post("/api/fault", {"op": "inject", "spec": args.spec})
    written = (r.get("entries") or {}).get("written")
    extra = (
        f"; +{written['inserted']} ~{written['modified']} -{written['deleted']} entries "
        f"({written['writes']} writes)"
        if written
        else ""
    )
    print(f"fault {describe(r)}{extra}")
    return 0


def _clear(args: argparse.Namespace) -> int:
    if args.all == (args.id is not None):
        raise CliError("fault clear: give a fault id or --all")
    body: dict[str, Any] = (
        {"op": "clear", "all": True} if args.all else {"op": "clear", "id": args.id}
    )
    r = _post("/api/fault", body)
    if args.all:
        ids = ", ".join(str(i) for i in r["cleared"]) or "none"
        print(f"cleared faults: {ids}")
        return 0
    back = r.get("restored")
    what = (
        f"entries restored: +{back['inserted']} ~{back['modified']} -{back['deleted']}"
        if back
        else f"cables restored: {', '.join(r.get('cables', []))}"
    )
    print(f"cleared fault {r['id']} {r['spec']}: {what}")
    return 0


def _list(args: argparse.Namespace) -> int:
    try:
        r = _client().get("/api/faults")
    except ControlError as e:
        raise CliError(str(e)) from None
    if args.json:
        print(json.dumps(r, indent=1))
        return 0
    if not r["faults"]:
        print("no faults")
    for f in r["faults"]:
        print(describe(f))
    return 0


def _probe(args: argparse.Namespace) -> int:
    pairs: Any = "all"
    if args.pairs != "all":
        pairs = []
        for item in args.pairs.split(","):
            a, sep, b = item.strip().partition("-")
            if not sep or not a or not b:
                raise CliError(f"--pairs: {item!r}: expected SRC-DST (e.g. h1-h4), or all")
            pairs.append([a, b])
    out = _post(
        "/api/probe",
        {"rounds": args.rounds, "paths": args.paths, "interval_s": args.interval, "pairs": pairs},
    )
    args.json.write_text(json.dumps(out, indent=1) + "\n")
    sent = sum(a["sent"] for a in out["probes"])
    got = sum(a["received"] for a in out["probes"])
    p = out["probe"]
    for w in out.get("warnings", []):
        print(f"sprayfabric: warning: {w}", file=sys.stderr)
    print(
        f"{sent} probes over {p['pairs']} pairs x {p['paths']} source ports in "
        f"{p['seconds']:.1f} s: {sent - got} lost, {len(out['probes'])} paths, "
        f"{p['traced_tuples']} 5-tuples traced; wrote {args.json}"
    )
    return 0
