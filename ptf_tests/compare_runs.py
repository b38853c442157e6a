#!/usr/bin/env python3
"""Compare the frames two PTF runs recorded, test by test: the same tests on two targets
must put the same bytes on the wire.

    ptf_tests/run.py --record /tmp/ss                       # softswitch
    ptf_tests/run.py --target bmv2 --record /tmp/bmv2       # BMv2 (root)
    python ptf_tests/compare_runs.py /tmp/ss /tmp/bmv2 [--modules routing,packet_io,ecmp]

Only the deterministic modules are compared (default: routing, packet_io, ecmp, int_md):
their packets depend on the program and the entries alone (ECMP on the hash), while the
spraying, flowlet, ECN, CNP and trimming tests depend on random numbers and queue
timing. INT frames carry timestamps and latencies: in int_md the INT hop metadata after
the switch id and ports, and the header of INT reports (times, sequence numbers), are
compared only for their length (`--int-timing` compares them too).

For each test recorded in both runs, the frames of each port (sent and received) are
compared as multisets (the order in which a port's frames were seen may differ between
runs; their bytes and counts may not). Prints one line per test, then
`N of M tests byte-identical`; exit status 1 if any differs.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ptf_tests.lib.recorder import read_recording  # noqa: E402

DETERMINISTIC = ("routing", "packet_io", "ecmp", "int_md")
INT_UDP_PORT = 5000  # docs/fabric.md: INT-MD over UDP destination port


def mask_int_timing(frame: bytes) -> bytes:
    """Zero the INT hop metadata words that hold times and queue depths (everything after
    the first two words of each hop: switch id, ports), keeping lengths. Frames without
    an INT shim are returned unchanged."""
    # Ethernet / IPv4 / UDP / INT shim (4) / INT-MD header (12) / stack
    if len(frame) < 14 + 20 + 8 + 16 or frame[12:14] != b"\x08\x00":
        return frame
    ihl = (frame[14] & 0x0F) * 4
    udp = 14 + ihl
    if frame[23] != 17 or int.from_bytes(frame[udp + 2 : udp + 4], "big") != INT_UDP_PORT:
        return frame
    shim = udp + 8
    words = frame[shim + 1]  # shim length in 4-byte words (shim, header and stack)
    md = shim + 4
    hop_ml = frame[md + 2] & 0x1F  # words per hop
    stack, end = md + 12, shim + 4 * words
    if hop_ml < 3 or end > len(frame):
        return frame
    out = bytearray(frame)
    for hop in range(stack, end, 4 * hop_ml):
        out[hop + 8 : min(hop + 4 * hop_ml, end)] = bytes(min(hop + 4 * hop_ml, end) - hop - 8)
    return bytes(out)


def _inner_int(frame: bytes, start: int) -> int | None:
    """Where an Ethernet/IPv4/UDP frame to the INT port starts at or after `start`."""
    for j in range(start, len(frame) - 42):
        if frame[j + 12 : j + 14] == b"\x08\x00" and frame[j + 14] == 0x45:
            udp = j + 34
            if frame[j + 23] == 17 and frame[udp + 2 : udp + 4] == INT_UDP_PORT.to_bytes(2, "big"):
                return j
    return None


def mask_int_report(frame: bytes) -> bytes:
    """An INT report (Ethernet/IPv4/UDP to the collector, report header, the packet with
    its INT stack): the report header (times, sequence numbers) zeroed, the inner
    packet's INT timing masked. Other frames: `mask_int_timing`."""
    direct = mask_int_timing(frame)
    if direct != frame or len(frame) < 42 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
        return direct
    inner = _inner_int(frame, 42)
    if inner is None:
        return frame
    return frame[:42] + bytes(inner - 42) + mask_int_timing(frame[inner:])


def compare(a: Path, b: Path, int_timing: bool) -> str:
    """'' if the two recordings have the same frames per port, else the first difference."""
    fa, fb = read_recording(a), read_recording(b)
    if a.name.startswith("int_md.") and not int_timing:
        fa = [(p, mask_int_report(f)) for p, f in fa]
        fb = [(p, mask_int_report(f)) for p, f in fb]
    for port in sorted({p for p, _ in fa} | {p for p, _ in fb}):
        ca = Counter(f for p, f in fa if p == port)
        cb = Counter(f for p, f in fb if p == port)
        if ca != cb:
            only_a, only_b = ca - cb, cb - ca
            first = next(iter(only_a or only_b))
            side = "first run only" if only_a else "second run only"
            return (
                f"port {port}: {sum(ca.values())} vs {sum(cb.values())} frames; "
                f"{side}: {first.hex()}"
            )
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("first", type=Path)
    ap.add_argument("second", type=Path)
    ap.add_argument("--modules", default=",".join(DETERMINISTIC))
    ap.add_argument("--int-timing", action="store_true", help="compare INT times too")
    args = ap.parse_args(argv)
    for d in (args.first, args.second):
        if not d.is_dir():
            print(f"{d}: not a directory of recordings")
            return 1
    modules = tuple(m for m in args.modules.split(",") if m)
    names = sorted(
        p.name
        for p in args.first.glob("*.jsonl")
        if p.name.split(".")[0] in modules and (args.second / p.name).exists()
    )
    same = 0
    for name in names:
        why = compare(args.first / name, args.second / name, args.int_timing)
        print(f"{name[: -len('.jsonl')]}: {why or 'same'}")
        same += not why
    print(f"{same} of {len(names)} tests byte-identical")
    return 0 if names and same == len(names) else 1


if __name__ == "__main__":
    sys.exit(main())
