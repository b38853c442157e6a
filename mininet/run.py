#!/usr/bin/env python3
"""Run a topology file's fabric in Mininet with a prompt (root).

    mininet/run.py TOPOLOGY [--target softswitch|bmv2] [--bw MBIT] [--netem] [--pcap]
                   [--workdir DIR] [--free-ports] [--policy FILE] [--lb-mode MODE] ...

Hosts get the file's IPs and MACs, links its rates (htb), every switch a P4 switch process
on its veths with the file's P4Runtime address (`--free-ports`: any free loopback port);
the controller programs them all. At the `sprayfabric>` prompt Mininet's commands work
(`pingall`, `h1 ping h3`, `h1 iperf3 -s &`, ...) plus `lb set MODE [GROUP]` (or
`set-lb`), `link down|up A B`, `counters` and `switches`. Ctrl-D (or `exit`) stops everything; logs
(and pcaps with --pcap) stay in the work folder.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.lb import Policy
from controller.topology import Topology, load_topology
from sprayfabric.mininet_scripts import add_switch_arguments, run_script
from sprayfabric.policy_args import add_policy_arguments, policy_from_args


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="mininet/run.py", description=__doc__.split("\n")[0])
    p.add_argument("topology", type=Path)
    add_switch_arguments(p)
    p.add_argument("--bw", type=float, metavar="MBIT", help="every link's rate (htb)")
    p.add_argument("--netem", action="store_true", help="apply link delay/loss (tc netem)")
    p.add_argument(
        "--workdir", type=Path, default=Path(".sprayfabric"), help="logs, pcaps, run state"
    )
    p.add_argument("--free-ports", action="store_true", help="P4Runtime on free ports")
    add_policy_arguments(p)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def load() -> tuple[Topology, Policy]:
        return load_topology(args.topology), policy_from_args(args)

    def body(inputs: tuple[Topology, Policy]) -> int:
        from mininet.log import setLogLevel

        from fabricnet.fabric import MininetFabric, RunOptions
        from sprayfabric.mininet_prompt import FabricCLI

        topology, policy = inputs
        options = RunOptions(
            target=args.target,
            workdir=args.workdir,
            policy=policy,
            topology_path=str(args.topology),
            pcap=args.pcap,
            bw_mbit=args.bw,
            netem=args.netem,
            free_ports=args.free_ports,
        )
        setLogLevel("info")
        with MininetFabric(topology, options) as fab:
            for sw in fab.net.switch_targets():
                print(f"*** {sw.name}: P4Runtime {sw.grpc_address}, device id {sw.device_id}")
            FabricCLI(fab.mininet, fab.control())
        return 0

    return run_script("mininet/run.py", load, body)


if __name__ == "__main__":
    sys.exit(main())
