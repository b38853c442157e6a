"""`sprayfabric sim run` and `sprayfabric sim sweep`: fabric.p4 on every switch of a simulated
fabric (fabricsim), one run or a grid of runs."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.lb import MODE_CHOICES, MODE_LABELS

from .common import CliError, CommandTree, checked, output

__all__ = ["parse_fail_link", "parse_time_ns", "register"]

_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
WORKLOADS = (
    "permutation",
    "incast",
    "all_to_all",
    "ring_allreduce",
    "poisson",
    "allreduce",
    "alltoall",
)
RECEIVERS = ("tolerant", "selective", "go_back_n", "in_order")
TRANSPORTS = ("dcqcn", "dctcp", "hpcc", "ndp", "none")


def parse_time_ns(text: str) -> int:
    """`50us`, `0.2ms`, `1500ns`, `1s`; a bare number is microseconds."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ns|us|ms|s)?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"expected a time such as 50us or 0.2ms, got {text!r}")
    return int(float(m[1]) * _UNITS[m[2] or "us"])


def _positive_time(text: str) -> int:
    t = parse_time_ns(text)
    if t <= 0:
        raise argparse.ArgumentTypeError(f"expected a time above 0, got {text!r}")
    return t


_positive_int = checked(int, lambda n: n >= 1, "a whole number of at least 1")
_depth = checked(int, lambda n: n >= 0, "a queue depth in packets (0 or more) or off")


def _depth_or_off(text: str) -> int | None:
    """`--trim-threshold`, `--ecn-step`: packets, or `off` (no trimming: tail drop; no
    marking)."""
    return None if text.strip() == "off" else int(_depth(text))


def _ecn_red(text: str) -> Any:
    """`--ecn-red KMIN,KMAX,PMAX`: a controller.lb.EcnRed, parsed as `fabric up` parses the
    same flag (controller.lb.flags)."""
    from controller.lb import PolicyError, PolicyFlags, policy_with_flags

    try:
        return policy_with_flags(PolicyFlags(ecn_red=text)).ecn
    except PolicyError as e:
        raise argparse.ArgumentTypeError(e.message) from None


_offered_load = checked(
    float,
    lambda x: 0 < x <= 1,
    "an offered load above 0 and at most 1 (0.5: half the line rate)",
)


def parse_fail_link(text: str) -> tuple[str, str, int]:
    """`A,B@T`: the link between A and B fails at time T."""
    link, sep, when = text.partition("@")
    parts = [p.strip() for p in link.split(",")]
    if not sep or len(parts) != 2 or not all(parts):
        raise argparse.ArgumentTypeError(
            f"expected A,B@TIME (e.g. leaf1,spine1@50us), got {text!r}"
        )
    return parts[0], parts[1], parse_time_ns(when)


def _storm(text: str) -> tuple[str, int]:
    host, sep, when = text.partition("@")
    if not sep or not host.strip():
        raise argparse.ArgumentTypeError(f"expected HOST@TIME (e.g. h16@20us), got {text!r}")
    return host.strip(), parse_time_ns(when)


def _faults(topo: Any, specs: list[str]) -> tuple[Any, ...]:
    from fabricsim.faults import FaultError, parse_fault

    names = {s.name for s in topo.switches} | {h.name for h in topo.hosts}
    out = []
    for text in specs:
        try:
            fault = parse_fault(text, names)
            fault.check(topo)
        except FaultError as e:
            raise CliError(f"--fault: {e}") from None
        out.append(fault)
    return tuple(out)


def parse_transport_param(text: str) -> tuple[str, float]:
    """`NAME=VALUE` (a transport parameter, e.g. g=0.0039 or rate_timer_ns=55000)."""
    name, sep, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        number = None
    if not sep or not name.strip() or number is None:
        raise argparse.ArgumentTypeError(f"expected NAME=NUMBER (e.g. g=0.0039), got {text!r}")
    return name.strip(), number


