"""The event loop: events fire in (time, scheduling order); a lane's events fire exactly
when and in the order they would as ordinary events, also when one is due before the
lane's last."""

from __future__ import annotations

import random
from typing import Any

from fabricsim.events import EventLoop


def schedule(use_lanes: bool, seed: int) -> list[tuple[int, Any]]:
    """Three sources scheduling events, two of them mostly in order; each event may
    schedule more. The firing order as (time, event)."""
    rng = random.Random(seed)
    loop = EventLoop()
    fired: list[tuple[int, Any]] = []
    lanes = [loop.lane() for _ in range(2)] if use_lanes else [loop, loop]
    last = [0, 0]

    def fire(ev: tuple[int, int]) -> None:
        fired.append((loop.now(), ev))
        src, n = ev
        if n < 10:
            now = loop.now()
            for _ in range(rng.randrange(1, 3)):
                k = rng.randrange(3)
                if k < 2:
                    # mostly later than the source's last event, sometimes earlier, or tied
                    last[k] = max(now, last[k] + rng.choice((-30, 0, 5, 20, 50)))
                    lanes[k].at(last[k], fire, (k, n + 1))
                else:
                    loop.at(now + rng.randrange(0, 60), fire, (k, n + 1))

    for k in range(3):
        loop.at(0, fire, (k, 0))
    pending_seen = []
    until = 0
    while loop.pending():
        pending_seen.append(loop.pending())
        until += 37
        loop.run(until)
    fired.append((-1, tuple(pending_seen)))
    return fired


def test_lanes_fire_events_as_the_loop_would() -> None:
    for seed in range(20):
        plain, laned = schedule(False, seed), schedule(True, seed)
        assert laned == plain, f"seed {seed}"
    assert len(plain) > 100


def test_run_stops_at_until_and_keeps_the_rest() -> None:
    loop = EventLoop()
    lane = loop.lane()
    seen: list[int] = []
    for t in (10, 20, 30):
        lane.at(t, seen.append, t)
    loop.at(25, seen.append, 25)
    assert loop.pending() == 4
    assert loop.run(22) == 20
    assert seen == [10, 20] and loop.pending() == 2
    loop.run(100)
    assert seen == [10, 20, 25, 30] and loop.pending() == 0
