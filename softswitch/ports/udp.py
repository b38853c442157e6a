"""A port whose wire is a pair of UDP sockets on loopback: one Ethernet frame per datagram.

    softswitch prog.json -i 1@udp:127.0.0.1:40001,127.0.0.1:40002 ...

binds 127.0.0.1:40001 and sends every frame of port 1 to 127.0.0.1:40002; whatever arrives
on 40001 enters port 1. Two switches whose ports name each other's addresses are joined by
a cable, with no root, no veth and no namespace; a test or a traffic generator that binds
the far address is a host. Frames from any other source address are accepted too (a peer
that restarted keeps its address but may send before we know it).

The datagram is the frame as it would be on the wire (no FCS, no preamble); frames larger
than a UDP datagram (65,507 bytes) are refused like an interface refuses a frame above its
MTU (OSError).
"""

from __future__ import annotations

import select
import socket
import time
from dataclasses import dataclass
from typing import Any

from . import PortClosed

__all__ = ["UdpEndpoints", "UdpPort", "UdpReceiver", "parse_udp_spec"]

PREFIX = "udp:"
_MAX_DATAGRAM = 65535
_POLL_S = 0.2


@dataclass(frozen=True, slots=True)
class UdpEndpoints:
    local: tuple[str, int]
    remote: tuple[str, int]

    def spec(self) -> str:
        """The `-i PORT@<spec>` text for these endpoints."""
        return f"{PREFIX}{self.local[0]}:{self.local[1]},{self.remote[0]}:{self.remote[1]}"


def _addr(text: str, what: str, spec: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":")
    if not colon or not host:
        raise ValueError(f"{spec!r}: the {what} address must be HOST:PORT, not {text!r}")
    try:
        n = int(port)
    except ValueError:
        raise ValueError(f"{spec!r}: the {what} port {port!r} is not a number") from None
    if not 0 < n < 65536:
        raise ValueError(f"{spec!r}: the {what} port {n} is not in 1..65535")
    return host, n


def parse_udp_spec(spec: str) -> UdpEndpoints:
    """`udp:LOCAL_HOST:PORT,REMOTE_HOST:PORT` -> endpoints (ValueError saying what is wrong)."""
    if not spec.startswith(PREFIX):
        raise ValueError(f"{spec!r} is not a UDP port (udp:LOCAL_HOST:PORT,REMOTE_HOST:PORT)")
    local, comma, remote = spec[len(PREFIX) :].partition(",")
    if not comma:
        raise ValueError(f"{spec!r}: expected udp:LOCAL_HOST:PORT,REMOTE_HOST:PORT")
    return UdpEndpoints(_addr(local, "local", spec), _addr(remote, "remote", spec))


class UdpPort:
    """A `Port` (see `softswitch.ports`) over a bound UDP socket and a fixed peer address."""

    def __init__(self, endpoints: UdpEndpoints | str, rcvbuf: int = 4 << 20) -> None:
        self.endpoints = parse_udp_spec(endpoints) if isinstance(endpoints, str) else endpoints
        self.name = self.endpoints.spec()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            self._sock.bind(self.endpoints.local)
        except OSError:
            self._sock.close()
            raise
        self._sock.setblocking(False)
        self._closed = False
        # what the cable does to the frames sent (loss, rate, flap): softswitch.impair
        self.impair: Any = None

    def send(self, data: bytes) -> None:
        imp = self.impair
        if imp is not None:
            imp.send(data, self._send)
            return
        self._send(data)

    def _send(self, data: bytes) -> None:
        try:
            self._sock.sendto(data, self.endpoints.remote)
        except (BlockingIOError, ConnectionRefusedError):
            pass  # a full socket buffer or nobody listening: the frame is lost, as on a wire

    def recv(self, timeout: float | None = None) -> bytes | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._closed:
                raise PortClosed(self.name)
            # short slices, so a close() from another thread is seen within _POLL_S
            left = _POLL_S if deadline is None else min(_POLL_S, deadline - time.monotonic())
            try:
                ready, _, _ = select.select([self._sock], [], [], max(0.0, left))
            except (OSError, ValueError):  # closed under us
                raise PortClosed(self.name) from None
            if ready:
                try:
                    return self._sock.recv(_MAX_DATAGRAM)
                except (BlockingIOError, ConnectionRefusedError, InterruptedError):
                    continue  # an ICMP error from an earlier send, or a spurious wake-up
                except OSError:
                    raise PortClosed(self.name) from None
            if deadline is not None and time.monotonic() >= deadline:
                return None

    def drain(self, limit: int) -> list[bytes]:
        """Up to `limit` frames queued now, without waiting (for `UdpReceiver`)."""
        out: list[bytes] = []
        while len(out) < limit and not self._closed:
            try:
                out.append(self._sock.recv(_MAX_DATAGRAM))
            except (BlockingIOError, InterruptedError):
                break
            except ConnectionRefusedError:
                continue  # an ICMP error from an earlier send
            except OSError:
                break
        return out

    def close(self) -> None:
        self._closed = True
        self._sock.close()


class UdpReceiver:
    """One thread receiving for many `UdpPort`s (of many runtimes: a chassis), instead of
    a thread per port: it waits on all their sockets at once (epoll) and injects what
    each has queued, up to `burst` frames under one hold of its runtime's lock."""

    def __init__(self, burst: int = 64) -> None:
        import selectors
        import threading

        self.burst = burst
        self._sel = selectors.DefaultSelector()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._threading = threading

    def add(self, runtime: Any, port_no: int, port: UdpPort) -> None:
        """Receive for `port`, attached to `runtime` as `port_no` (before `start`)."""
        import selectors

        self._sel.register(port._sock, selectors.EVENT_READ, (runtime, port_no, port))

    def start(self) -> None:
        self._thread = self._threading.Thread(target=self._run, name="softswitch-udp", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        self._sel.close()

    def _run(self) -> None:
        from itertools import repeat

        while not self._stop.is_set():
            try:
                events = self._sel.select(_POLL_S)
            except (OSError, ValueError):
                return
            for key, _ in events:
                runtime, port_no, port = key.data
                frames = port.drain(self.burst)
                if frames and runtime.ports.get(port_no) is port:
                    runtime.inject_many(zip(repeat(port_no), frames), chunk=self.burst)
