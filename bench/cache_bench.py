"""Machine instructions and simulated first-level cache misses per fabric.p4 packet, under
cachegrind: figures the machine's load does not move (unlike times), that show where the
Python engine's time goes on a machine whose first-level caches cannot hold a packet's
code and data. For each load-balancing mode asked for, packets are handed over one at a
time (`Switch.process`) and in batches (`Switch.receive_batch`, as the `softswitch`
process does); each figure is the difference of two runs of the same script with
different packet counts, divided by the difference (start-up and compilation cancel
out). Needs valgrind on PATH (prints why and exits 0 otherwise); takes about two minutes
per row on two cores.

Run: `python -m bench.cache_bench [--modes ecmp,spray_random] [--packets N]`.
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


def child(mode: str, how: str, packets: int) -> None:
    """The measured script: `packets` fabric.p4 packets through one switch."""
    from softswitch.compiler import compile_file

    from .engine_bench import ipv4_frame
    from .fabric_bench import FABRIC, setup

    sw = setup(compile_file(FABRIC), mode)
    frames = [(1, ipv4_frame(64, 0x0B000001 + f, 0x0A000001, 1000 + f)) for f in range(64)]
    if how == "process":
        for i in range(packets):
            sw.process(*frames[i % 64])
    else:
        for _ in range(packets // 64):
            sw.receive_batch(frames)


def counts(mode: str, how: str, packets: int, work: Path) -> tuple[int, ...]:
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
    ]
    subprocess.run(cmd, check=True, env=env, cwd=ROOT, capture_output=True)
    text = log.read_text()
    found = []
    for name in COUNTS:
        m = re.search(re.escape(name) + r":\s+([\d,]+)", text)
        if m is None:
            raise RuntimeError(f"cachegrind printed no '{name}' line (see {log})")
        found.append(int(m.group(1).replace(",", "")))
    return tuple(found)


def per_packet(mode: str, how: str, packets: int, work: Path) -> list[float]:
    small, large = packets // 4 // 64 * 64, packets // 64 * 64
    a = counts(mode, how, small, work)
    b = counts(mode, how, large, work)
    return [(y - x) / (large - small) for x, y in zip(a, b, strict=True)]


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="ecmp,spray_random", help="comma-separated modes")
    ap.add_argument("--packets", type=int, default=2560)
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        ap.error(f"unknown mode(s) {', '.join(unknown)}; modes: {', '.join(MODES)}")
    if args.packets < 512:
        ap.error("--packets must be at least 512")
    if shutil.which("valgrind") is None:
        print("cache_bench: valgrind is not on PATH; nothing measured")
        return
    print(
        "p4src/fabric.p4 under cachegrind (L1 as this CPU's, last level "
        f"{L2_BYTES // 1024} KiB): per packet, machine instructions and first-level cache"
        " misses, one packet at a time (process) and in batches of 64 (receive_batch)"
    )
    print(
        f"{'mode':<20} {'handed over':<14} {'instructions':>13} {'I1 misses':>10}"
        f" {'D1 misses':>10} {'LL misses':>10}"
    )
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(2) as pool:
        work = Path(tmp)
        for mode in modes:
            runs = {
                how: pool.submit(per_packet, mode, how, args.packets, work)
                for how in ("process", "receive_batch")
            }
            for how, fut in runs.items():
                ins, i1, d1, ll = fut.result()
                print(
                    f"{mode:<20} {how:<14} {ins:>13,.0f} {i1:>10,.0f} {d1:>10,.0f} {ll:>10,.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