def _csv(kind: Callable[[str], Any], choices: tuple[str, ...] | None = None) -> Any:
    def parse(text: str) -> list[Any]:
        items = [kind(x.strip()) for x in text.split(",") if x.strip()]
        if not items:
            raise argparse.ArgumentTypeError("expected a comma-separated list")
        if choices is not None:
            bad = [x for x in items if x not in choices]
            if bad:
                raise argparse.ArgumentTypeError(f"{bad[0]!r} is not one of {', '.join(choices)}")
        return items

    return parse


def _common(p: argparse.ArgumentParser) -> None:
    from fabricsim.workloads import SIZE_MIXES

    p.add_argument("topology", metavar="TOPO", help="topology file (YAML)")
    p.add_argument(
        "--size-mix",
        choices=SIZE_MIXES,
        default="websearch",
        help="poisson workload: the published flow-size distribution, scaled to a mean of "
        "--flow-bytes (websearch: DCTCP's web search; hadoop: Facebook's Hadoop)",
    )
    p.add_argument(
        "--flow-bytes", type=_positive_int, default=300_000, help="bytes per flow (default 300000)"
    )
    p.add_argument(
        "--receiver",
        choices=RECEIVERS,
        default="tolerant",
        help="out-of-order handling: tolerant (direct placement), selective (bounded "
        "window, see --reorder-window), go_back_n (alias in_order)",
    )
    p.add_argument(
        "--reorder-window",
        type=_positive_int,
        default=64,
        metavar="PKTS",
        help="selective receiver: packets its bitmap holds beyond the next expected one",
    )
    p.add_argument(
        "--transport",
        choices=TRANSPORTS,
        default="dcqcn",
        help="congestion control (default dcqcn; none: a fixed BDP window)",
    )
    p.add_argument(
        "--transport-param",
        type=parse_transport_param,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override one of the transport's parameters (repeatable)",
    )
    p.add_argument(
        "--pmtu",
        type=_positive_int,
        default=1442,
        help="payload bytes per data packet (default 1442: 1500-byte frames; RoCE: 4096)",
    )
    p.add_argument(
        "--fan-in",
        type=_positive_int,
        help="incast senders (default: every host on other leaves)",
    )
    p.add_argument(
        "--trim-threshold",
        type=_depth_or_off,
        default=64,
        metavar="PKTS",
        help="switches trim packets toward a queue deeper than PKTS (default 64; off: tail drop)",
    )
    ecn = p.add_mutually_exclusive_group()
    ecn.add_argument(
        "--ecn-step",
        type=_depth_or_off,
        default=20,
        metavar="PKTS",
        help="switches mark CE on packets joining a queue of more than PKTS (DCTCP step; "
        "default 20; off: no marking)",
    )
    ecn.add_argument(
        "--ecn-red",
        type=_ecn_red,
        metavar="KMIN,KMAX,PMAX",
        help="a RED ramp instead of the step: no marks up to KMIN packets queued, then a "
        "probability rising to PMAX/256 at KMAX, every packet from KMAX (DCQCN)",
    )
    p.add_argument("--pfc", action="store_true", help="lossless: PFC pause on switch ingress")
    p.add_argument("--watchdog", type=_positive_time, metavar="TIME", help="PFC watchdog timeout")
    p.add_argument(
        "--no-cc", action="store_true", help="no congestion control (same as --transport none)"
    )
    p.add_argument(
        "--time-limit",
        type=_positive_time,
        default=parse_time_ns("20ms"),
        metavar="TIME",
        help="simulated time a run may take (default 20ms)",
    )


