"""fabricsim speed: simulated packet-hops (a packet through fabric.p4 at one switch) per
second of wall time and of CPU time, on the 4x4 leaf-spine with a permutation under
every load-balancing mode, one process; the engine alone for scale; then the wall time of
`make demo` if asked. CPU time is printed beside wall time because a shared machine's load
changes the wall figures several-fold. `--profile` prints instead where the event loop's
time goes (cProfile of the loop alone, own time by file) for a spray and an ECMP run.

`--bytecodes` prints instead how many Python bytecode instructions the event loop executes
per packet-hop, by the same groups of files, for every mode: a figure that, unlike times,
does not move with the machine's load (counted with a tracing hook, on 50 kB flows).

`--no-int` runs without INT (on by default, for each leaf's first host), to show what INT costs.

Run: `python -m bench.fabricsim_bench [--flow-bytes N] [--no-int] [--demo] [--profile]
[--bytecodes]`.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import CodeType
from typing import Any
from unittest import mock

from controller.topology import load_topology
from fabricsim.events import EventLoop
from fabricsim.run import MODES, SimConfig, fabric_program, simulate

from .bytecodes import counting_bytecodes

ROOT = Path(__file__).resolve().parents[1]
# (label, test on a profiled function's file name), first match wins
PROFILE_GROUPS = (
    (
        "generated fabric.p4 code (parser, controls, deparser)",
        lambda f: f.startswith("<softswitch:"),
    ),
    (
        "softswitch/v1model/switch.py (pass set-up, serve, egress)",
        lambda f: f.endswith("softswitch/v1model/switch.py"),
    ),
    (
        "softswitch/v1model/tm.py (traffic manager)",
        lambda f: f.endswith("softswitch/v1model/tm.py"),
    ),
    ("softswitch engine runtime, tables, hashes, externs", lambda f: "/softswitch/" in f),
    ("Python built-ins called from the above", lambda f: f == "~"),
    ("fabricsim itself (events, switch/host nodes, links, frames)", lambda f: "/fabricsim/" in f),
)


def group_of(filename: str) -> str:
    """The PROFILE_GROUPS label of a source file ("other" when none matches)."""
    return next((lbl for lbl, match in PROFILE_GROUPS if match(filename)), "other")


def simulate_watched(topo: Any, cfg: SimConfig, watch: Any) -> dict[str, Any]:
    """`simulate`, with the event loop (only) run inside the context manager `watch`."""
    run = EventLoop.run

    def watched(self: EventLoop, *args: Any, **kw: Any) -> int:
        with watch:
            return run(self, *args, **kw)

    with mock.patch.object(EventLoop, "run", watched):
        return simulate(topo, cfg)


def loop_profile(topo: Any, cfg: SimConfig) -> dict[str, float]:
    """Share of the event loop's own time per group of files (the rest as "other")."""
    prof = cProfile.Profile()
    simulate_watched(topo, cfg, prof)
    shares: dict[str, float] = {}
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    for (filename, _line, _name), (_cc, _nc, own, _cum, _callers) in stats.items():
        label = group_of(filename)
        shares[label] = shares.get(label, 0.0) + own
    total = sum(shares.values()) or 1.0
    return {k: 100.0 * v / total for k, v in shares.items()}


def loop_bytecodes(topo: Any, cfg: SimConfig) -> tuple[Counter[str], int]:
    """Bytecode instructions the event loop executes, per group of files (the
    PROFILE_GROUPS labels), and the run's packet-hops."""
    counts: Counter[str] = Counter()

    def label(code: CodeType) -> str:
        return group_of(code.co_filename)

    r = simulate_watched(topo, cfg, counting_bytecodes(counts, label))
    return counts, r["packet_hops"]


def print_bytecodes(topo: Any, flow_bytes: int, int_telemetry: bool) -> None:
    labels = [lbl for lbl, _ in PROFILE_GROUPS if "built-ins" not in lbl] + ["other"]
    runs = {}
    for mode in MODES:
        cfg = SimConfig(mode=mode, flow_bytes=flow_bytes, int_telemetry=int_telemetry)
        runs[mode] = loop_bytecodes(topo, cfg)
    print(
        f"Python bytecode instructions the event loop executes per packet-hop,"
        f" {flow_bytes // 1000} kB permutation flows, INT {'on' if int_telemetry else 'off'}:"
    )
    print(f"{'':<62}" + "".join(f"{m:>9}" for m in runs))
    for label in labels:
        print(f"{label:<62}" + "".join(f"{c[label] / hops:>9,.0f}" for c, hops in runs.values()))
    print(f"{'all':<62}" + "".join(f"{c.total() / hops:>9,.0f}" for c, hops in runs.values()))


