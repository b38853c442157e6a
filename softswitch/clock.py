"""Clocks in microseconds: the wall clock, or a simulated clock the caller advances."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now_us(self) -> int: ...


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
