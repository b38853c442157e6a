"""DCQCN (Zhu et al., SIGCOMM 2015): the reaction point's rate control.

The flow starts at line rate. A CNP (from the notification point: the receiver NIC on a
CE-marked packet, at most one per flow every `np_interval_ns`, or a fabric.p4 switch)
sets the target rate to the current one, cuts the current rate to `rate·(1 - alpha/2)`
and raises alpha: `alpha = (1-g)·alpha + g`. Without CNPs alpha decays every
`alpha_timer_ns` (`alpha = (1-g)·alpha`). Rate increase runs on two counters, the timer
(every `rate_timer_ns`) and the byte counter (every `byte_counter` bytes sent); on each
of their events: while both counters are below `fast_recovery_steps` (F) the current rate
moves halfway to the target (fast recovery); when one has passed F the target rises by
`ai_bps` (additive increase), when both have, by i·`hai_bps` (hyper increase, i the
smaller count past F), and the current rate moves halfway to it. There is no window:
packets are paced at the current rate.

Defaults: NVIDIA ConnectX's published DCQCN defaults (alpha gain 5/1024 every 1 us,
rate timer 300 us, byte counter 32767 bytes, F = 1, increase steps 5 and 50 Mb/s, a cut
at most halving the rate, CNPs at most every 4 us per flow at the notification point, at
most one cut every 4 us at the reaction point: ConnectX's `rate_reduce_monitor_period`;
CNPs inside that period are folded into one cut at its end, so a flow that hears CNPs
from both the switch and the receiver is not cut twice as often).
`DcqcnParams.paper()` gives the paper's (g = 1/256 every 55 us, timer 55 us, byte
counter 10 MB, F = 5, 40 Mb/s additive steps). Every value is a field of `DcqcnParams`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .base import PathInfo, Unreactive

__all__ = ["Dcqcn", "DcqcnParams"]


@dataclass(slots=True, frozen=True)
class DcqcnParams:
    g: float = 5 / 1024
    alpha_timer_ns: int = 1_000
    rate_timer_ns: int = 300_000
    byte_counter: int = 32_767
    fast_recovery_steps: int = 1  # F
    ai_bps: float = 5e6
    hai_bps: float = 50e6
    min_rate_bps: float = 1e6
    min_decrease: float = 0.5  # a cut leaves at least this fraction of the rate
    np_interval_ns: int = 4_000  # the notification point's CNP pacing per flow
    reduce_interval_ns: int = 4_000  # the reaction point's minimum time between two cuts

    @classmethod
    def paper(cls) -> DcqcnParams:
        """The values of Zhu et al. 2015 (its 40 Gb/s testbed)."""
        return cls(
            g=1 / 256,
            alpha_timer_ns=55_000,
            rate_timer_ns=55_000,
            byte_counter=10 * 1024 * 1024,
            fast_recovery_steps=5,
            ai_bps=40e6,
            hai_bps=400e6,  # the paper gives no figure for the hyper step: 10x AI
            min_decrease=0.0,
            np_interval_ns=50_000,
            reduce_interval_ns=0,  # the paper cuts on every CNP (its CNPs are 50 us apart)
        )


class Dcqcn(Unreactive):
    name = "dcqcn"

    def __init__(self, path: PathInfo, params: DcqcnParams | None = None) -> None:
        self.p = params or DcqcnParams()
        self.line = path.line_rate_bps
        self.notification_interval_ns: int | None = self.p.np_interval_ns or None
        self.rate = self.line  # current rate R_C
        self.target = self.line  # R_T
        self.alpha = 1.0
        self.t_count = 0  # timer events since the last cut
        self.b_count = 0  # byte-counter events since the last cut
        self.bytes = 0  # sent since the last byte-counter event
        self.timer_at: int | None = None  # next rate-increase timer event (None: at line rate)
        self.alpha_at: int | None = None  # next alpha decay
        self.cut_at: int | None = None  # last cut (None: none yet)
        self.cut_pending = False  # a CNP heard inside the reduce interval
        self.cnps = 0

    # ------------------------------------------------------------ the protocol
    def window(self) -> float:
        return math.inf

    def rate_bps(self, now: int) -> float:
        self._advance(now)
        return self.rate

    def on_send(self, now: int, nbytes: int) -> None:
        self._advance(now)
        if self.timer_at is None:
            return  # at line rate, nothing to recover
        self.bytes += nbytes
        if self.bytes >= self.p.byte_counter:
            self.bytes -= self.p.byte_counter
            self.b_count += 1
            self._increase()

    def on_cnp(self, now: int) -> None:
        self._advance(now)
        self.cnps += 1
        last = self.cut_at
        if last is not None and now - last < self.p.reduce_interval_ns:
            self.cut_pending = True  # one cut at the end of the interval (`_advance`)
            return
        self._cut(now)

    def _cut(self, now: int) -> None:
        p = self.p
        self.cut_at = now
        self.cut_pending = False
        self.target = self.rate
        cut = max(p.min_decrease, 1 - self.alpha / 2)
        self.rate = max(p.min_rate_bps, self.rate * cut)
        self.alpha = (1 - p.g) * self.alpha + p.g
        self.t_count = self.b_count = self.bytes = 0
        self.timer_at = now + p.rate_timer_ns
        self.alpha_at = now + p.alpha_timer_ns

    # ------------------------------------------------------------ timers
    def _advance(self, now: int) -> None:
        """Fire the timer and alpha events due by `now`, in time order; a cut held back by
        the reduce interval is made when the interval ends."""
        p = self.p
        if self.cut_pending and self.cut_at is not None:
            at = self.cut_at + p.reduce_interval_ns
            if at <= now:
                self.cut_pending = False
                self._advance(at)  # the events before the cut, then the cut at its time
                self._cut(at)
        ta = self.alpha_at
        if ta is not None and ta <= now:  # alpha decays in closed form: k periods at once
            k = (now - ta) // p.alpha_timer_ns + 1
            self.alpha *= (1 - p.g) ** k
            self.alpha_at = ta + k * p.alpha_timer_ns
        while self.timer_at is not None and self.timer_at <= now:
            self.t_count += 1
            self.timer_at += p.rate_timer_ns
            self._increase()

    def _increase(self) -> None:
        p = self.p
        f = p.fast_recovery_steps
        lo, hi = min(self.t_count, self.b_count), max(self.t_count, self.b_count)
        if hi < f:
            pass  # fast recovery: the target stays
        elif lo < f:
            self.target = min(self.line, self.target + p.ai_bps)
        else:
            self.target = min(self.line, self.target + (lo - f + 1) * p.hai_bps)
        self.rate = min(self.line, (self.rate + self.target) / 2)
        if self.rate >= self.line * (1 - 1e-9):
            self.rate = self.target = self.line
            self.timer_at = None  # recovered: the timers stop until the next CNP
