"""Machine instructions and simulated first-level cache misses per fabric.p4 packet, under
cachegrind: figures the machine's load does not move (unlike times), that show where the
Python engine's time goes on a machine whose first-level caches cannot hold a packet's
code and data. For each load-balancing mode asked for, packets are handed over one at a
time (`Switch.process`) and in batches (`Switch.receive_batch`, as the `softswitch`
process does); each figure is the difference of two runs of the same script with
different packet counts, divided by the difference (start-up and compilation cancel
out). Needs valgrind on PATH (prints why and exits 0 otherwise); takes about two minutes
per row on two cores.

`--switches N` hands the packets to N switches of the program in turn (a packet, or a
batch, each), as in a fabric: the misses that switches' own state (tables, registers,
closures) adds. `--fabricsim MODES` measures instead a packet-hop of fabricsim (the 4x4
leaf-spine, a permutation, INT on): one packet through fabric.p4 at one of 16 switches,
with the simulation around it (hosts, wires, queues, events); the difference of runs with
20 kB and 60 kB flows, divided by the difference of their hops. About five minutes a mode.

Run: `python -m bench.cache_bench [--modes ecmp,spray_random] [--packets N]
[--switches N] [--fabricsim spray,ecmp]`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .fabric_bench import MODES

ROOT = Path(__file__).resolve().parents[1]
L2_BYTES = 512 * 1024  # the last level cachegrind simulates: this machine's L2 per core
COUNTS = ("I   refs", "I1  misses", "D1  misses", "LL misses")


def child(mode: str, how: str, packets: int, switches: int) -> None:
    """The measured script: `packets` fabric.p4 packets through `switches` switches of one
    program, in turn (a packet, or a batch, each)."""
    from softswitch.compiler import compile_file

    from .engine_bench import ipv4_frame
    from .fabric_bench import FABRIC, setup

    program = compile_file(FABRIC)
    sws = [setup(program, mode) for _ in range(switches)]
    frames = [(1, ipv4_frame(64, 0x0B000001 + f, 0x0A000001, 1000 + f)) for f in range(64)]
    if how == "process":
        for i in range(packets):
            sws[i % switches].process(*frames[i % 64])
    else:
        for i in range(packets // 64):
            sws[i % switches].receive_batch(frames)


def child_fabricsim(mode: str, flow_bytes: int) -> None:
    """The measured script for a packet-hop: one fabricsim run; prints its hops."""
    from controller.topology import load_topology
    from fabricsim.run import SimConfig, simulate

    topo = load_topology(ROOT / "topologies" / "leaf-spine-4x4.yaml")
    r = simulate(topo, SimConfig(mode=mode, flow_bytes=flow_bytes, int_telemetry=True))
    print(r["packet_hops"])


def counts(
    mode: str, how: str, packets: int, work: Path, switches: int = 1
) -> tuple[tuple[int, ...], str]:
    """COUNTS for the child script run with these arguments (`how` "hop": a fabricsim run,
    `packets` its flow size), and what the child printed."""
    log = work / f"{mode}-{how}-{packets}.log"
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(ROOT))
    cmd = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=yes",
        f"--LL={L2_BYTES},8,64",
        f"--cachegrind-out-file={work / (log.stem + '.out')}",
        f"--log-file={log}",
        sys.executable,
        "-m",
        "bench.cache_bench",
        "--child",
        mode,
        how,
        str(packets),
        str(switches),
    ]
    done = subprocess.run(cmd, check=True, env=env, cwd=ROOT, capture_output=True, text=True)
    text = log.read_text()
    found = []
    for name in COUNTS:
        m = re.search(re.escape(name) + r":\s+([\d,]+)", text)
        if m is None:
            raise RuntimeError(f"cachegrind printed no '{name}' line (see {log})")
        found.append(int(m.group(1).replace(",", "")))
    return tuple(found), done.stdout


def per_packet(mode: str, how: str, packets: int, work: Path, switches: int) -> list[float]:
    small, large = packets // 4 // 64 * 64, packets // 64 * 64
    (a, _), (b, _) = (counts(mode, how, n, work, switches) for n in (small, large))
    return [(y - x) / (large - small) for x, y in zip(a, b, strict=True)]


def per_hop(mode: str, work: Path, pool: ThreadPoolExecutor) -> list[float]:
    """COUNTS per fabricsim packet-hop: runs with 20 kB and 60 kB flows, side by side."""
    (a, out_a), (b, out_b) = pool.map(
        lambda flow: counts(mode, "hop", flow, work), (20_000, 60_000)
    )
    hops = int(out_b.split()[-1]) - int(out_a.split()[-1])  # each child prints its hops
    return [(y - x) / hops for x, y in zip(a, b, strict=True)]


def main() -> None:
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        if sys.argv[3] == "hop":
            child_fabricsim(sys.argv[2], int(sys.argv[4]))
        else:
            child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
        return
    from fabricsim.run import MODES as SIM_MODES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="ecmp,spray_random", help="comma-separated modes")
    ap.add_argument("--packets", type=int, default=2560)
    ap.add_argument(
        "--switches", type=int, default=1, help="switches of one program taking packets in turn"
    )
    ap.add_argument(
        "--fabricsim", metavar="MODES", help="per fabricsim packet-hop instead, these modes"
    )
    args = ap.parse_args()
    modes = [m for m in (args.fabricsim or args.modes).split(",") if m]
    known = SIM_MODES if args.fabricsim else MODES
    unknown = [m for m in modes if m not in known]
    if unknown:
        ap.error(f"unknown mode(s) {', '.join(unknown)}; modes: {', '.join(known)}")
    if args.packets < 512:
        ap.error("--packets must be at least 512")
    if args.switches < 1:
        ap.error("--switches must be at least 1")
    if shutil.which("valgrind") is None:
        print("cache_bench: valgrind is not on PATH; nothing measured")
        return
    if args.fabricsim:
        print_hops(modes)
        return
    print(
        "p4src/fabric.p4 under cachegrind (L1 as this CPU's, last level "
        f"{L2_BYTES // 1024} KiB): per packet, machine instructions and first-level cache"
        " misses, one packet at a time (process) and in batches of 64 (receive_batch)"
        + (
            f"; {args.switches} switches of the program take them in turn"
            if args.switches > 1
            else ""
        )
    )
    print(
        f"{'mode':<20} {'handed over':<14} {'instructions':>13} {'I1 misses':>10}"
        f" {'D1 misses':>10} {'LL misses':>10}"
    )
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(2) as pool:
        work = Path(tmp)
        for mode in modes:
            runs = {
                how: pool.submit(per_packet, mode, how, args.packets, work, args.switches)
                for how in ("process", "receive_batch")
            }
            for how, fut in runs.items():
                ins, i1, d1, ll = fut.result()
                print(
                    f"{mode:<20} {how:<14} {ins:>13,.0f} {i1:>10,.0f} {d1:>10,.0f} {ll:>10,.1f}",
                    flush=True,
                )


def print_hops(modes: list[str]) -> None:
    print(
        "fabricsim (4x4 leaf-spine, permutation, INT on) under cachegrind (L1 as this"
        f" CPU's, last level {L2_BYTES // 1024} KiB): per packet-hop, machine instructions"
        " and cache misses"
    )
    print(
        f"{'mode':<20} {'instructions':>13} {'I1 misses':>10} {'D1 misses':>10} {'LL misses':>10}"
    )
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(2) as pool:
        for mode in modes:
            ins, i1, d1, ll = per_hop(mode, Path(tmp), pool)
            print(f"{mode:<20} {ins:>13,.0f} {i1:>10,.0f} {d1:>10,.0f} {ll:>10,.1f}", flush=True)


if __name__ == "__main__":
    main()
