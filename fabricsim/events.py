"""The event loop: one nanosecond clock, owned here, and a heap of timed callbacks.

Switches built on `clock` read it and never move it; only `EventLoop.run` does, to the
time of the event it is about to fire. Ties fire in scheduling order (a sequence number),
so a run is a pure function of its inputs and seed.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable
from heapq import heappush
from typing import Any

from softswitch.clock import ExternalClock

__all__ = ["EventLoop", "Lane"]


class EventLoop:
    """A heap of (time_ns, seq, callback, argument)."""

    __slots__ = ("_heap", "_lanes", "_seq", "clock", "events", "stopped")

    def __init__(self) -> None:
        self.clock = ExternalClock()
        # (time, seq, callback, argument); a lane's head has None for callback and the
        # lane's queue for argument
        self._heap: list[tuple[int, int, Callable[[Any], None] | None, Any]] = []
        self._seq = itertools.count(1).__next__
        self._lanes: list[Lane] = []
        self.events = 0
        self.stopped = False

    def now(self) -> int:
        return self.clock.now_ns()

    def at(self, t_ns: int, fn: Callable[[Any], None], arg: Any = None) -> None:
        """Call `fn(arg)` at `t_ns` (not before now)."""
        heappush(self._heap, (t_ns, self._seq(), fn, arg))

    def lane(self) -> Lane:
        """A lane for events that mostly come due in the order they are scheduled."""
        lane = Lane(self)
        self._lanes.append(lane)
        return lane

    def run(self, until_ns: int, tick: Callable[[int], None] | None = None) -> int:
        """Fire events in time order up to `until_ns` or until `stop()`; return the time
        reached. `tick(now)` is called every 65536 events (progress reporting)."""
        heap = self._heap
        pop = heapq.heappop
        push = heappush
        clock = self.clock
        now = clock.now_ns()
        n = self.events
        while heap and not self.stopped:
            event = pop(heap)
            t = event[0]
            if t > until_ns:
                push(heap, event)  # not due yet: back where it was
                break
            if t > now:
                # the loop owns the clock and only moves it forward (ExternalClock.set
                # without its check, once per event)
                now = clock.ns = t
            fn = event[2]
            if fn is None:
                # a lane's earliest event (Lane.at): fire it, its next one takes its place
                q = event[3]
                _t, _seq, fn, arg = q.popleft()
                if q:
                    head = q[0]
                    push(heap, (head[0], head[1], None, q))
                fn(arg)
            else:
                fn(event[3])
            n += 1
            if tick is not None and not n & 0xFFFF:
                tick(t)
        self.events = n
        return clock.now_ns()

    def stop(self) -> None:
        self.stopped = True

    def pending(self) -> int:
        """Events not fired yet (a lane's waiting behind its first count too)."""
        # a lane's first event is in the heap, the rest wait in the lane
        return len(self._heap) + sum(max(0, len(lane._queue) - 1) for lane in self._lanes)


class Lane:
    """Events of one source that come due in the order they are scheduled, such as the
    packets on one wire (each reaches the far end after the one sent before it): only the
    lane's earliest event is in the loop's heap, the others wait in the lane, so the heap
    holds one entry per wire instead of one per packet in flight. Events keep the time
    and sequence number `EventLoop.at` would give them, so they fire in the same order;
    an event due before the lane's last is scheduled on the loop directly."""

    __slots__ = ("_heap", "_queue", "_seq")

    def __init__(self, loop: EventLoop) -> None:
        self._heap = loop._heap
        self._seq = loop._seq
        self._queue: deque[tuple[int, int, Callable[[Any], None], Any]] = deque()

    def at(self, t_ns: int, fn: Callable[[Any], None], arg: Any = None) -> None:
        """Call `fn(arg)` at `t_ns`, as `EventLoop.at` does."""
        seq = self._seq()
        q = self._queue
        if not q:
            q.append((t_ns, seq, fn, arg))
            # the lane's head: in the heap with no callback, `EventLoop.run` fires the
            # lane's first event in its place
            heappush(self._heap, (t_ns, seq, None, q))
        elif t_ns >= q[-1][0]:
            q.append((t_ns, seq, fn, arg))
        else:
            heappush(self._heap, (t_ns, seq, fn, arg))
