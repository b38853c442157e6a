"""The hosts' transport: senders with window and rate control, receivers that place
packets out of order or insist on order.

Sender (one per flow):
- window (DCTCP-like): `cwnd` packets in flight; per window of acknowledged packets the
  fraction F echoed with CE updates `alpha = (1-g)·alpha + g·F`; a window with marks
  shrinks `cwnd` by `alpha/2`, one without grows it by one packet.
- rate (DCQCN-like): a CNP from a switch cuts the rate to `rate·(1 - a/2)` (remembering
  it as the target) and raises `a`; every `rate_timer_ns` without a CNP `a` decays and
  the rate recovers halfway to the target (five times), then the target rises by
  `rate_ai_bps` (additive increase). Packets are paced at the rate.
- loss: a trimmed packet comes back as a NAK naming it and is sent again at once; a
  dropped one is sent again after `rto_ns` without progress (every unacknowledged one).

Receivers:
- `tolerant` (selective repeat, as RDMA NICs that place out-of-order data): every packet
  is kept; each is acknowledged with the cumulative PSN and its own PSN.
- `in_order` (go-back-N, as RoCE NICs without out-of-order placement): only the expected
  PSN is kept; anything after a gap is dropped and one NAK asks for the expected PSN, so
  the sender goes back and sends everything from there again.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from .frames import FlowFrames

__all__ = ["CcParams", "Receiver", "Sender"]


@dataclass(slots=True, frozen=True)
class CcParams:
    line_rate_bps: float = 100e9
    init_cwnd: float = 64.0  # packets: about one bandwidth-delay product of a 4-hop path
    max_cwnd: float = 128.0
    dctcp_g: float = 1 / 16
    dctcp: bool = True  # react to CE echoes
    dcqcn: bool = True  # react to CNPs
    dcqcn_g: float = 1 / 16
    rate_timer_ns: int = 5_000
    rate_ai_bps: float = 2e9
    min_rate_bps: float = 1e9
    rto_ns: int = 100_000


class Sender:
    """One flow's sending side. `mode` is "sr" (tolerant receiver) or "gbn" (in order)."""

    __slots__ = (
        "acked",
        "acked_count",
        "alpha",
        "cc",
        "cnps",
        "cwnd",
        "done",
        "ece_count",
        "fid",
        "frames",
        "gbn",
        "last_progress",
        "marked",
        "next_psn",
        "next_send",
        "npkts",
        "outstanding",
        "pkt_bits",
        "queued",
        "rate",
        "rate_a",
        "rate_stage",
        "rate_t",
        "retransmits",
        "rtx",
        "sent",
        "target",
        "una",
        "win_acks",
    )

    def __init__(
        self, fid: int, npkts: int, frames: FlowFrames, mode: str, cc: CcParams, pkt_bytes: int
    ) -> None:
        self.fid = fid
        self.npkts = npkts
        self.frames = frames
        self.gbn = mode == "gbn"
        self.cc = cc
        self.next_psn = 0
        self.una = 0
        self.acked = bytearray(npkts)
        self.acked_count = 0
        self.queued = bytearray(npkts)  # SR: waiting in rtx
        self.outstanding = 0
        self.rtx: deque[int] = deque()
        self.cwnd = cc.init_cwnd
        self.alpha = 1.0
        self.win_acks = 0
        self.marked = 0
        self.rate = cc.line_rate_bps
        self.target = cc.line_rate_bps
        self.rate_a = 1.0
        self.rate_stage = 0
        self.rate_t = 0
        self.next_send = 0
        self.pkt_bits = pkt_bytes * 8
        self.last_progress = 0
        self.sent = 0
        self.retransmits = 0
        self.cnps = 0
        self.ece_count = 0
        self.done = False

    # ------------------------------------------------------------ sending
    def inflight(self) -> int:
        return self.next_psn - self.una if self.gbn else self.outstanding

    def has_data(self) -> bool:
        return not self.done and (bool(self.rtx) or self.next_psn < self.npkts)

    def window_open(self) -> bool:
        return self.inflight() < self.cwnd

    def take(self, now: int) -> bytes:
        """The next packet to send now (a retransmission first)."""
        if self.cc.dcqcn:
            self._recover(now)
        if self.rtx and not self.gbn:
            psn = self.rtx.popleft()
            self.queued[psn] = 0
            self.retransmits += 1
        else:
            psn = self.next_psn
            self.next_psn += 1
            if self.gbn and psn < self.sent:
                self.retransmits += 1
        if psn >= self.sent:
            self.sent = psn + 1
        self.outstanding += 1
        gap = self.pkt_bits * 1e9 / self.rate
        self.next_send = max(self.next_send, now) + int(gap)
        return self.frames.data(psn, psn == self.npkts - 1)

    # ------------------------------------------------------------ feedback
    def on_ack(self, cum: int, psn: int, nak: bool, ece: bool, now: int) -> int:
        """Apply an ACK/NAK; return the number of packets it newly acknowledged."""
        new = 0
        if self.gbn:
            if cum > self.una:
                new = cum - self.una
                self.una = cum
            if nak and cum < self.next_psn:
                self.next_psn = max(cum, self.una)  # go back
            self.outstanding = self.next_psn - self.una
            if self.una >= self.npkts:
                self.done = True
        else:
            acked = self.acked
            if nak:
                if not acked[psn] and not self.queued[psn]:
                    self.queued[psn] = 1
                    self.rtx.append(psn)
                    self.outstanding = max(0, self.outstanding - 1)
            else:
                if not acked[psn]:
                    acked[psn] = 1
                    new += 1
                while self.una < cum:
                    if not acked[self.una]:
                        acked[self.una] = 1
                        new += 1
                    self.una += 1
                while self.una < self.npkts and acked[self.una]:
                    self.una += 1
                self.acked_count += new
                self.outstanding = max(0, self.outstanding - new)
                if self.acked_count >= self.npkts:
                    self.done = True
        if new:
            self.last_progress = now
            if ece:
                self.ece_count += 1
            if self.cc.dctcp:
                self._window(new, ece)
        return new

    def _window(self, new: int, ece: bool) -> None:
        self.win_acks += new
        if ece:
            self.marked += new
        if self.win_acks >= self.cwnd:
            frac = self.marked / self.win_acks
            g = self.cc.dctcp_g
            self.alpha = (1 - g) * self.alpha + g * frac
            if self.marked:
                self.cwnd = max(1.0, self.cwnd * (1 - self.alpha / 2))
            else:
                self.cwnd = min(self.cc.max_cwnd, self.cwnd + 1)
            self.win_acks = self.marked = 0

    def on_cnp(self, now: int) -> None:
        self.cnps += 1
        if not self.cc.dcqcn:
            return
        self._recover(now)
        self.target = self.rate
        self.rate = max(self.cc.min_rate_bps, self.rate * (1 - self.rate_a / 2))
        g = self.cc.dcqcn_g
        self.rate_a = (1 - g) * self.rate_a + g
        self.rate_stage = 0
        self.rate_t = now

    def _recover(self, now: int) -> None:
        period = self.cc.rate_timer_ns
        if self.rate >= self.cc.line_rate_bps or now - self.rate_t < period:
            return
        steps = min(20, (now - self.rate_t) // period)
        self.rate_t += steps * period
        g = self.cc.dcqcn_g
        line = self.cc.line_rate_bps
        for _ in range(steps):
            self.rate_a *= 1 - g
            if self.rate_stage >= 5:
                self.target = min(line, self.target + self.cc.rate_ai_bps)
            self.rate = min(line, (self.rate + self.target) / 2)
            self.rate_stage += 1

    def on_timeout(self, now: int) -> bool:
        """No progress for rto_ns: send every unacknowledged packet again. True if fired."""
        if self.done or self.inflight() == 0 or now - self.last_progress < self.cc.rto_ns:
            return False
        self.last_progress = now
        if self.gbn:
            self.next_psn = self.una
        else:
            for psn in range(self.una, self.next_psn):
                if not self.acked[psn] and not self.queued[psn]:
                    self.queued[psn] = 1
                    self.rtx.append(psn)
        self.outstanding = 0
        self.cwnd = max(1.0, self.cwnd / 2)
        return True


class Receiver:
    """One flow's receiving side; `deliver` returns the acknowledgement to send."""

    __slots__ = (
        "arrivals",
        "ce",
        "complete",
        "expected",
        "fid",
        "frames",
        "got",
        "got_count",
        "in_order",
        "max_psn",
        "nak_for",
        "npkts",
        "ooo",
        "reorder_dist",
        "trimmed",
    )

    def __init__(self, fid: int, npkts: int, frames: FlowFrames, in_order: bool) -> None:
        self.fid = fid
        self.npkts = npkts
        self.frames = frames
        self.in_order = in_order
        self.got = bytearray(npkts)
        self.got_count = 0
        self.expected = 0
        self.nak_for = -1
        self.max_psn = -1
        self.arrivals = 0
        self.ooo = 0
        self.reorder_dist: list[int] = []
        self.ce = 0
        self.trimmed = 0
        self.complete = False

    def deliver(self, psn: int, ce: bool, trimmed: bool) -> bytes | None:
        self.arrivals += 1
        if ce:
            self.ce += 1
        if psn < self.max_psn:
            self.ooo += 1
            self.reorder_dist.append(self.max_psn - psn)
        else:
            self.max_psn = psn
        frames = self.frames
        if trimmed:
            self.trimmed += 1
            if self.in_order:
                return self._nak(ce)
            return frames.ack(self.expected, psn, True, ce)
        if self.in_order:
            if psn == self.expected:
                self.expected += 1
                self.got_count += 1
                if self.expected >= self.npkts:
                    self.complete = True
                return frames.ack(self.expected, psn, False, ce)
            if psn < self.expected:
                return frames.ack(self.expected, psn, False, ce)
            return self._nak(ce)
        if not self.got[psn]:
            self.got[psn] = 1
            self.got_count += 1
            while self.expected < self.npkts and self.got[self.expected]:
                self.expected += 1
            if self.got_count >= self.npkts:
                self.complete = True
        return frames.ack(self.expected, psn, False, ce)

    def _nak(self, ce: bool) -> bytes | None:
        if self.nak_for == self.expected:
            return None
        self.nak_for = self.expected
        return self.frames.ack(self.expected, self.expected, True, ce)
