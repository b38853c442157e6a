"""`sprayfabric fabric up TOPO`: start a fabric, program it, keep it running until Ctrl-C.

SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal went away; unless `up` runs with SIGHUP
ignored, as under nohup) stop the fabric at any point, while it starts too: the switch
processes run in sessions of their own, so only `up` gets the signal, and it stops every
switch it started, by PID. If `up` is killed outright (SIGKILL), the next `up` in the same
directory stops the switches it recorded in `.sprayfabric/switches.json` (those still the
processes recorded) before it starts its own; so does `sprayfabric fabric down` (`run_down`),
which first stops a running `up` of that directory with SIGTERM.
"""

from __future__ import annotations

import logging
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..lb import Policy
from ..targets import LedgerBusy, ProcessLedger, stop_recorded
from ..topology import Topology
from .bmv2 import Bmv2Run, bmv2_unavailable
from .control import STATE_FILE
from .desired import fabric_desired_state
from .runner import FabricRun
from .tofino import TofinoRun
from .tofino_files import RECORD_NAME, TofinoSetupError, load_bf_program, load_switches
from .veth import VethError, remove_recorded

__all__ = ["UpOptions", "run_down", "run_up"]

WORKDIR = STATE_FILE.parent  # where the other commands look for the run


@dataclass(slots=True, frozen=True)
class UpOptions:
    """How `run_up` starts a fabric (the flags of `sprayfabric fabric up`)."""

    topology_path: Path
    target: str = "softswitch"
    free_ports: bool = False
    poll_interval: float = 1.0
    switches_per_process: int = 1
    queue_rate: int | None = None  # packets/s every egress port drains at
    queue_depth: int | None = None  # egress queue depth in packets
    priority_queues: int | None = None  # queues per port
    policy: Policy = field(default_factory=Policy)
    # target tofino/tofino2: switches already running elsewhere (controller.fabric.tofino)
    switches_file: Path | None = None  # name -> {address, device_id}; None: the topology's
    bf_out: Path | None = None  # bf-p4c's output directory
    p4info: Path | None = None  # None: the one P4Info file in bf_out
    cpu_port: int | None = None  # the platform's CPU port, when fabric_tna was built with one
    depth_report_port: int | None = None  # -DDEPTH_REPORT_PORT, when built with one


class Interrupted(BaseException):  # noqa: N818 -- like KeyboardInterrupt, not an error
    """SIGINT, SIGTERM or SIGHUP arrived (the signal number is `args[0]`)."""


def stop_signals() -> tuple[signal.Signals, ...]:
    """The signals that stop `up`: SIGINT, SIGTERM, and SIGHUP unless it is ignored."""
    sigs = [signal.SIGINT, signal.SIGTERM]
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        sigs.append(signal.SIGHUP)
    return tuple(sigs)


def raise_on_signals() -> dict[signal.Signals, Any]:
    """From now on the first stop signal raises `Interrupted` in the main thread, wherever it
    is (starting, waiting); later ones are ignored, so the stop it leads to runs to its end.
    Returns the handlers replaced."""
    sigs = stop_signals()

    def handler(signum: int, _frame: object) -> None:
        for s in sigs:
            signal.signal(s, signal.SIG_IGN)
        raise Interrupted(signum)

    return {s: signal.signal(s, handler) for s in sigs}