def print_profiles(topo: Any, flow_bytes: int) -> None:
    runs = {
        mode: loop_profile(topo, SimConfig(mode=mode, flow_bytes=flow_bytes))
        for mode in ("spray", "ecmp")
    }
    print(f"the event loop's own time by file, {flow_bytes // 1000} kB permutation flows:")
    print(f"{'':<62}" + "".join(f"{m:>8}" for m in runs))
    for label in [lbl for lbl, _ in PROFILE_GROUPS] + ["other"]:
        print(f"{label:<62}" + "".join(f"{r.get(label, 0.0):>7.1f}%" for r in runs.values()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flow-bytes", type=int, default=200_000)
    ap.add_argument("--demo", action="store_true", help="also time `make demo` (fresh out dir)")
    ap.add_argument("--profile", action="store_true", help="where the event loop's time goes")
    ap.add_argument("--no-int", action="store_true", help="runs without INT telemetry")
    ap.add_argument(
        "--bytecodes", action="store_true", help="bytecode instructions per packet-hop instead"
    )
    args = ap.parse_args()
    topo = load_topology(ROOT / "topologies" / "leaf-spine-4x4.yaml")
    fabric_program()  # compile outside the timing
    if args.profile:
        print_profiles(topo, args.flow_bytes)
        return
    if args.bytecodes:
        flow_bytes = args.flow_bytes if args.flow_bytes != ap.get_default("flow_bytes") else 50_000
        print_bytecodes(topo, flow_bytes, not args.no_int)
        return
    # one small untimed run: the modules a run imports on first use (the controller's
    # routing, the summary's) load once per process, not in the first mode's figure
    simulate(topo, SimConfig(mode=MODES[0], flow_bytes=10_000))
    print(
        f"fabricsim, 4x4 leaf-spine, permutation of {args.flow_bytes // 1000} kB flows:"
        " simulated packet-hops (one packet through fabric.p4 at one switch) per second of"
        " wall time and of CPU time, for whole runs (set-up, programming, simulation,"
        f" summary) and for the event loop alone; one process, INT {'off' if args.no_int else 'on'}:"
    )
    print(
        f"{'mode':<10} {'hops':>8} {'wall s':>8} {'hops/s':>9} {'cpu s':>7} {'hops/cpu-s':>11}"
        f" {'loop hops/s':>12} {'loop hops/cpu-s':>16}"
    )
    for mode in MODES:
        cfg = SimConfig(
            workload="permutation",
            mode=mode,
            flow_bytes=args.flow_bytes,
            int_telemetry=not args.no_int,
        )
        w0, c0 = time.perf_counter(), time.process_time()
        r = simulate(topo, cfg)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        hops = r["packet_hops"]
        lw, lc = r["loop_wall_s"], r["loop_cpu_s"]
        print(
            f"{mode:<10} {hops:>8} {wall:>8.2f} {hops / wall:>9,.0f} {cpu:>7.2f} {hops / cpu:>11,.0f}"
            f" {hops / lw:>12,.0f} {hops / lc:>16,.0f}",
            flush=True,
        )
    # the engine alone on the same machine, for scale: one switch, 1500-byte frames
    from bench.engine_bench import ipv4_frame
    from bench.fabric_bench import setup

    sw = setup(fabric_program(), "spray_random")
    frames = [ipv4_frame(1500, 0x0B000001 + f, 0x0A000001, 1000 + f) for f in range(64)]
    n = 5000
    w0, c0 = time.perf_counter(), time.process_time()
    for i in range(n):
        sw.process(1, frames[i % 64])
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    print(
        f"engine alone (one switch, spray_random, 1500-byte frames, no simulation):"
        f" {n / wall:,.0f} packets/s, {n / cpu:,.0f} per CPU-s"
    )
    if args.demo:
        out = Path("/tmp") / f"fabricsim-bench-demo-{time.time_ns()}"
        w0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "fabricsim.demo", "--out", str(out)], check=True, cwd=ROOT
        )
        print(f"make demo (fabricsim.demo): {time.perf_counter() - w0:.1f} s wall")


if __name__ == "__main__":
    main()
