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

ROOT = Path(__file__).resolve().parents[1]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="mininet/demo.py", description=__doc__.split("\n")[0])
    p.add_argument("--target", choices=("softswitch", "bmv2"), default="softswitch")
    p.add_argument("--topology", type=Path, default=ROOT / "topologies" / "leaf-spine-2x2.yaml")
    p.add_argument("--seconds", type=float, default=8.0, help="iperf3 run per mode")
    p.add_argument("--bw", type=float, default=10.0, metavar="MBIT", help="every link's rate (htb)")
    p.add_argument("--modes", default="ecmp,spray", help="comma-separated modes to compare")
    p.add_argument("--workdir", type=Path, default=Path("mininet-out"))
    p.add_argument("--pcap", action="store_true", help="a pcap per switch port")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from fabricnet import mininet_missing_reason

    reason = mininet_missing_reason()
    if reason is not None:
        print(f"mininet-demo: {reason}", file=sys.stderr)
        return 1
    from controller.topology import TopologyError, load_topology
    from fabricnet.demo import run_demo
    from fabricnet.signals import run_entry

    try:
        topology = load_topology(args.topology)
    except (OSError, TopologyError) as e:
        print(f"mininet-demo: {e}", file=sys.stderr)
        return 1

    def body() -> int:
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

    return run_entry("mininet-demo", body)


if __name__ == "__main__":
    sys.exit(main())
