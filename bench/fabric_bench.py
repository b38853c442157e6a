"""Packets per second of p4src/fabric.p4 on softswitch (one core, in-process), per
load-balancing mode, with 64 UDP flows over a 4-member group and 64-byte frames; per
wall-clock second and per CPU second (the steadier figure on a shared machine).

`--bytecodes` prints instead how many Python bytecode instructions one packet executes
per mode and in which functions: a count that the machine's load does not change, to
compare two versions of the engine or of the generated code.

Each mode runs twice: packets handed over one at a time (`Switch.process`), then 64 at a
time (`Switch.receive_batch`, what the `softswitch` process does with a burst of frames).

Run: `python -m bench.fabric_bench [--packets N] [--bytecodes]`.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path
from types import CodeType

from controller.lb import MODE_LABELS, GroupMode
from softswitch.clock import SimClock
from softswitch.compiler import compile_file
from softswitch.engine.matches import Exact, Lpm
from softswitch.v1model.switch import Switch

from .bytecodes import counting_bytecodes
from .engine_bench import ipv4_frame

FABRIC = Path(__file__).resolve().parents[1] / "p4src" / "fabric.p4"
ROUTER_MAC = 0x00AABBCCDDEE  # the destination MAC of ipv4_frame()
# every group mode (controller.lb's list), by the name of its fabric.p4 action less `use_`
MODES = {m.label: m for m in (GroupMode.parse(label, gap_us=50) for label in MODE_LABELS)}


def table(sw: Switch, short: str):  # type: ignore[no-untyped-def]
    (t,) = [t for n, t in sw.tables.items() if n.endswith("." + short)]
    return t


def setup(program, mode: str) -> Switch:  # type: ignore[no-untyped-def]
    sw = Switch(program, clock=SimClock())
    m = MODES[mode]
    action, extra = f"use_{m.label}", (m.gap_us,) if m.mode == "flowlet" else ()
    table(sw, "my_station").add([Exact(ROUTER_MAC)], table(sw, "my_station").action_names[0])
    routing = table(sw, "routing_v4")
    routing.add(
        [Lpm(0x0A000000, 8)],
        next(a for a in routing.action_names if a.endswith("set_next_hop_group")),
        (1,),
    )
    group = table(sw, "next_hop_group")
    group.add(
        [Exact(1)],
        next(a for a in group.action_names if a.endswith("." + action)),
        (4, 0xF, *extra),
    )
    member = table(sw, "next_hop_member")
    nh = next(a for a in member.action_names if a.endswith("set_next_hop"))
    for i in range(4):
        member.add([Exact(1), Exact(i)], nh, (i + 1, ROUTER_MAC, 0x020000000000 + i))
    return sw


def _function_label(code: CodeType) -> str:
    where = code.co_filename
    where = "generated" if where.startswith("<softswitch:") else Path(where).name
    return f"{code.co_qualname.rsplit('.', 1)[-1]} ({where})"


def print_bytecodes(program, packets: int) -> None:  # type: ignore[no-untyped-def]
    print(
        "p4src/fabric.p4 on one in-process softswitch, the benchmark's packets: Python"
        " bytecode instructions per packet, and the functions that execute the most"
    )
    for mode in MODES:
        sw = setup(program, mode)
        frames = [ipv4_frame(64, 0x0B000001 + f, 0x0A000001, 1000 + f) for f in range(64)]
        for i in range(64):  # tables, caches and structs warmed up, as in the timed runs
            sw.process(1, frames[i])
        counts: Counter[str] = Counter()
        with counting_bytecodes(counts, _function_label):
            for i in range(packets):
                sw.process(1, frames[i % len(frames)])
        top = ", ".join(f"{name} {n / packets:.0f}" for name, n in counts.most_common(5))
        print(f"{mode:<20} {sum(counts.values()) / packets:>8,.0f}   {top}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--packets", type=int, default=20000)
    ap.add_argument(
        "--bytecodes", action="store_true", help="bytecode instructions per packet instead"
    )
    args = ap.parse_args()
    program = compile_file(FABRIC)
    if args.bytecodes:
        print_bytecodes(program, min(args.packets, 200))
        return
    print(
        f"p4src/fabric.p4 on one in-process softswitch: {args.packets} packets of 64 bytes"
        " (64 UDP flows, one 4-member group), each through the whole program (parser to"
        " deparser); packets per second of wall time and per second of CPU time, handed"
        " over one at a time (Switch.process) and 64 at a time (Switch.receive_batch, as"
        " the softswitch process hands over a burst of frames: every ingress pass, then"
        " the egress passes)"
    )
    print(
        f"{'fabric.p4 mode':<20} {'packets/s':>11} {'per CPU-s':>11}"
        f" {'batched/s':>11} {'per CPU-s':>11}"
    )
    rounds = max(1, args.packets // 64)
    for mode in MODES:
        sw = setup(program, mode)
        frames = [ipv4_frame(64, 0x0B000001 + f, 0x0A000001, 1000 + f) for f in range(64)]
        assert sw.process(1, frames[0]), f"{mode}: the benchmark packet was dropped"
        t0, c0 = time.perf_counter(), time.process_time()
        for i in range(args.packets):
            sw.process(1, frames[i % 64])
        pps = args.packets / (time.perf_counter() - t0)
        cpu = args.packets / (time.process_time() - c0)
        burst = [(1, f) for f in frames]
        assert len(sw.receive_batch(burst)) == len(burst), f"{mode}: a batch lost packets"
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(rounds):
            sw.receive_batch(burst)
        bpps = rounds * 64 / (time.perf_counter() - t0)
        bcpu = rounds * 64 / (time.process_time() - c0)
        print(f"{mode:<20} {pps:>11,.0f} {cpu:>11,.0f} {bpps:>11,.0f} {bcpu:>11,.0f}", flush=True)


if __name__ == "__main__":
    main()
