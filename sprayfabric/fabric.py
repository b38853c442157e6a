"""The commands that run a fabric and talk to it:

    sprayfabric fabric up TOPO [--target softswitch|bmv2]  start, program, keep running
    sprayfabric fabric up TOPO --target tofino --bf-out DIR [--switches FILE]
                                                 program running Tofino switches
    sprayfabric fabric down                      stop it (or what a killed `up` left)
    sprayfabric fabric status [--json]           switches, links down, hosts seen
    sprayfabric fabric telemetry [--once]        live table of the metrics
    sprayfabric fabric send SRC DST              frames from one host to another
    sprayfabric fabric shell SWITCH [--primary]  p4runtime-shell on one switch
    sprayfabric lb set MODE [--group G] [...]    load-balancing mode of every group (or G)
    sprayfabric link down|up A B                 fail or restore a link

(The old spellings `up`, `down`, `status`, `telemetry`, `send`, `shell` and `set-lb` are
aliases: sprayfabric.cli.PLACES.)

`up` writes `.sprayfabric/run.json` in the current directory; the other commands read it and
talk to `up`'s control endpoint, so run them from the same directory.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.fabric.control import STATE_FILE, ControlClient, ControlError, RunState
from controller.lb import MODE_CHOICES

from .common import CliError, CommandTree
from .policy_args import add_policy_arguments, policy_from_args

__all__ = ["register"]


def register(sub: CommandTree) -> None:
    """Add `up`, `down`, `status`, `set-lb`, `link`, `telemetry`, `shell` to a subparsers object."""
    p = sub.add_parser("up", help="start a fabric of switches, program it, keep it running")
    p.add_argument("topology", type=Path, metavar="TOPO", help="a topology file (YAML)")
    p.add_argument(
        "--target", choices=("softswitch", "bmv2", "tofino", "tofino2"), default="softswitch"
    )
    p.add_argument(
        "--free-ports",
        action="store_true",
        help="pick free loopback ports for P4Runtime instead of the topology's grpc addresses",
    )
    p.add_argument("--poll-interval", type=float, default=1.0, metavar="S")
    p.add_argument(
        "--switches-per-process",
        type=int,
        default=1,
        metavar="N",
        help="softswitch: N switches per process (one P4Runtime server, the device id picks "
        "the switch), for fabrics too large for a process per switch",
    )
    q = p.add_argument_group(
        "switch queues (BMv2: rate and depth set through simple_switch_CLI once programmed)"
    )
    q.add_argument(
        "--queue-rate",
        type=int,
        metavar="PPS",
        help="every egress port drains at PPS packets/s (queues, ECN, CNPs, trims show up)",
    )
    q.add_argument("--queue-depth", type=int, metavar="N", help="egress queue depth in packets")
    q.add_argument("--priority-queues", type=int, metavar="N", help="queues per port (trimming)")
    t = p.add_argument_group(
        "Tofino switches (--target tofino|tofino2: Stratum or bf_switchd already running "
        "on the boxes; nothing is started here)"
    )
    t.add_argument(
        "--switches",
        type=Path,
        metavar="FILE",
        help="JSON/YAML: switch name -> {address: HOST:PORT, device_id: N} for every switch "
        "of the topology (default: the topology's grpc and device_id)",
    )
    t.add_argument("--bf-out", type=Path, metavar="DIR", help="bf-p4c's output directory (-o)")
    t.add_argument(
        "--p4info", type=Path, metavar="FILE", help="the P4Info (default: the one in DIR)"
    )
    t.add_argument(
        "--cpu-port", type=int, metavar="N", help="the CPU port fabric_tna was built with"
    )
    t.add_argument(
        "--depth-report-port",
        type=int,
        metavar="N",
        help="the recirculation port fabric_tna was built with (-DDEPTH_REPORT_PORT)",
    )
    add_policy_arguments(p)
    p.set_defaults(func=cmd_up)

    p = sub.add_parser(
        "down", help="stop the fabric of this directory, or the switches a killed `up` left"
    )
    p.set_defaults(func=cmd_down)

    p = sub.add_parser("status", help="the running fabric's switches, links and hosts")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("set-lb", help="switch next-hop groups to another load-balancing mode")
    p.add_argument("mode", choices=MODE_CHOICES)
    p.add_argument("--group", type=int, metavar="G", help="only group G (default: every group)")
    p.add_argument("--gap-us", type=int, metavar="US", help="flowlet gap (flowlet mode)")
    p.set_defaults(func=cmd_set_lb)

    p = sub.add_parser("link", help="take a link between two switches down or up")
    p.add_argument("state", choices=("down", "up"))
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.set_defaults(func=cmd_link)

    p = sub.add_parser("telemetry", help="live table of link, member and congestion figures")
    p.add_argument("--once", action="store_true", help="print one table and exit")
    p.add_argument("--interval", type=float, default=1.0, metavar="S")
    p.add_argument("--json", action="store_true", help="with --once: the figures as JSON")
    p.set_defaults(func=cmd_telemetry)

    p = sub.add_parser("send", help="send frames from one host of the fabric to another")
    p.add_argument("src", metavar="SRC")
    p.add_argument("dst", metavar="DST")
    p.add_argument("--count", type=int, default=1000, metavar="N")
    p.add_argument("--flows", type=int, default=8, metavar="N", help="UDP source ports used")
    p.add_argument("--rate", type=float, default=2000.0, metavar="PPS")
    p.add_argument("--size", type=int, default=128, metavar="BYTES")
    p.add_argument("--roce", action="store_true", help="RoCEv2 frames (INT-watched by default)")
    p.add_argument("--ecn", action="store_true", help="ECN-capable frames (ECT(0)): can be marked")
    p.set_defaults(func=cmd_send)

    p = sub.add_parser("shell", help="p4runtime-shell attached to one switch of the fabric")
    p.add_argument("switch", metavar="SWITCH")
    p.add_argument(
        "--primary",
        action="store_true",
        help="take over as primary controller (the fabric's writes fail until the shell exits)",
    )
    p.set_defaults(func=cmd_shell)


def _client() -> tuple[RunState, ControlClient]:
    state = RunState.load(STATE_FILE)
    return state, ControlClient(state.endpoint)


def _fail(msg: str) -> int:
    raise CliError(msg)


# ---------------------------------------------------------------- up
def cmd_up(args: argparse.Namespace) -> int:
    from controller.fabric.up import UpOptions, run_up
    from controller.topology import load_topology

    topo = load_topology(args.topology)  # errors: one line from main
    options = UpOptions(
        topology_path=args.topology,
        target=args.target,
        free_ports=args.free_ports,
        poll_interval=args.poll_interval,
        switches_per_process=args.switches_per_process,
        queue_rate=args.queue_rate,
        queue_depth=args.queue_depth,
        priority_queues=args.priority_queues,
        policy=policy_from_args(args),
        switches_file=args.switches,
        bf_out=args.bf_out,
        p4info=args.p4info,
        cpu_port=args.cpu_port,
        depth_report_port=args.depth_report_port,
    )
    return run_up(topo, options)


def cmd_down(args: argparse.Namespace) -> int:
    from controller.fabric.up import run_down

    return run_down()


# ---------------------------------------------------------------- status
def cmd_status(args: argparse.Namespace) -> int:
    from controller.fabric.tofino_files import RECORD_NAME

    record = STATE_FILE.parent / RECORD_NAME
    if not STATE_FILE.exists() and record.exists():
        return _tofino_status(record, args.json)
    try:
        _state, c = _client()
        st = c.get("/api/status")
    except ControlError as e:
        return _fail(str(e))
    if args.json:
        print(json.dumps(st, indent=2))
        return 0
    print(f"fabric {st['topology']} on {st['target']}; INT collector {st['collector']}")
    rows: list[tuple[str, ...]] = [
        ("switch", "address", "device", "pid", "state", "entries", "writes", "restores")
    ]
    for name, s in st["switches"].items():
        rows.append(
            (
                name,
                s["address"],
                str(s["device_id"]),
                str(s["pid"] or "-"),
                "up" if s["connected"] else "DOWN",
                str(s["entries"]),
                str(s["writes"]),
                str(s["restores"]),
            )
        )
    print(_table(rows))
    print(f"links down: {', '.join(st['links_down']) or 'none'}")
    faults = st.get("faults", [])
    listed = ", ".join(f"{f['id']} {f['spec']}" for f in faults)
    print(f"faults: {listed or 'none'}")
    seen = st["hosts_seen"]
    if seen:
        print(f"hosts seen (ARP): {len(seen)}")
        for ip, h in seen.items():
            print(f"  {ip:15} {h['switch']} port {h['port']}: {h['verdict']} ({h['host'] or '?'})")
    return 0


def _tofino_status(record_file: Path, as_json: bool) -> int:
    """No `up` running, but a Tofino fabric was programmed from here: read its switches."""
    from controller.fabric.tofino import read_back
    from controller.fabric.tofino_files import TofinoRecord, TofinoSetupError

    try:
        record = TofinoRecord.load(record_file)
        got = read_back(record)
    except (TofinoSetupError, OSError) as e:
        return _fail(str(e))
    if as_json:
        print(json.dumps({"topology": record.topology, "target": record.target, "switches": got}))
        return 0
    print(f"fabric {record.topology} on {record.target} (no controller running: read back)")
    rows: list[tuple[str, ...]] = [("switch", "address", "device", "pipeline", "entries")]
    for name, s in got.items():
        held = s.get("entries", {})
        rows.append(
            (
                name,
                s["address"],
                str(s["device_id"]),
                s.get("pipeline", "-"),
                str(sum(held.values())) if "error" not in s else f"UNREACHABLE: {s['error']}",
            )
        )
    print(_table(rows))
    return 0


def _table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )


# ---------------------------------------------------------------- set-lb / link
def cmd_set_lb(args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"mode": args.mode, "group": args.group}
    if args.gap_us is not None:
        body["gap_us"] = args.gap_us
    try:
        _state, c = _client()
        r = c.post("/api/lb", body)
    except ControlError as e:
        return _fail(str(e))
    where = f"group {args.group}" if args.group is not None else "every group"
    print(
        f"{where} now {args.mode}: {r['modified']} entries modified on {r['switches']} "
        f"switches ({r['writes']} writes)"
    )
    return 0


def cmd_link(args: argparse.Namespace) -> int:
    try:
        _state, c = _client()
        r = c.post("/api/link", {"a": args.a, "b": args.b, "up": args.state == "up"})
    except ControlError as e:
        return _fail(str(e))
    fast = (
        f"{r['fast_groups']} groups stopped using it at once, then " if args.state == "down" else ""
    )
    print(
        f"link {args.a}-{args.b} {args.state}: {fast}routes recomputed, +{r['inserted']} "
        f"~{r['modified']} -{r['deleted']} entries ({r['writes']} writes); "
        f"links down: {', '.join(r['links_down']) or 'none'}"
    )
    return 0


# ---------------------------------------------------------------- telemetry
def _rate(bps: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.1f}{unit}"
    return f"{bps:.0f}"


def _pct(ratio: float) -> str:
    """A utilisation: one decimal from 1%, two significant digits below (a software
    switch fills a fraction of a 100G link: 0.00024%, not 0.00%)."""
    pct = 100 * ratio
    if pct == 0:
        return "0%"
    return f"{pct:.1f}%" if pct >= 1 else f"{pct:.2g}%"


def render_telemetry(t: dict[str, Any]) -> str:
    """The telemetry figures as plain-text tables."""
    out: list[str] = []
    rows: list[tuple[str, ...]] = [
        ("link", "tx b/s", "rx b/s", "util", "queue", "int q", "tx pkts", "ecn", "trim", "cnp")
    ]
    for lk in t.get("links", []):
        rows.append(
            (
                f"{lk['switch']}:{lk['port']}->{lk['peer']}",
                _rate(lk["tx_bps"]),
                _rate(lk["rx_bps"]),
                _pct(lk["utilization"]),
                "-" if lk["queue"] is None else str(lk["queue"]),
                "-" if lk.get("int_queue") is None else str(lk["int_queue"]),
                str(lk["tx_packets"]),
                str(lk["ecn_marked"]),
                str(lk["trimmed"]),
                str(lk["cnp"]),
            )
        )
    out.append(_table(rows))
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for m in t.get("members", []):
        groups.setdefault((m["switch"], m["group"]), []).append(m)
    busy = {k: v for k, v in groups.items() if sum(m["packets"] for m in v) and len(v) > 1}
    if busy:
        out.append("")
        rows = [("group", "members: port, packets, share of the group's packets")]
        for (sw, g), ms in sorted(busy.items()):
            total = sum(m["packets"] for m in ms)
            spread = "  ".join(
                f"p{m['port']} {m['packets']} ({100 * m['packets'] / total:.1f}%)" for m in ms
            )
            rows.append((f"{sw} g{g}", spread))
        out.append(_table(rows))
    notes = []
    for s in t.get("switches", []):
        bits = []
        if s["drops"]:
            bits.append("drops " + ", ".join(f"{k}={v}" for k, v in s["drops"].items()))
        if s["int_reports"]:
            bits.append(f"INT reports {s['int_reports']}")
        if s["int_hop_latency_ns"] is not None:
            bits.append(f"last hop latency {s['int_hop_latency_ns'] / 1000:.1f} us")
        if bits:
            notes.append(f"{s['switch']}: " + "; ".join(bits))
    if notes:
        out.append("")
        out.extend(notes)
    return "\n".join(out)


def cmd_telemetry(args: argparse.Namespace) -> int:
    try:
        _state, c = _client()
        while True:
            t = c.get("/api/telemetry")
            if args.once:
                print(json.dumps(t, indent=2) if args.json else render_telemetry(t))
                return 0
            sys.stdout.write("\x1b[H\x1b[2J" + time.strftime("%H:%M:%S ") + "\n")
            sys.stdout.write(render_telemetry(t) + "\n")
            sys.stdout.flush()
            time.sleep(args.interval)
    except ControlError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        return 0


# ---------------------------------------------------------------- send
def cmd_send(args: argparse.Namespace) -> int:
    from controller.fabric.traffic import send

    try:
        state = RunState.load(STATE_FILE)
        src, dst = state.host(args.src), state.host(args.dst)
    except ControlError as e:
        return _fail(str(e))
    if state.target in ("tofino", "tofino2"):
        return _fail(
            f"the hosts of a {state.target} fabric are the machines cabled to its switches: "
            "send from them (no cable of theirs ends here)"
        )
    r = send(
        src,
        dst,
        args.count,
        flows=args.flows,
        size=args.size,
        roce=args.roce,
        ecn=args.ecn,
        rate_pps=args.rate,
    )
    extra = "".join(
        f", {n} {what}" for n, what in ((r.trimmed, "trimmed"), (r.ce_marked, "CE-marked")) if n
    )
    print(
        f"{src.name} ({src.ip}) -> {dst.name} ({dst.ip}): {r.sent} sent, {r.received} received, "
        f"{r.lost} lost, {r.reordered} reordered{extra}, {r.seconds:.1f} s"
    )
    return 0 if r.lost == 0 else 1


# ---------------------------------------------------------------- shell
def cmd_shell(args: argparse.Namespace) -> int:
    try:
        state = RunState.load(STATE_FILE)
        sw = state.switch(args.switch)
    except ControlError as e:
        return _fail(str(e))
    election = f"0,{state.election_id + 1}" if args.primary else "0,1"
    argv = [
        sys.executable,
        "-m",
        "p4runtime_sh",
        "--grpc-addr",
        sw.address,
        "--device-id",
        str(sw.device_id),
        "--election-id",
        election,
    ]
    role = (
        "primary (the fabric's writes to it fail until you exit)"
        if args.primary
        else "backup (read-only)"
    )
    print(
        f"p4runtime-shell on {sw.name} ({sw.address}, device {sw.device_id}) as {role}", flush=True
    )
    try:
        os.execv(sys.executable, argv)
    except OSError as e:
        return _fail(f"cannot start p4runtime-shell: {e}")
    return 0  # not reached