def register(sub: CommandTree) -> None:
    p = sub.add_parser(
        "sim",
        help="simulate a fabric running fabric.p4 under a workload",
        description="Discrete-event simulation: every switch of TOPO runs p4src/fabric.p4 "
        "(softswitch), programmed through P4Runtime entities by the controller's routing and "
        "encoder; hosts run the chosen transport (DCQCN, DCTCP, HPCC or NDP-style). Prints the key figures; --json "
        "writes everything.",
    )
    _common(p)
    p.add_argument("--workload", choices=WORKLOADS, default="permutation")
    p.add_argument(
        "--chunk-bytes",
        type=_positive_int,
        metavar="BYTES",
        help="allreduce/alltoall: bytes each flow (chunk) carries, instead of --flow-bytes "
        "as the whole buffer; the JSON then has the job record `sprayfabric report job` reads",
    )
    p.add_argument("--mode", choices=MODE_CHOICES, default="ecmp")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--load",
        type=_offered_load,
        default=0.5,
        help="poisson workload: offered load, 0 < LOAD <= 1",
    )
    p.add_argument(
        "--fail-link", type=parse_fail_link, metavar="A,B@TIME", help="fail a link mid-run"
    )
    p.add_argument(
        "--storm", type=_storm, metavar="HOST@TIME", help="HOST stops receiving (PFC storm)"
    )
    p.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="KIND:ARGS@TIME",
        help="inject a fault (repeatable): loss:A-B,FRAC@T, slow:A-B,FRAC@T, "
        "blackhole:SWITCH,PREFIX@T, flap:A-B,PERIOD[/DUTY]@T, wcmp-skew:SWITCH-PEER,WEIGHT@T, "
        "pfc-storm:HOST@T, hot-port:SWITCH-PEER,BUSY@T (docs/doctor.md); recorded in the "
        "JSON as ground truth",
    )
    p.add_argument(
        "--probes", action="store_true", help="Pingmesh-style UDP probes between host pairs"
    )
    p.add_argument(
        "--reports",
        action="store_true",
        help="drop and queue reports from every switch to the collector, kept in the JSON "
        'as "alerts" (the doctor reads them)',
    )
    p.add_argument("--json", metavar="FILE", help="write the full result as JSON (- for stdout)")
    p.add_argument("--plots", metavar="DIR", help="write queue and uplink plots to DIR")
    p.set_defaults(func=_sim)
    s = sub.add_parser(
        "sweep",
        help="a grid of simulations on a process pool or a Dask cluster",
        description="Every combination of modes x workloads x seeds x loads, on a local "
        "process pool, or on an existing Dask distributed cluster with --scheduler.",
    )
    _common(s)
    s.add_argument("--modes", type=_csv(str, MODE_CHOICES), default=list(MODE_LABELS))
    s.add_argument("--workloads", type=_csv(str, WORKLOADS), default=["permutation"])
    s.add_argument("--seeds", type=_csv(int), default=[1])
    s.add_argument(
        "--loads", type=_csv(_offered_load), default=[0.5], help="poisson workload loads"
    )
    s.add_argument("--processes", type=_positive_int, default=2)
    s.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler (tcp://host:8786)")
    s.add_argument("-o", "--output", metavar="FILE", help="results as JSON (default stdout)")
    s.set_defaults(func=_sweep)


def _config(args: argparse.Namespace, **kw: Any) -> Any:
    if args.watchdog is not None and not args.pfc:
        raise CliError("--watchdog needs --pfc (it ends PFC pause storms)")
    if getattr(args, "storm", None) and not args.pfc:
        raise CliError("--storm needs --pfc (a stuck receiver pauses its switch)")
    transport = "none" if args.no_cc else args.transport
    try:
        cfg = _make_config(args, transport, kw)
    except ValueError as e:
        raise CliError(str(e)) from None
    return cfg


def _make_config(args: argparse.Namespace, transport: str, kw: dict[str, Any]) -> Any:
    from fabricsim.network import NetParams
    from fabricsim.run import SimConfig
    from fabricsim.switchnode import PfcParams

    return SimConfig(
        flow_bytes=args.flow_bytes,
        receiver=args.receiver,
        reorder_window=args.reorder_window,
        transport=transport,
        transport_params=tuple(args.transport_param),
        pmtu=args.pmtu,
        size_mix=args.size_mix,
        fan_in=args.fan_in,
        trim_threshold=args.trim_threshold,
        ecn_threshold=args.ecn_step,
        ecn_red=args.ecn_red,
        time_limit_ns=args.time_limit,
        net=NetParams(pfc=PfcParams(enabled=args.pfc, watchdog_ns=args.watchdog)),
        **kw,
    )


def _load(path: str) -> Any:
    from controller.topology import load_topology

    if not Path(path).is_file():
        raise CliError(f"{path}: no such topology file")
    return load_topology(path)


def _sim(args: argparse.Namespace) -> int:
    from fabricsim.run import simulate

    topo = _load(args.topology)
    for a, b in [args.fail_link[:2]] if args.fail_link else []:
        if topo.link_between(a, b) is None:
            raise CliError(f"--fail-link: {topo.name} has no link between {a} and {b}")
    if args.storm and not topo.is_host(args.storm[0]):
        raise CliError(f"--storm: {topo.name} has no host {args.storm[0]}")
    if args.chunk_bytes is not None:
        from fabricsim.collective import buffer_bytes

        try:
            args.flow_bytes = buffer_bytes(args.workload, len(topo.hosts), args.chunk_bytes)
        except ValueError as e:
            raise CliError(f"--chunk-bytes: {e}") from None
    cfg = _config(
        args,
        workload=args.workload,
        mode=args.mode,
        seed=args.seed,
        load=args.load,
        fail_link=args.fail_link,
        storm=args.storm,
        faults=_faults(topo, args.fault),
        probes=args.probes,
        reports=args.reports,
    )
    r = simulate(topo, cfg, progress=sys.stderr.isatty())
    if args.json:
        with output(args.json) as f:
            json.dump(r.to_dict(), f, indent=1)
    if args.json != "-":
        print(
            f"{cfg.label()} on {topo.name}: {r.flows_completed}/{r.flows} flows "
            f"in {r.sim_time_us} us simulated, {r.packet_hops} packet-hops, {r.wall_s} s"
        )
        print("\n".join(r.column_lines()))
        print(f"  pause_us {r['pfc_pause_us']}")
        if "job" in r:  # a collective
            where = args.json or "RUN.json (with --json)"
            print(f"  steps    {r['job']['steps']}: sprayfabric report job {where}")
    if args.plots:
        from fabricsim.plots import plot_queues, plot_uplinks

        d = Path(args.plots)
        d.mkdir(parents=True, exist_ok=True)
        plot_queues({args.mode: r.to_dict()}, cfg.label(), d / "queues.png")
        plot_uplinks(r.to_dict(), cfg.nic.line_rate_bps, cfg.label(), d / "uplinks.png")
        print(f"plots in {d}")
    return 0


def _sweep(args: argparse.Namespace) -> int:
    from fabricsim.jobs import Job, run_jobs

    _load(args.topology)  # errors before any worker starts
    jobs = []
    for wl in args.workloads:
        for load in args.loads if wl == "poisson" else [args.loads[0]]:
            for seed in args.seeds:
                for mode in args.modes:
                    cfg = _config(args, workload=wl, mode=mode, seed=seed, load=load)
                    key = (wl, mode, str(seed), f"{load:g}" if wl == "poisson" else "-")
                    jobs.append(Job(key, str(args.topology), cfg))
    try:
        results = run_jobs(jobs, processes=args.processes, scheduler=args.scheduler)
    except RuntimeError as e:
        raise CliError(str(e)) from None
    rows = [
        {
            "workload": k[0],
            "mode": k[1],
            "seed": int(k[2]),
            "load": None if k[3] == "-" else float(k[3]),
            "size_mix": args.size_mix if k[0] == "poisson" else None,
        }
        | r.summary("pfc_pause_us")
        for k, r in sorted(results.items())
    ]
    with output(args.output) as f:
        json.dump(rows, f, indent=1)
    return 0
