"""`sprayfabric up TOPO`: start a fabric, program it, keep it running until Ctrl-C."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import time
from typing import Any

from ..lb import policy_from_args
from ..topology import load_topology
from .bmv2 import Bmv2Run, bmv2_unavailable
from .control import STATE_FILE
from .desired import fabric_desired_state
from .runner import FabricRun

__all__ = ["run_up"]

WORKDIR = STATE_FILE.parent  # where the other commands look for the run


def run_up(args: argparse.Namespace) -> int:
    """Load, start, program; print where everything is; wait for SIGINT/SIGTERM; stop."""
    logging.basicConfig(level=logging.WARNING, format="sprayfabric: %(levelname)s: %(message)s")
    topo = load_topology(args.topology)  # errors: one line from the CLI's main
    policy = policy_from_args(args)
    common: dict[str, Any] = dict(
        workdir=WORKDIR,
        fixed_addresses=not args.free_ports,
        poll_interval=args.poll_interval,
        topology_path=str(args.topology),
        policy=policy,
    )
    queues = (
        ("--queue-rate", args.queue_rate),
        ("--queue-depth", args.queue_depth),
        ("--priority-queues", args.priority_queues),
    )
    run: FabricRun
    if args.target == "bmv2":
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
            **common,
        )
    t0 = time.perf_counter()
    try:
        run.start()
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
            print(
                f"  {name:10} {w.grpc_addr:21} device {w.device_id:<4} pid {run.handles[name].pid}"
            )
        if isinstance(run, Bmv2Run) and topo.hosts:
            h = topo.hosts[0]
            other = topo.hosts[-1].ip
            print(
                f"hosts are network namespaces sf-<host> (eth0), e.g. "
                f"ip netns exec {run.host_netns(h.name)} ping {other}"
            )
        print(f"control and metrics: {run.control.url} (/metrics); state in {STATE_FILE}")
        print("Ctrl-C stops the fabric", flush=True)
        wait_for_signal()
    finally:
        run.stop()
        print("fabric stopped", flush=True)
    return 0


def wait_for_signal() -> None:
    """Block until SIGINT or SIGTERM."""
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.wait(0.5):
        pass
