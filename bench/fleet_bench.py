"""Fleet-scale programming: a k=8 (80 switches) and a k=16 (320 switches) fat-tree of
softswitch processes, several switches per process (`softswitch --chassis`), programmed by
the controller over real gRPC.

    python -m bench.fleet_bench [--k 8 16] [--per-process 20]

Prints per fabric: the time to push the pipeline to every switch, to write every route,
group and member, a no-op reconcile (everything read back, nothing written), a link
failure's repair (`FabricRun.set_link`: the fast MODIFYs on the link's two switches, then
routes recomputed and every affected switch rewritten; the call returns when all are), the
link's restoration (then a read-back reconcile, which must find nothing to write), and
the memory per switch (the processes' RSS summed, divided by the switches). Goals: k=16
programmed in 60 s, reconciled in 5 s, a link repaired in 1 s.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from controller.fabric.desired import fabric_desired_state
from controller.fabric.runner import FabricRun
from controller.topology.generators import fat_tree

from .program_bench import proc_usage


def bench(k: int, per_process: int) -> dict[str, Any]:
    topo = fat_tree(k)
    first = [True]

    def desired(run: FabricRun) -> Any:
        if first[0]:  # the start's sync pushes the pipelines only
            first[0] = False
            return {}
        return fabric_desired_state(run)

    out: dict[str, Any] = {"switches": len(topo.switches), "hosts": len(topo.hosts)}
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as tmp:
        run = FabricRun(
            topo,
            workdir=Path(tmp),
            desired_state=desired,
            fixed_addresses=False,
            poll_interval=3600.0,
            watch_interval=3600.0,
            switches_per_process=per_process,
        )
        try:
            t0 = time.perf_counter()
            run.start(control=False)
            out["start"] = time.perf_counter() - t0
            out["processes"] = len({id(h) for h in run.handles.values()})
            out["start_processes"] = run.timings["processes"]
            out["connect"] = run.timings["connect"]
            out["push"] = run.timings["program"]
            assert run.sessions is not None
            t0 = time.perf_counter()
            run.sessions.set_desired(fabric_desired_state(run))
            out["routes_compute"] = time.perf_counter() - t0
            t1 = time.perf_counter()
            res = run.sessions.sync_all()
            out["write"] = time.perf_counter() - t1
            out["entries"] = sum(r.inserted for r in res.values())
            out["writes"] = sum(r.writes for r in res.values())
            t0 = time.perf_counter()
            again = run.sessions.sync_all()
            out["reconcile"] = time.perf_counter() - t0
            out["reconcile_written"] = sum(r.changed for r in again.values())
            edge, agg = "pod0-edge0", "pod0-agg0"
            t0 = time.perf_counter()
            rep = run.set_link(edge, agg, up=False)
            out["repair"] = time.perf_counter() - t0
            out["repair_changed"] = rep["inserted"] + rep["modified"] + rep["deleted"]
            out["repair_switches"] = rep["switches"]
            out["repair_writes"] = rep["writes"]
            t0 = time.perf_counter()
            back = run.set_link(edge, agg, up=True)
            out["restore"] = time.perf_counter() - t0
            out["restore_changed"] = back["inserted"] + back["modified"] + back["deleted"]
            # the restored fabric is the programmed one: a read-back reconcile writes nothing
            check = run.sessions.sync_all()
            out["restore_drift"] = sum(r.changed for r in check.values())
            rss = sum(
                proc_usage(h.pid)[1] for h in {id(h): h for h in run.handles.values()}.values()
            )
            out["rss_per_switch_mib"] = rss / len(topo.switches) / 2**20
        finally:
            run.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, nargs="+", default=[8, 16])
    ap.add_argument("--per-process", type=int, default=20, metavar="N")
    args = ap.parse_args()
    rows = [
        ("processes", "processes", "{:d}"),
        ("start processes until each answers (s)", "start_processes", "{:.1f}"),
        ("connect and arbitrate (s)", "connect", "{:.2f}"),
        ("push the pipeline to every switch (s)", "push", "{:.1f}"),
        ("compute routes and entities (s)", "routes_compute", "{:.2f}"),
        ("write every entry (s)", "write", "{:.1f}"),
        ("entries written / Write RPCs", None, ""),
        ("no-op reconcile (s)", "reconcile", "{:.2f}"),
        ("link failure repaired, every switch rewritten (s)", "repair", "{:.2f}"),
        ("entries the repair changed", "repair_changed", "{:d}"),
        ("switches the repair wrote", "repair_switches", "{:d}"),
        ("Write RPCs of the repair", "repair_writes", "{:d}"),
        ("link restored, every switch rewritten (s)", "restore", "{:.2f}"),
        ("entries the restore changed", "restore_changed", "{:d}"),
        ("then written by a read-back reconcile", "restore_drift", "{:d}"),
        ("RSS per switch (MiB)", "rss_per_switch_mib", "{:.1f}"),
    ]
    results = {}
    for k in args.k:
        results[k] = r = bench(k, args.per_process)
        print(
            f"fat-tree k={k}: {r['switches']} switches, {r['hosts']} hosts, "
            f"{args.per_process} per process, {os.cpu_count()} CPUs",
            flush=True,
        )
    head = "".join(f"{'k=' + str(k):>12}" for k in args.k)
    print(f"{'':52}{head}")
    for label, key, fmt in rows:
        if key is None:
            cells = "".join(
                "{:>12}".format(f"{results[k]['entries']}/{results[k]['writes']}") for k in args.k
            )
        else:
            cells = "".join(f"{fmt.format(results[k][key]):>12}" for k in args.k)
        print(f"{label:52}{cells}")


if __name__ == "__main__":
    main()
