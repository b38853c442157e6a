#!/usr/bin/env python3
"""`make mininet-demo`: a 2x2 leaf-spine with 2 hosts per leaf in Mininet (root).

    mininet/demo.py [--target softswitch|bmv2] [--topology FILE] [--seconds S] [--bw MBIT]
                    [--modes ecmp,spray] [--workdir DIR] [--pcap]

Builds the fabric (one switch process per switch, programmed by the controller over
P4Runtime), runs Mininet's pingall, then for each load-balancing mode the same parallel
iperf3 flows from every host of the first leaf to every host of the second, and prints
the packets each leaf uplink sent during the run (read from the switches over P4Runtime)
and the flows' throughputs. Everything it created is removed at the end, also on Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from controller.topology import Topology, load_topology
from sprayfabric.mininet_scripts import add_switch_arguments, run_script

ROOT = Path(__file__).resolve().parents[1]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="mininet/demo.py", description=__doc__.split("\n")[0])
    add_switch_arguments(p)
    p.add_argument("--topology", type=Path, default=ROOT / "topologies" / "leaf-spine-2x2.yaml")
    p.add_argument("--seconds", type=float, default=8.0, help="iperf3 run per mode")
    p.add_argument("--bw", type=float, default=10.0, metavar="MBIT", help="every link's rate (htb)")
    p.add_argument("--modes", default="ecmp,spray", help="comma-separated modes to compare")
    p.add_argument("--workdir", type=Path, default=Path("mininet-out"))
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def body(topology: Topology) -> int:
        from fabricnet.demo import run_demo

        t0 = time.monotonic()
        ok = run_demo(
            topology,
            target=args.target,
            workdir=args.workdir,
            seconds=args.seconds,
            bw_mbit=args.bw,
            modes=[m for m in args.modes.split(",") if m],
            pcap=args.pcap,
        )
        print(f"mininet-demo: {time.monotonic() - t0:.0f} s; logs in {args.workdir / 'logs'}")
        return 0 if ok else 1

    return run_script("mininet-demo", lambda: load_topology(args.topology), body)


if __name__ == "__main__":
    sys.exit(main())
