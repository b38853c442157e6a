"""HPCC (Li et al., SIGCOMM 2019): a window computed from the INT records of every hop.

Each ACK echoes the INT-MD stack the data packet collected (fabric.p4 stamps, per hop,
the queue occupancy, the bytes the egress port has sent and the egress timestamp). For
each hop j the sender compares the record with the previous one it saw for that hop:

    txRate_j = (txBytes_j - txBytes_j') / (ts_j - ts_j')
    u_j      = min(qlen_j, qlen_j') / (B_j · T) + txRate_j / B_j

and takes the most utilised hop (u, and tau its time between records). U is an EWMA:
`U = (1 - tau/T)·U + tau/T·u`, tau at most T (the base RTT). The window is

    W = Wc / (U/eta) + W_AI      if U >= eta or incStage >= maxStage
    W = Wc + W_AI                otherwise

where Wc (the reference window) is updated to W, and incStage counted, once per RTT
(the first ACK for a packet sent after the last update, its send time from the ACK's
RTT sample: counting packets instead would stall behind retransmissions); other ACKs
compute W from the same Wc. The rate is W/T. Defaults as the paper: eta = 0.95,
maxStage = 5, W_init = B·T, W_AI = W_init·(1-eta)/N with N = `expected_flows`.

ACKs. They carry the records, 20 bytes per hop, and travel in the header class (the trim
DSCP: high priority, never cut), as HPCC's evaluation gives ACKs the highest priority;
in the data class an ACK of a three-hop path would be cut by a trimming switch (it is
past fabric.p4's small-packet bound) and its sender left to time out.

Coarse timestamps. fabric.p4's egress timestamps are v1model's microsecond clock (times
1000), and at 100 Gb/s a microsecond is eight full packets: consecutive records of a hop
mostly carry the same timestamp (dt = 0), and a rate over a 1 us difference can be off by
100%. So the records of one packet stay the reference of every hop until a newer
packet's are at least `min_interval_ns` later at each hop (0, the paper's rule: the
previous ACK's records, a hop skipped only if dt is 0); a rate is then measured over that
interval, off by at most 1 us / interval, and U folds in once per interval rather than
per ACK. fabricsim sets the interval to the base RTT: U (and so W's multiplicative
step) follows the hops about one RTT late, with the rate term within 1 us / T of the
truth. Such a measurement is itself the once-per-RTT point: Wc is updated at each one
whose records are at least T (hop time) after those of the last update. The paper's rule
(the ACK of a packet sent after the last update) would skip every other one as soon as
a queue makes the RTT longer than T (the packet measured next left about T after the
last measured one, which is less than an RTT), halving how fast W compounds its cuts
exactly while a queue is there to drain.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .base import IntHop, PathInfo, Unreactive

__all__ = ["Hpcc", "HpccParams"]


@dataclass(slots=True, frozen=True)
class HpccParams:
    eta: float = 0.95
    max_stage: int = 5
    expected_flows: int = 16  # N in W_AI = W_init·(1-eta)/N
    w_ai_bytes: float | None = None  # overrides the formula above
    min_interval_ns: float = 0.0  # records compared at least this far apart (every hop)


class Hpcc(Unreactive):
    name = "hpcc"
    reads_int = True  # fabricsim echoes INT to it (fabricsim.int_echo)
    # ACKs at high priority, as the paper's simulations send them: an ACK echoing three
    # hops (68 bytes after its BTH) is no longer small enough for fabric.p4's trim to
    # pass it uncut, and a trimmed ACK loses its AETH (a timeout at the sender)
    control_in_header_class = True

    def __init__(self, path: PathInfo, params: HpccParams | None = None) -> None:
        self.p = p = params or HpccParams()
        self.line = path.line_rate_bps
        self.pkt = path.packet_bytes
        self.T = path.base_rtt_ns
        self.w_init = self.line * self.T / 8e9  # bytes
        self.w_ai = (
            p.w_ai_bytes
            if p.w_ai_bytes is not None
            else self.w_init * (1 - p.eta) / p.expected_flows
        )
        self.W = self.w_init
        self.Wc = self.w_init
        self.U = 1.0
        self.inc_stage = 0
        self.min_dt = p.min_interval_ns
        self.last: list[IntHop] = []  # the reference records, one per hop
        self.sent = 0
        self.last_update_ns = -math.inf  # when Wc was last updated
        self.last_update_ts = -math.inf  # the first hop's timestamp at that update
        self.acks = 0

    def window(self) -> float:
        return max(1.0, self.W / self.pkt)

    def rate_bps(self, now: int) -> float:
        return min(self.line, self.W * 8e9 / self.T)

    def on_send(self, now: int, nbytes: int) -> None:
        self.sent += 1

    def on_ack(
        self, now: int, acked: int, ece: bool, rtt_ns: int | None, hops: Sequence[IntHop]
    ) -> None:
        self.acks += acked
        if not hops:
            return
        if len(self.last) == len(hops):
            u = self.measure(hops)
            if u is None:
                return  # no hop's record is far enough from its reference yet
            if self.min_dt > 0:
                # sampled: once per T of the hops' time (module docstring)
                update = hops[0].ts_ns - self.last_update_ts >= self.T
            else:
                # once per RTT: the ACK of a packet sent after the last update (its send
                # time from the RTT sample; without one, a base RTT ago)
                sent_at = now - (rtt_ns if rtt_ns is not None else self.T)
                update = sent_at > self.last_update_ns
            self.W = self.compute_window(u, update)
            if update:
                self.last_update_ns = now
                self.last_update_ts = hops[0].ts_ns
        else:
            self.last = list(hops)  # the first records (or the path changed)

    def measure(self, hops: Sequence[IntHop]) -> float | None:
        """MeasureInflight: fold the most utilised hop into U and return U.

        With `min_interval_ns` 0 (the paper) every ACK's records are compared with the
        previous ACK's, a hop skipped when its timestamp has not moved. Otherwise the
        records of one earlier packet are the reference of every hop, kept until each
        hop's newer record is at least that interval later (None until then): the most
        utilised hop is picked among all hops over the same interval, never among the
        few whose records happened to cross a microsecond first."""
        last = self.last
        if self.min_dt > 0:
            for new, old in zip(hops, last, strict=True):
                if new.ts_ns - old.ts_ns < self.min_dt:
                    return None
        u, tau = -1.0, 0
        for new, old in zip(hops, last, strict=True):
            dt = new.ts_ns - old.ts_ns
            if dt <= 0:
                continue
            tx_rate = (new.tx_bytes - old.tx_bytes) % (1 << 32) * 8e9 / dt
            qlen = min(new.qlen_pkts, old.qlen_pkts) * self.pkt
            uj = qlen * 8e9 / (new.rate_bps * self.T) + tx_rate / new.rate_bps
            if uj > u:
                u, tau = uj, dt
        self.last = list(hops)
        if tau == 0:
            return None  # no hop's timestamp moved
        tau = min(tau, self.T)
        self.U = (1 - tau / self.T) * self.U + tau / self.T * u
        return self.U

    def compute_window(self, U: float, update: bool) -> float:
        p = self.p
        if p.eta <= U or self.inc_stage >= p.max_stage:
            W = self.Wc / (U / p.eta) + self.w_ai
            if update:
                self.inc_stage = 0
                self.Wc = W
        else:
            W = self.Wc + self.w_ai
            if update:
                self.inc_stage += 1
                self.Wc = W
        return min(W, self.w_init)
