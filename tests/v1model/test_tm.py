"""The traffic manager's next departure: kept up to date as packets come and go and
queues pause, it must always be the earliest head over all ports (ties to the lowest
port), and `dequeue` must take the packet of that port."""

from __future__ import annotations

import random

from softswitch.v1model.tm import TrafficManager


def earliest(tm: TrafficManager) -> tuple[float, int] | None:
    """The next departure found the slow way: every port's head, the earliest first."""
    heads = [(t, p) for p, pq in tm.ports.items() if (t := pq.head_time()) is not None]
    return min(heads) if heads else None


def test_next_departure_follows_every_change() -> None:
    rng = random.Random(7)
    for priorities in (1, 2, 3):
        tm = TrafficManager(priorities, default_depth=8, ticks_per_second=1e9)
        for port in range(5):
            tm.set_rate(port=port, bps=rng.choice((10e9, 25e9, 100e9)))
        now = 0
        served = 0
        for step in range(3000):
            op = rng.random()
            port, prio = rng.randrange(5), rng.randrange(priorities)
            if op < 0.45:
                tm.enqueue(port, prio, step, rng.randrange(64, 1500), now, port)
            elif op < 0.85:
                want = earliest(tm)
                got = tm.dequeue(now)
                if want is None or want[0] > now:
                    assert got is None
                else:
                    assert got is not None and got[0] == want[1]
                    served += 1
            elif op < 0.93:
                tm.pause(port, prio, rng.random() < 0.5, now)
            else:
                now += rng.randrange(0, 400)
            want = earliest(tm)
            assert tm.next_time() == (want[0] if want else None), f"step {step}"
        assert served > 200  # the sequence exercised the queues, not only pauses


def test_a_later_head_on_the_earliest_port_hands_over_to_another() -> None:
    tm = TrafficManager(1, ticks_per_second=1e9)
    tm.set_rate(port=1, bps=8e9)  # 1 ns per byte
    tm.set_rate(port=2, bps=8e9)
    tm.enqueue(2, 0, "b0", 100, 10)
    tm.enqueue(1, 0, "a0", 100, 0)  # earlier than port 2's head: becomes the next
    tm.enqueue(1, 0, "a1", 100, 0)
    assert tm.next_time() == 0
    assert tm.dequeue(0)[2].item == "a0"  # port 1 busy until 100 now
    assert tm.next_time() == 10  # port 2's packet is next
    assert tm.dequeue(50)[2].item == "b0"  # port 2 busy until 110
    assert tm.next_time() == 100
    tm.enqueue(2, 0, "b1", 100, 60)
    assert tm.next_time() == 100  # port 1 (100) before port 2 (110)
    assert tm.dequeue(100)[2].item == "a1"
    assert tm.next_time() == 110
    tm.pause(2, 0, True)
    assert tm.next_time() is None
