"""`make demo`: fabric.p4 on every switch of a 4x4 leaf-spine (4 hosts per leaf, 1:1),
a permutation and an incast under ecmp, flowlet, spray and adaptive, plus the permutation
with in-order (go-back-N) receivers; a side-by-side table, `summary.json` and plots.

The permutation and the incast run the NDP-style transport (receiver-driven, trimming) on
4 kB RoCE MTUs; the in-order permutation runs DCTCP, whose go-back-N receivers show what
reordering costs a NIC that cannot hold out-of-order packets.

Run: `python -m fabricsim.demo [--out demo-out] [--flow-bytes N] [--processes 2]`.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.lb import ModeLabel

from .jobs import Job, run_jobs
from .network import NetParams
from .plots import plot_queues, plot_summary, plot_uplinks
from .result import COLUMNS, SUMMARY_KEYS
from .run import SimConfig

__all__ = ["SUMMARY_KEYS", "demo_jobs", "format_table", "main"]

ROOT = Path(__file__).resolve().parents[1]
TOPOLOGY = ROOT / "topologies" / "leaf-spine-4x4.yaml"
# the modes the demo compares (spray_round_robin is a sweep option, not a demo column)
DEMO_MODES: tuple[ModeLabel, ...] = ("ecmp", "flowlet", "spray", "adaptive")


def demo_jobs(flow_bytes: int, incast_bytes: int, in_order_bytes: int, seed: int) -> list[Job]:
    # 1 us time bins: the steady receiver-link figure needs them on runs of tens of us
    base = SimConfig(seed=seed, flow_bytes=flow_bytes, net=NetParams(bin_ns=1_000))
    ndp = replace(base, transport="ndp", pmtu=4096)
    workloads = {
        "permutation": replace(ndp, workload="permutation"),
        "incast_12to1": replace(ndp, workload="incast", flow_bytes=incast_bytes),
        "permutation_in_order_rx": replace(
            base,
            workload="permutation",
            transport="dctcp",
            receiver="in_order",
            flow_bytes=in_order_bytes,
        ),
    }
    return [
        Job((wl, mode), str(TOPOLOGY), replace(cfg, mode=mode))
        for wl, cfg in workloads.items()
        for mode in DEMO_MODES
    ]


def format_table(summary: dict[str, dict[str, dict[str, Any]]]) -> str:
    head = f"{'workload':<24} {'mode':<9}" + "".join(f"{c[1]:>9}" for c in COLUMNS)
    lines = [head, "-" * len(head)]
    for wl, modes in summary.items():
        for mode, m in modes.items():
            cells = "".join(f"{c[2].format(m[c[0]]):>9}" for c in COLUMNS)
            lines.append(f"{wl:<24} {mode:<9}{cells}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("demo-out"))
    ap.add_argument("--flow-bytes", type=int, default=1_000_000, help="permutation flow size")
    ap.add_argument("--incast-bytes", type=int, default=300_000, help="each incast sender's bytes")
    ap.add_argument(
        "--in-order-bytes", type=int, default=100_000, help="flow size with in-order receivers"
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--processes", type=int, default=2)
    args = ap.parse_args(argv)
    for opt in ("flow_bytes", "incast_bytes", "in_order_bytes", "processes"):
        if getattr(args, opt) < 1:
            ap.error(f"--{opt.replace('_', '-')} must be at least 1, not {getattr(args, opt)}")
    t0 = time.monotonic()
    jobs = demo_jobs(args.flow_bytes, args.incast_bytes, args.in_order_bytes, args.seed)
    print(
        f"fabricsim demo: {len(jobs)} runs of fabric.p4 on a 4x4 leaf-spine, {args.processes} processes"
    )
    results = run_jobs(jobs, processes=args.processes)
    out: Path = args.out
    (out / "runs").mkdir(parents=True, exist_ok=True)
    summary: dict[str, dict[str, dict[str, Any]]] = {}
    for job in jobs:
        wl, mode = job.key
        r = results[job.key]
        summary.setdefault(wl, {})[mode] = r.summary() | {
            "uplink_max_over_mean": r["uplink_balance"]["max_over_mean"],
            "pfc_pause_us": r["pfc_pause_us"],
        }
        (out / "runs" / f"{wl}_{mode}.json").write_text(json.dumps(r.to_dict(), indent=1))
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    table = format_table(summary)
    (out / "table.txt").write_text(table + "\n")
    pngs = [plot_summary(summary, out / "throughput_fct.png")]
    for wl in summary:
        runs = {mode: results[(wl, mode)].to_dict() for mode in summary[wl]}
        pngs.append(plot_queues(runs, f"{wl}: deepest switch queue", out / f"queues_{wl}.png"))
    for mode in ("ecmp", "spray"):
        r = results[("permutation", mode)]
        pngs.append(
            plot_uplinks(
                r.to_dict(),
                100e9,
                f"permutation/{mode}: leaf uplink utilisation",
                out / f"uplinks_permutation_{mode}.png",
            )
        )
    print()
    print(table)
    print()
    print(f"summary: {out / 'summary.json'} (full runs in {out / 'runs'})")
    print("plots:   " + "\n         ".join(str(p) for p in pngs))
    cpu = sum(r["cpu_s"] for r in results.values())
    print(f"wall time: {time.monotonic() - t0:.0f} s ({cpu:.0f} CPU-seconds in the runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
