"""Time to bring up and program a fabric of softswitch processes (default: a k=4 fat-tree,
20 switches; `--fabric fat-tree:6` is 45, `--fabric leaf-spine:8x8x4` 16 with 32 hosts).

    python -m bench.program_bench [--fabric fat-tree:4] [--repeat-sync 3]

Starts every switch as a process (UDP-over-loopback cables, free loopback gRPC ports),
connects a session to each, pushes fabric.p4 and writes every switch's routes, groups and
members concurrently (the controller's worker pool), then reconciles again: the second and
later reconciles read everything back and write nothing. Prints one line per step, the
entries written per second, the controller's and the switches' CPU time and memory.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from controller.fabric.desired import fabric_desired_state
from controller.fabric.runner import FabricRun
from controller.topology.generators import fat_tree, leaf_spine
from controller.topology.model import Topology

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def fabric(spec: str) -> Topology:
    """`fat-tree:K` or `leaf-spine:LxS[xH]` (H hosts per leaf, default 4)."""
    kind, _, size = spec.partition(":")
    if kind == "fat-tree":
        return fat_tree(int(size))
    if kind == "leaf-spine":
        n = [int(x) for x in size.split("x")]
        return leaf_spine(n[0], n[1], n[2] if len(n) > 2 else 4)
    raise SystemExit(f"--fabric: expected fat-tree:K or leaf-spine:LxS[xH], got {spec!r}")


def proc_usage(pid: int) -> tuple[float, int]:
    """CPU seconds (user + system) and resident bytes of a live process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK
    rss = int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    return cpu, rss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fabric", default="fat-tree:4", metavar="fat-tree:K|leaf-spine:LxS[xH]")
    ap.add_argument("--k", type=int, help="same as --fabric fat-tree:K")
    ap.add_argument("--repeat-sync", type=int, default=3)
    args = ap.parse_args()
    spec = f"fat-tree:{args.k}" if args.k else args.fabric
    topo = fabric(spec)
    with tempfile.TemporaryDirectory(prefix="program-bench-") as tmp:
        run = FabricRun(
            topo,
            workdir=Path(tmp),
            desired_state=fabric_desired_state,
            fixed_addresses=False,
            poll_interval=3600.0,  # no counter polling during the measurement
        )
        cpu0 = time.process_time()
        t0 = time.perf_counter()
        try:
            run.start(control=False)
            total = time.perf_counter() - t0
            cpu_ctl = time.process_time() - cpu0
            usage = [proc_usage(h.pid) for h in run.handles.values()]
            assert run.sessions is not None
            entries = sum(r.inserted for r in run.first_sync.values())
            writes = sum(r.writes for r in run.first_sync.values())
            print(
                f"{spec} ({topo.name}): {len(topo.switches)} softswitch processes, "
                f"{len(topo.hosts)} hosts, {entries} entries, {os.cpu_count()} CPUs"
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
            prog = run.timings["program"]
            print(f"{'entries/s, push + write step':32} {entries / prog:8.0f}")
            sw_cpu = sum(c for c, _ in usage)
            sw_rss = sum(r for _, r in usage)
            ctl_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            print(f"{'controller CPU s / peak RSS MiB':32} {cpu_ctl:8.1f}  {ctl_rss / 2**20:8.0f}")
            print(
                f"{'switches CPU s / RSS MiB (sum)':32} {sw_cpu:8.1f}  {sw_rss / 2**20:8.0f}  "
                f"({sw_rss / len(usage) / 2**20:.0f} MiB per switch)"
            )
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
            # the write rate without the pipeline push: delete everything, write it again
            desired = {n: sw.desired for n, sw in run.sessions.switches.items()}
            run.sessions.set_desired({n: [] for n in desired})
            run.sessions.sync_all()
            run.sessions.set_desired(desired)
            t = time.perf_counter()
            res = run.sessions.sync_all()
            dt = time.perf_counter() - t
            n = sum(r.changed for r in res.values())
            print(
                f"{'rewrite every entry (no push)':32} {dt:8.2f}  ({n} entries, {n / dt:.0f}/s, "
                f"{sum(r.writes for r in res.values())} Write RPCs)"
            )
        finally:
            run.stop()


if __name__ == "__main__":
    main()
