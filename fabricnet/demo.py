"""The Mininet demo: pingall, then the same parallel iperf3 flows under each
load-balancing mode, with the packets every leaf uplink sent (read over P4Runtime) and the
flows' throughputs."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.targets import Target

from .fabric import MininetFabric, RunOptions
from .mn import ensure_mininet
from .report import ModeRun, format_mode, format_summary
from .traffic import Flow, run_flows

__all__ = ["demo_flows", "run_demo"]


def demo_flows(topology: Any) -> list[Flow]:
    """From every host of the first leaf to every host of the second."""
    leaves = [s.name for s in topology.switches if s.role == "leaf"]
    if len(leaves) < 2:
        raise ValueError("the demo needs a topology with at least two leaves")
    return [
        Flow(a.name, b.name)
        for a in topology.hosts_of(leaves[0])
        for b in topology.hosts_of(leaves[1])
    ]


def run_demo(
    topology: Any,
    *,
    target: Target,
    workdir: Path,
    seconds: float,
    bw_mbit: float | None,
    modes: Sequence[str],
    pcap: bool = False,
) -> bool:
    """Run the demo and print its tables; True if pingall lost nothing and every flow ran."""
    ensure_mininet()
    from mininet.log import setLogLevel

    setLogLevel("output")  # pingall's matrix, not Mininet's progress messages
    flows = demo_flows(topology)
    options = RunOptions(
        target=target,
        workdir=workdir,
        pcap=pcap,
        bw_mbit=bw_mbit,
        free_ports=True,
    )
    t0 = time.monotonic()
    print(f"*** {topology.name}: starting {len(topology.switches)} {target} switches", flush=True)
    ok = True
    with MininetFabric(topology, options) as fab:
        print(
            f"*** {len(topology.switches)} switches up and programmed over P4Runtime, "
            f"{len(topology.hosts)} hosts ({time.monotonic() - t0:.0f} s)",
            flush=True,
        )
        loss = fab.pingall()
        print(f"*** pingall: {loss:g}% loss", flush=True)
        ok = loss == 0
        runs = []
        for mode in modes:
            fab.set_lb(mode)
            before = fab.uplink_packets()
            results = run_flows(fab.mininet.get, fab.host_ip, flows, seconds, track=fab.track)
            after = fab.uplink_packets()
            run = ModeRun(mode, seconds, {u: after[u] - before[u] for u in after}, results)
            runs.append(run)
            print(format_mode(run), flush=True)
            ok = ok and all(r.error is None for r in results)
        print("*** uplink balance (least / most loaded uplink of each leaf; 1.00 = even)")
        print(format_summary(runs), flush=True)
    return ok
