"""DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257) as a RoCE-style window.

Switches mark CE above a queue of K packets (fabric.p4's ECN step); the receiver echoes
each mark in its ACK. Once per window of data (an observation window: the packets sent
when it began have been acknowledged) the sender updates `alpha = (1-g)·alpha + g·F`, F
the fraction of acknowledged packets that carried an echo; if any did, the window shrinks
to `cwnd·(1 - alpha/2)`, otherwise it grows by one packet (congestion avoidance). A NACK
(a trimmed or dropped packet) halves the window at most once per window, as TCP's fast
recovery; a timeout sets it to one packet. The flow starts with one bandwidth-delay
product in flight (datacenter practice for RDMA transports, not TCP's slow start), paced
at line rate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .base import IntHop, PathInfo, Unreactive

__all__ = ["Dctcp", "DctcpParams"]


@dataclass(slots=True, frozen=True)
class DctcpParams:
    g: float = 1 / 16
    init_window: float | None = None  # packets; None: the path's BDP
    max_window: float | None = None  # packets; None: 4 BDP
    min_window: float = 1.0


class Dctcp(Unreactive):
    name = "dctcp"

    def __init__(self, path: PathInfo, params: DctcpParams | None = None) -> None:
        self.p = p = params or DctcpParams()
        bdp = path.bdp_packets
        self.line = path.line_rate_bps
        self.cwnd = p.init_window if p.init_window is not None else bdp
        self.max_cwnd = p.max_window if p.max_window is not None else 4 * bdp
        self.alpha = 1.0
        self.acked = 0  # packets acknowledged in this observation window
        self.marked = 0
        self.window_end = self.cwnd  # acked count that closes the observation window
        self.sent = 0
        self.loss_until = -1  # no second halving before this many packets are sent

    def window(self) -> float:
        return self.cwnd

    def rate_bps(self, now: int) -> float:
        return self.line

    def on_send(self, now: int, nbytes: int) -> None:
        self.sent += 1

    def on_ack(
        self, now: int, acked: int, ece: bool, rtt_ns: int | None, hops: Sequence[IntHop]
    ) -> None:
        self.acked += acked
        if ece:
            self.marked += acked
        if self.acked < self.window_end:
            return
        p = self.p
        frac = self.marked / self.acked
        self.alpha = (1 - p.g) * self.alpha + p.g * frac
        if self.marked:
            self.cwnd = max(p.min_window, self.cwnd * (1 - self.alpha / 2))
        else:
            self.cwnd = min(self.max_cwnd, self.cwnd + 1)
        self.acked = self.marked = 0
        self.window_end = self.cwnd

    def on_nack(self, now: int) -> None:
        if self.sent <= self.loss_until:
            return
        self.cwnd = max(self.p.min_window, self.cwnd / 2)
        self.loss_until = self.sent + int(self.cwnd)

    def on_timeout(self, now: int) -> None:
        self.cwnd = self.p.min_window
