"""Every fabricsim experiment (fabricsim/experiments): ours beside the published figure,
with the spread over seeds, and the simulator's packet-hops/s in the event loop (packets
through fabric.p4 at one switch per second of the loop's wall time, as
bench/fabricsim_bench.py measures it).

Run: `python -m bench.experiments_bench [--quick] [--seeds N] [--only NAME,...]
[--processes N | --scheduler ADDR]` (the runs of each scenario on a local pool or a Dask
cluster; the figures are the same however they are distributed).
"""

from __future__ import annotations

import argparse
import time

from fabricsim.experiments import SCENARIOS, get, run_scenario
from sprayfabric.experiment import format_result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the scenarios' --quick sizes")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--only", help="comma-separated scenario names (default: all)")
    ap.add_argument("--processes", type=int, default=1, help="local worker processes")
    ap.add_argument("--scheduler", help="a Dask scheduler address (tcp://HOST:PORT)")
    args = ap.parse_args()
    names = args.only.split(",") if args.only else list(SCENARIOS)
    t0 = time.monotonic()
    hops = 0
    loop_s = 0.0
    for name in names:
        res = run_scenario(
            get(name),
            seeds=tuple(range(1, args.seeds + 1)),
            quick=args.quick,
            processes=args.processes,
            scheduler=args.scheduler,
        )
        hops += res["packet_hops"]
        loop_s += res["loop_wall_s"]
        print(format_result(res), flush=True)
        print()
    print(
        f"all: {hops} packet-hops, {hops / loop_s if loop_s else 0:,.0f} packet-hops/s in the "
        f"event loop, {time.monotonic() - t0:.0f} s wall"
    )


if __name__ == "__main__":
    main()