def run_up(topo: Topology, options: UpOptions) -> int:
    """Start, program; print where everything is; wait for a stop signal; stop."""
    previous = raise_on_signals()
    try:
        return _run_up(topo, options)
    except Interrupted:
        print("sprayfabric: interrupted while the fabric started; stopped", file=sys.stderr)
        return 1
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _run_up(topo: Topology, args: UpOptions) -> int:
    logging.basicConfig(level=logging.WARNING, format="sprayfabric: %(levelname)s: %(message)s")
    common: dict[str, Any] = dict(
        workdir=WORKDIR,
        fixed_addresses=not args.free_ports,
        poll_interval=args.poll_interval,
        topology_path=str(args.topology_path),
        policy=args.policy,
    )
    queues = (
        ("--queue-rate", args.queue_rate),
        ("--queue-depth", args.queue_depth),
        ("--priority-queues", args.priority_queues),
    )
    run: FabricRun
    tofino_only: tuple[tuple[str, object], ...] = (
        ("--switches", args.switches_file),
        ("--bf-out", args.bf_out),
        ("--p4info", args.p4info),
        ("--cpu-port", args.cpu_port),
        ("--depth-report-port", args.depth_report_port),
    )
    misplaced = [f for f, v in tofino_only if v is not None]
    if misplaced and args.target not in ("tofino", "tofino2"):
        print(
            f"sprayfabric: error: {', '.join(misplaced)}: for --target tofino or tofino2 only",
            file=sys.stderr,
        )
        return 1
    if args.target in ("tofino", "tofino2"):
        try:
            run = _tofino_run(topo, args, common)
        except ValueError as e:  # TofinoSetupError: a file, a name, a mismatch
            print(f"sprayfabric: error: {e}", file=sys.stderr)
            return 1
    elif args.target == "bmv2":
        reason = bmv2_unavailable()
        if reason is not None:
            print(f"sprayfabric: error: {reason}", file=sys.stderr)
            return 1
        run = Bmv2Run(
            topo,
            queue_rate=args.queue_rate,
            queue_depth=args.queue_depth,
            priority_queues=args.priority_queues,
            **common,
        )
    else:
        switch_args = tuple(str(x) for flag, v in queues if v is not None for x in (flag, v))
        run = FabricRun(
            topo,
            desired_state=fabric_desired_state,
            target=args.target,
            switch_args=switch_args,
            switches_per_process=args.switches_per_process,
            **common,
        )
    t0 = time.perf_counter()
    try:
        run.start()  # Interrupted passes through, after start() stopped what it started
    except Exception as e:  # noqa: BLE001 -- one line for the user; run.start() cleaned up
        print(f"sprayfabric: error: cannot bring the fabric up: {e}", file=sys.stderr)
        return 1
    try:
        assert run.sessions is not None and run.wiring is not None and run.control is not None
        entries = sum(len(sw.desired) for sw in run.sessions.switches.values())
        print(
            f"fabric {topo.name}: {len(topo.switches)} {args.target} switches, "
            f"{len(topo.hosts)} hosts, {entries} entries written in "
            f"{time.perf_counter() - t0:.1f} s",
            flush=True,
        )
        for name, w in run.wiring.switches.items():
            pid = run.handles[name].pid if name in run.handles else "- (not ours)"
            print(f"  {name:10} {w.grpc_addr:21} device {w.device_id:<4} pid {pid}")
        if isinstance(run, Bmv2Run) and topo.hosts:
            h = topo.hosts[0]
            other = topo.hosts[-1].ip
            print(
                f"hosts are network namespaces sf-<host> (eth0), e.g. "
                f"ip netns exec {run.host_netns(h.name)} ping {other}"
            )
        print(f"control and metrics: {run.control.url} (/metrics); state in {STATE_FILE}")
        if isinstance(run, TofinoRun):
            print(
                "Ctrl-C stops the controller only: the switches keep their program and "
                f"entries (recorded in {run.record_file}; `sprayfabric fabric status` reads "
                "them back, `sprayfabric fabric down` forgets them)",
                flush=True,
            )
        else:
            print("Ctrl-C stops the fabric", flush=True)
        wait_for_signal()
    except Interrupted:
        pass
    finally:
        run.stop()
        stopped = "controller stopped" if isinstance(run, TofinoRun) else "fabric stopped"
        print(stopped, flush=True)
    return 0


def _tofino_run(topo: Topology, args: UpOptions, common: dict[str, Any]) -> TofinoRun:
    if args.bf_out is None:
        raise TofinoSetupError(f"target {args.target} needs --bf-out DIR (bf-p4c's output)")
    unused = [
        flag
        for flag, given in (
            ("--free-ports", args.free_ports),
            ("--switches-per-process", args.switches_per_process != 1),
            ("--queue-rate", args.queue_rate is not None),
            ("--queue-depth", args.queue_depth is not None),
            ("--priority-queues", args.priority_queues is not None),
        )
        if given
    ]
    if unused:
        raise TofinoSetupError(
            f"{', '.join(unused)}: not for target {args.target} (its switches are not "
            "started here: their queues are the switch's own configuration)"
        )
    switches = load_switches(args.switches_file, topo)
    program = load_bf_program(args.bf_out, args.target, args.p4info)
    common = {k: v for k, v in common.items() if k != "fixed_addresses"}
    return TofinoRun(
        topo,
        target=args.target,
        switches=switches,
        program=program,
        cpu_port=args.cpu_port,
        depth_report_port=args.depth_report_port,
        **common,
    )


def wait_for_signal() -> None:
    """Block until a stop signal raises `Interrupted` (`raise_on_signals`)."""
    while True:
        signal.pause()


def run_down(workdir: Path = WORKDIR, timeout: float = 60.0) -> int:
    """`sprayfabric fabric down`: stop the fabric of this directory. A running `up` gets SIGTERM
    (it stops its switches and cables); then whatever a killed `up` left is stopped: the
    switch processes still matching its record, and (BMv2, root) its veths and namespaces.
    One line per thing done."""
    logging.basicConfig(level=logging.WARNING, format="sprayfabric: %(levelname)s: %(message)s")
    ledger = ProcessLedger(workdir / "switches.json")
    owner, _ = ledger.read()
    if owner is not None:
        if stop_recorded(owner, timeout):
            print(f"stopped the fabric of process {owner.pid} ({' '.join(owner.argv[1:])})")
    try:
        stopped = ledger.stop_leftovers()
    except LedgerBusy as e:  # still running after SIGTERM and SIGKILL: cannot happen often
        print(f"sprayfabric: error: {e}", file=sys.stderr)
        return 1
    done = owner is not None
    if stopped:
        print(
            f"stopped {len(stopped)} switch processes a fabric that ended without stopping "
            f"left running: {', '.join(r.describe() for r in stopped)}"
        )
        done = True
    ledger.path.unlink(missing_ok=True)
    veths = workdir / "veths.json"
    if veths.exists():
        try:
            removed = remove_recorded(veths)
        except (VethError, OSError) as e:
            print(f"sprayfabric: error: {veths}: {e}", file=sys.stderr)
            return 1
        if removed:
            print(f"removed {len(removed)} interfaces and namespaces it left: {', '.join(removed)}")
            done = True
    (workdir / STATE_FILE.name).unlink(missing_ok=True)
    record = workdir / RECORD_NAME
    if record.exists():
        record.unlink()
        print(
            f"forgot the Tofino fabric recorded in {record} (its switches are not ours to "
            "stop: they keep their program and entries)"
        )
        done = True
    if not done:
        print("no fabric here: nothing to stop")
    return 0
