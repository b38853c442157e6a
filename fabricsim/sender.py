"""One flow's sending side: PSNs, what is in flight, what to send again; the congestion
control (a `transports` object) says how much may be in flight and how fast.

Reliability follows the receiver: with a go-back-N receiver a NACK (or a timeout) sends
everything again from the cumulative PSN; with a tolerant or selective-repeat receiver
each ACK names the PSN it acknowledges (a selective ACK), a NACK names the one to send
again, and a timeout resends only what was never acknowledged. A receiver-driven
transport sends its first window unasked and then one packet per pull.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from .frames import FlowFrames
from .transports import CongestionControl, IntHop

__all__ = ["NicParams", "Sender"]


@dataclass(slots=True, frozen=True)
class NicParams:
    """What every host NIC has: its line rate and its retransmission timeout (a last
    resort: every transport here recovers from NACKs first)."""

    line_rate_bps: float = 100e9
    rto_ns: int = 200_000


class Sender:
    __slots__ = (
        "acked",
        "acked_count",
        "cc",
        "cnps",
        "credits",
        "done",
        "ece_count",
        "fid",
        "frames",
        "gbn",
        "last_progress",
        "nacks",
        "next_psn",
        "next_send",
        "npkts",
        "outstanding",
        "pkt_bits",
        "pull_driven",
        "pull_seen",
        "queued",
        "retransmits",
        "rto_ns",
        "rtt_samples",
        "rtx",
        "sent",
        "sent_at",
        "timeouts",
        "una",
    )

    def __init__(
        self,
        fid: int,
        npkts: int,
        frames: FlowFrames,
        cc: CongestionControl,
        *,
        go_back_n: bool,
        pkt_bytes: int,
        rto_ns: int,
        init_credits: float = 0,
    ) -> None:
        self.fid = fid
        self.npkts = npkts
        self.frames = frames
        self.cc = cc
        self.gbn = go_back_n
        self.rto_ns = rto_ns
        self.pull_driven = cc.pull_driven
        self.credits = init_credits  # pull-driven: packets we may still send
        self.pull_seen = 0
        self.next_psn = 0
        self.una = 0
        self.acked = bytearray(npkts)
        self.acked_count = 0
        self.queued = bytearray(npkts)  # selective: waiting in rtx
        self.sent_at = [0] * npkts
        self.outstanding = 0
        self.rtx: deque[int] = deque()
        self.next_send = 0
        self.pkt_bits = pkt_bytes * 8
        self.last_progress = 0
        self.sent = 0
        self.retransmits = 0
        self.cnps = 0
        self.nacks = 0
        self.timeouts = 0
        self.ece_count = 0
        self.rtt_samples = 0
        self.done = False

    # ------------------------------------------------------------ sending
    def inflight(self) -> int:
        return self.next_psn - self.una if self.gbn else self.outstanding

    def has_data(self) -> bool:
        return not self.done and (bool(self.rtx) or self.next_psn < self.npkts)

    def window_open(self) -> bool:
        if self.pull_driven:
            return self.credits >= 1
        return self.inflight() < self.cc.window()

    def take(self, now: int) -> bytes:
        """The next packet to send now (a retransmission first)."""
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
        if self.pull_driven:
            self.credits -= 1
        self.sent_at[psn] = now
        frame = self.frames.data(psn, psn == self.npkts - 1)
        cc = self.cc
        cc.on_send(now, len(frame))
        gap = self.pkt_bits * 1e9 / cc.rate_bps(now)
        self.next_send = max(self.next_send, now) + int(gap)
        return frame

    # ------------------------------------------------------------ feedback
    def on_ack(
        self, cum: int, psn: int, nak: bool, ece: bool, now: int, hops: Sequence[IntHop] = ()
    ) -> int:
        """Apply an ACK/NACK; return the number of packets it newly acknowledged."""
        new = 0
        if nak:
            self.nacks += 1
            self.cc.on_nack(now)
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
                if psn < self.npkts and not acked[psn] and not self.queued[psn]:
                    self.queued[psn] = 1
                    self.rtx.append(psn)
                    self.outstanding = max(0, self.outstanding - 1)
            else:
                if psn < self.npkts and not acked[psn]:
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
            rtt = None
            if not nak and psn < self.npkts:
                rtt = now - self.sent_at[psn]
                self.rtt_samples += 1
            self.cc.on_ack(now, new, ece, rtt, hops)
        return new

    def on_pull(self, cum: int, pull_no: int, now: int) -> None:
        """A PULL: `pull_no - pull_seen` more packets granted (pulls are cumulative)."""
        if pull_no > self.pull_seen:
            self.credits += pull_no - self.pull_seen
            self.pull_seen = pull_no
        if cum > self.una and not self.gbn:
            self.on_ack(cum, cum - 1, False, False, now)

    def on_cnp(self, now: int) -> None:
        self.cnps += 1
        self.cc.on_cnp(now)

    def on_timeout(self, now: int) -> bool:
        """No progress for rto_ns: send again what was never acknowledged. True if fired."""
        if self.done or now - self.last_progress < self.rto_ns:
            return False
        if self.inflight() == 0 and not (self.pull_driven and self.credits < 1 and self.has_data()):
            return False
        self.last_progress = now
        self.timeouts += 1
        if self.gbn:
            self.next_psn = self.una
        else:
            for psn in range(self.una, self.next_psn):
                if not self.acked[psn] and not self.queued[psn]:
                    self.queued[psn] = 1
                    self.rtx.append(psn)
        self.outstanding = 0
        if self.pull_driven:
            self.credits = max(self.credits, 1)
        self.cc.on_timeout(now)
        return True
