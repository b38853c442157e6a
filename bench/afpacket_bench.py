"""Packets per second softswitch forwards between Linux interfaces (AF_PACKET).

    sender -> h1 ==veth== s1 [softswitch port 1] -> [port 2] s2 ==veth== h2 -> receiver

Everything lives in a network namespace this benchmark makes and deletes. softswitch runs
as its own process (`softswitch PROG -i 1@s1 -i 2@s2`, the command a Mininet runner
uses) with a cross-connect program, so the figures are the packet I/O path plus the
smallest pipeline. The sender and the receiver share this process: each row offers a
load for a fixed time and counts what arrives. Needs root and iproute2 (prints why and
exits 0 otherwise); takes about 12 s.

Run: `python -m bench.afpacket_bench [--seconds 1.5]`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from controller.targets import SwitchProcess, SwitchSpec, SwitchStartError
from softswitch.ports.afpacket import RawSocketPort

CROSS = Path(__file__).parent / "programs" / "cross_connect.p4"

MARK = b"SSWBENCH"
ETHERTYPE = b"\x88\xb5"  # local experimental


def frame(size: int, seq: int = 0) -> bytes:
    head = bytes.fromhex("020000000002020000000001") + ETHERTYPE + MARK + seq.to_bytes(4, "big")
    return head + bytes(max(0, size - len(head)))


def ip(*args: str, check: bool = True) -> None:
    subprocess.run(["ip", *args], check=check, capture_output=True)


class Bench:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ns = f"sswb{os.getpid()}"
        self.switch: SwitchProcess | None = None
        self.hosts: list[RawSocketPort] = []

    # ------------------------------------------------------------ set-up / tear-down
    def setup(self) -> None:
        ip("netns", "add", self.ns)
        ex = ["netns", "exec", self.ns]
        subprocess.run(
            ["ip", *ex, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"], capture_output=True
        )
        subprocess.run(
            ["ip", *ex, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1"],
            capture_output=True,
        )
        n = self.ns
        ip("-n", n, "link", "set", "lo", "up")  # the switch's gRPC port must answer on it
        for a, b in ((f"{n}h1", f"{n}s1"), (f"{n}s2", f"{n}h2")):
            ip("-n", n, "link", "add", a, "type", "veth", "peer", "name", b)
            ip("-n", n, "link", "set", a, "up")
            ip("-n", n, "link", "set", b, "up")
        self.switch = SwitchProcess(
            SwitchSpec(config=CROSS, ports=((1, f"{n}s1"), (2, f"{n}s2")), cpu_port=None, netns=n)
        )
        self.switch.start()
        try:  # ready: its PID alive and its gRPC port answering in the namespace
            self.switch.wait_ready(timeout=60)
        except SwitchStartError as e:
            raise RuntimeError(f"softswitch did not start: {e}") from None
        self.h1 = RawSocketPort(f"{n}h1", netns=n)
        self.h2 = RawSocketPort(f"{n}h2", netns=n)
        self.hosts = [self.h1, self.h2]

    def teardown(self) -> None:
        for h in self.hosts:
            h.close()
        if self.switch is not None:
            self.switch.stop(timeout=5)
        ip("netns", "del", self.ns, check=False)

    # ------------------------------------------------------------ measurements
    def latency(self, count: int = 300) -> list[float]:
        """Round trips h1 -> switch -> h2 with one frame in flight, microseconds."""
        out = []
        for i in range(count):
            f = frame(64, i)
            t = time.perf_counter()
            self.h1.send(f)
            while True:
                got = self.h2.recv(1.0)
                if got is None or got == f:
                    break
            if got is not None:
                out.append((time.perf_counter() - t) * 1e6)
        return out

    def load(self, size: int, pps: float | None) -> tuple[int, int, float]:
        """Offer `pps` frames/s (None: as fast as we can) for self.seconds; (sent, received,
        seconds the receiver saw frames for)."""
        received = 0
        first = last = 0.0
        stop = threading.Event()

        def receive() -> None:
            nonlocal received, first, last
            while True:
                f = self.h2.recv(0.3)
                if f is None:
                    if stop.is_set():
                        return
                    continue
                if f[14:22] == MARK:
                    last = time.perf_counter()
                    if not received:
                        first = last
                    received += 1

        rx = threading.Thread(target=receive, daemon=True)
        rx.start()
        f = frame(size)
        send = self.h1.send
        sent = 0
        start = time.perf_counter()
        end = start + self.seconds
        batch = 32
        while True:
            now = time.perf_counter()
            if now >= end:
                break
            if pps is not None:
                due = int((now - start) * pps)
                if sent >= due:
                    time.sleep(min(batch / pps, end - now))
                    continue
            for _ in range(batch):
                try:
                    send(f)
                    sent += 1
                except OSError:  # the veth queue is full: a drop on the wire
                    pass
        stop.set()
        rx.join()
        return sent, received, max(last - first, 1e-9)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=1.5, help="per row (default 1.5)")
    args = ap.parse_args(argv)
    if sys.platform != "linux" or os.geteuid() != 0:
        print("afpacket_bench: needs root on Linux (AF_PACKET sockets, ip netns); skipped")
        return 0
    if shutil.which("ip") is None:
        print("afpacket_bench: needs iproute2 (`ip`); skipped")
        return 0
    bench = Bench(min(args.seconds, 2.0))
    t0 = time.monotonic()
    try:
        try:
            bench.setup()
        except (OSError, subprocess.CalledProcessError, RuntimeError) as e:
            print(f"afpacket_bench: cannot set up namespaces/veths here ({e}); skipped")
            return 0
        lat = bench.latency()
        print("softswitch AF_PACKET forwarding: h1 -> port 1 -> port 2 -> h2 (veth, netns)")
        print("program: cross-connect (no parsing); softswitch in its own process\n")
        if lat:
            q = statistics.quantiles(lat, n=100)
            print(
                f"latency, one 64-byte frame in flight: median {statistics.median(lat):.0f} us, "
                f"p99 {q[98]:.0f} us ({len(lat)} frames)\n"
            )
        print(
            f"{'frame':>6} {'offered':>10} {'sent/s':>10} {'fwd/s':>10} {'Mbit/s':>8} {'loss':>7}"
        )
        rows = [(64, 5_000), (64, 20_000), (64, None), (512, None), (1500, None)]
        for size, pps in rows:
            sent, got, span = bench.load(size, pps)
            rate = got / span if got > 1 else 0.0
            offered = f"{pps:,}" if pps else "max"
            loss = 100.0 * (sent - got) / sent if sent else 0.0
            print(
                f"{size:>6} {offered:>10} {sent / bench.seconds:>10,.0f} {rate:>10,.0f} "
                f"{rate * size * 8 / 1e6:>8.1f} {loss:>6.1f}%"
            )
            time.sleep(0.2)  # let the switch drain between rows
    finally:
        bench.teardown()
    print(f"\n({time.monotonic() - t0:.1f} s; namespace {bench.ns} deleted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
