"""Packets per second of the softswitch engine on one core, in-process (no sockets).

(a) plain IPv4 LPM forwarding (1,000 prefixes, checksum update);
(b) ECMP through an action selector (4 members) + a register read/write + an egress
    ECN check, on UDP packets of 64 distinct flows;
each with 64-byte and 1500-byte frames. Run: `make bench` or
`python -m bench.engine_bench [--packets N]`.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from softswitch.compiler import compile_file
from softswitch.engine.matches import Lpm
from softswitch.v1model.hashes import csum16
from softswitch.v1model.switch import Switch

HERE = Path(__file__).parent / "programs"


def ipv4_frame(
    size: int, src: int, dst: int, sport: int = 1000, dport: int = 2000, ecn: int = 1
) -> bytes:
    eth = bytes.fromhex("00aabbccddee0011223344550800")
    total = size - 14
    ip = bytearray(20)
    ip[0] = 0x45
    ip[1] = ecn
    ip[2:4] = total.to_bytes(2, "big")
    ip[8] = 64
    ip[9] = 17
    ip[12:16] = src.to_bytes(4, "big")
    ip[16:20] = dst.to_bytes(4, "big")
    ip[10:12] = csum16(bytes(ip)).to_bytes(2, "big")
    udp = (
        sport.to_bytes(2, "big")
        + dport.to_bytes(2, "big")
        + (total - 20).to_bytes(2, "big")
        + b"\0\0"
    )
    return eth + bytes(ip) + udp + bytes(size - 14 - 20 - 8)


def setup_lpm() -> Switch:
    sw = Switch(compile_file(HERE / "ipv4_lpm.p4"))
    t = sw.tables["BenchIngress.routing_v4"]
    rng = random.Random(1)
    for i in range(1000):
        plen = rng.choice((8, 16, 24, 32))
        prefix = rng.getrandbits(32) & (((1 << plen) - 1) << (32 - plen))
        try:
            t.add(
                [Lpm(prefix, plen)],
                "BenchIngress.forward",
                (0x0A0000000000 + i, 0x0B0000000000, i % 8),
            )
        except Exception:
            continue
    t.add([Lpm(0x0A000000, 8)], "BenchIngress.forward", (1, 2, 3))
    return sw


def setup_ecmp() -> Switch:
    sw = Switch(compile_file(HERE / "ecmp_ecn.p4"))
    t = sw.tables["BenchIngress.next_hop_group"]
    prof = sw.externs[t.spec.implementation]
    for m in range(4):
        prof.add_member(m, "BenchIngress.set_next_hop", (0x0C0000000000 + m, m + 1))
    prof.set_group(1, [0, 1, 2, 3], {}, create=True)
    t.add([Lpm(0x0A000000, 8)], "", group=1)
    return sw


def measure(sw: Switch, frames: list[bytes], n: int) -> float:
    process = sw.process
    k = len(frames)
    for i in range(min(n, 2000)):  # warm-up
        process(1, frames[i % k])
    t0 = time.perf_counter()
    for i in range(n):
        process(1, frames[i % k])
    return n / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--packets", type=int, default=30000)
    args = ap.parse_args()
    print(f"{'benchmark':<44} {'frame':>6} {'packets/s':>11}")
    for name, setup, flows in (
        ("(a) IPv4 LPM forwarding", setup_lpm, 1),
        ("(b) selector + register + egress ECN", setup_ecmp, 64),
    ):
        sw = setup()
        for size in (64, 1500):
            frames = [ipv4_frame(size, 0x0B000001 + f, 0x0A000001, 1000 + f) for f in range(flows)]
            out = sw.process(1, frames[0])
            assert out, f"{name}: the benchmark packet was dropped"
            pps = measure(sw, frames, args.packets)
            print(f"{name:<44} {size:>6} {pps:>11,.0f}", flush=True)


if __name__ == "__main__":
    main()
