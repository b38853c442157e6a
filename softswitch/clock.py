"""Clocks: the wall clock, a simulated microsecond clock the switch's caller advances, or
an external nanosecond clock that a simulator owns and the switch only reads.

Programs always see microseconds (BMv2's timestamp unit). The traffic manager runs in the
clock's own unit: microseconds for `WallClock`/`SimClock`, nanoseconds for an
`ExternalClock` (a 1500-byte frame at 100 Gb/s takes 120 ns to serialise, which a
microsecond clock would truncate to 0).
"""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable


class Clock(Protocol):
    def now_us(self) -> int: ...


@runtime_checkable
class NsClock(Protocol):
    """A clock with nanosecond resolution that the switch reads but never advances."""

    def now_us(self) -> int: ...

    def now_ns(self) -> int: ...


class WallClock:
    """Monotonic time since the clock was created, in microseconds."""

    def __init__(self) -> None:
        self._t0 = time.monotonic_ns()

    def now_us(self) -> int:
        return (time.monotonic_ns() - self._t0) // 1000


class SimClock:
    """A clock that only moves when told to; makes runs reproducible."""

    def __init__(self, start_us: int = 0) -> None:
        self._now = start_us

    def now_us(self) -> int:
        return self._now

    def advance(self, us: int) -> None:
        if us < 0:
            raise ValueError("time cannot go backwards")
        self._now += us

    def set(self, us: int) -> None:
        if us < self._now:
            raise ValueError("time cannot go backwards")
        self._now = us


class ExternalClock:
    """A nanosecond clock owned by a simulator: only the owner calls `set`; switches built
    on it read `now_ns()`/`now_us()` and never move it. `ns` is the time itself: code of
    the owner's that reads the clock for every event may read it without a call, and the
    owner's event loop may write it (forward only, as `set` would)."""

    __slots__ = ("ns",)

    def __init__(self, start_ns: int = 0) -> None:
        self.ns = start_ns

    def now_ns(self) -> int:
        return self.ns

    def now_us(self) -> int:
        return self.ns // 1000

    def set(self, ns: int) -> None:
        if ns < self.ns:
            raise ValueError("time cannot go backwards")
        self.ns = ns


__all__ = ["Clock", "ExternalClock", "NsClock", "SimClock", "WallClock"]
