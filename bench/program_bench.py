"""Time to bring up and program a k=4 fat-tree (20 switches) of softswitch processes.

    python -m bench.program_bench [--k 4] [--repeat-sync 3]

Starts every switch as a process (UDP-over-loopback cables, free loopback gRPC ports),
connects a session to each, pushes fabric.p4 and writes every switch's routes, groups and
members concurrently (the controller's worker pool), then reconciles again: the second and
later reconciles read everything back and write nothing. Prints one line per step.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from controller.fabric.desired import fabric_desired_state
from controller.fabric.runner import FabricRun
from controller.topology.generators import fat_tree


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--repeat-sync", type=int, default=3)
    args = ap.parse_args()
    topo = fat_tree(args.k)
    with tempfile.TemporaryDirectory(prefix="program-bench-") as tmp:
        run = FabricRun(
            topo,
            workdir=Path(tmp),
            desired_state=fabric_desired_state,
            fixed_addresses=False,
            poll_interval=3600.0,  # no counter polling during the measurement
        )
        t0 = time.perf_counter()
        try:
            run.start(control=False)
            total = time.perf_counter() - t0
            assert run.sessions is not None
            entries = sum(r.inserted for r in run.first_sync.values())
            writes = sum(r.writes for r in run.first_sync.values())
            print(
                f"k={args.k} fat-tree: {len(topo.switches)} softswitch processes, "
                f"{len(topo.hosts)} hosts, {entries} entries"
            )
            print(f"{'step':32} {'seconds':>8}")
            for step, label in (
                ("compile", "compile fabric.p4"),
                ("processes", "start processes until ready"),
                ("connect", "connect + arbitrate"),
                ("routes", "routes + entities"),
                ("program", "push pipeline + write entries"),
            ):
                print(f"{label:32} {run.timings[step]:8.2f}")
            print(f"{'total, up and programmed':32} {total:8.2f}  ({writes} Write RPCs)")
            for i in range(args.repeat_sync):
                t = time.perf_counter()
                res = run.sessions.sync_all()
                dt = time.perf_counter() - t
                changed = sum(r.changed for r in res.values())
                w = sum(r.writes for r in res.values())
                read = sum(r.read for r in res.values())
                print(
                    f"{f'reconcile again #{i + 1}':32} {dt:8.2f}  "
                    f"({read} entries read back, {changed} changed, {w} Write RPCs)"
                )
        finally:
            run.stop()


if __name__ == "__main__":
    main()
