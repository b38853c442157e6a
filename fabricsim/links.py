"""Links: one direction of a wire from a node's port to its peer's port.

A packet handed to `send` at time t (the moment the switch's traffic manager or the host
NIC starts serialising it) reaches the peer at t + length·8/rate + propagation delay. The
sender side serialises one packet at a time (the switch's queue is served at this rate),
so the wire is never oversubscribed. A link that is down loses what is sent onto it;
`loss` drops packets at random (seeded). Bytes are counted per time bin for utilisation
(`bytes_sent` is their sum).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from heapq import heappush
from typing import Any

from .events import EventLoop

__all__ = ["Wire"]


class Wire:
    """`a`:`a_port` -> `b`:`b_port` (one direction)."""

    __slots__ = (
        "a",
        "a_port",
        "b",
        "b_port",
        "bin_ns",
        "bins",
        "deliver",
        "delay_ns",
        "lane",
        "loop",
        "loss",
        "lost",
        "clock",
        "packets",
        "rate_bps",
        "rng",
        "tap",
        "up",
    )

    def __init__(
        self,
        loop: EventLoop,
        a: str,
        a_port: int,
        b: str,
        b_port: int,
        rate_bps: float,
        delay_ns: int,
        loss: float,
        rng: random.Random,
        bin_ns: int,
    ) -> None:
        self.loop = loop
        self.clock = loop.clock
        # packets on a wire arrive in the order they are sent: one lane of events
        self.lane = loop.lane()
        self.a, self.a_port, self.b, self.b_port = a, a_port, b, b_port
        self.rate_bps = rate_bps
        self.delay_ns = delay_ns
        self.loss = loss
        self.rng = rng
        self.up = True
        self.deliver: Callable[[Any], None] | None = None  # peer.receive((port, data))
        self.tap: Callable[[Wire, bytes], None] | None = None  # sees every packet sent
        self.packets = 0
        self.lost = 0
        self.bin_ns = bin_ns
        self.bins: dict[int, int] = {}

    @property
    def bytes_sent(self) -> int:
        """Bytes put on the wire (not lost)."""
        return sum(self.bins.values())

    def send(self, data: bytes) -> int:
        """Put `data` on the wire now; the nanoseconds it takes to serialise (the sender is
        busy that long also when the packet is lost: link down or random loss)."""
        n = len(data)
        ser = int(n * 8e9 / self.rate_bps)
        if self.tap is not None:
            self.tap(self, data)
        if not self.up or (self.loss and self.rng.random() < self.loss):
            self.lost += 1
            return ser
        now = self.clock.ns
        self.packets += 1
        b = now // self.bin_ns
        bins = self.bins
        bins[b] = bins.get(b, 0) + n
        # self.lane.at(arrival, self.deliver, (self.b_port, data)), written out (once per
        # packet sent): packets on a wire arrive in the order they are sent, so the event
        # joins the lane's queue (or heads it) unless it comes due before the last one
        t = now + ser + self.delay_ns
        lane = self.lane
        seq = lane._seq()
        q = lane._queue
        if not q:
            q.append((t, seq, self.deliver, (self.b_port, data)))  # type: ignore[arg-type]
            heappush(lane._heap, (t, seq, None, q))
        elif t >= q[-1][0]:
            q.append((t, seq, self.deliver, (self.b_port, data)))  # type: ignore[arg-type]
        else:
            heappush(lane._heap, (t, seq, self.deliver, (self.b_port, data)))
        return ser
