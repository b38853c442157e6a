"""The event loop: one nanosecond clock, owned here, and a heap of timed callbacks.

Switches built on `clock` read it and never move it; only `EventLoop.run` does, to the
time of the event it is about to fire. Ties fire in scheduling order (a sequence number),
so a run is a pure function of its inputs and seed.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from typing import Any

from softswitch.clock import ExternalClock

__all__ = ["EventLoop"]


class EventLoop:
    """A heap of (time_ns, seq, callback, argument)."""

    __slots__ = ("_heap", "_push", "_seq", "clock", "events", "stopped")

    def __init__(self) -> None:
        self.clock = ExternalClock()
        self._heap: list[tuple[int, int, Callable[[Any], None], Any]] = []
        self._seq = itertools.count(1).__next__
        self._push = heapq.heappush
        self.events = 0
        self.stopped = False

    def now(self) -> int:
        return self.clock.now_ns()

    def at(self, t_ns: int, fn: Callable[[Any], None], arg: Any = None) -> None:
        """Call `fn(arg)` at `t_ns` (not before now)."""
        self._push(self._heap, (t_ns, self._seq(), fn, arg))

    def run(self, until_ns: int, tick: Callable[[int], None] | None = None) -> int:
        """Fire events in time order up to `until_ns` or until `stop()`; return the time
        reached. `tick(now)` is called every 65536 events (progress reporting)."""
        heap = self._heap
        pop = heapq.heappop
        clock = self.clock
        set_clock = clock.set
        now = clock.now_ns()
        n = self.events
        while heap and not self.stopped:
            event = pop(heap)
            t, _seq, fn, arg = event
            if t > until_ns:
                heapq.heappush(heap, event)  # not due yet: back where it was
                break
            if t > now:
                now = t
                set_clock(t)
            fn(arg)
            n += 1
            if tick is not None and not n & 0xFFFF:
                tick(t)
        self.events = n
        return clock.now_ns()

    def stop(self) -> None:
        self.stopped = True

    def pending(self) -> int:
        return len(self._heap)
