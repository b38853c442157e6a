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


def test_pass_through_leaves_the_state_enqueue_then_dequeue_leaves() -> None:
    # twin traffic managers see the same packets: one lets a packet pass through when it
    # may, the other always queues it and, when the first let it pass, must hand it out
    # at once with queue depths 0; afterwards both must agree on everything
    rng = random.Random(11)
    a, b = (TrafficManager(2, default_depth=6, ticks_per_second=1e9) for _ in range(2))
    for tm in (a, b):
        for port in range(4):
            tm.set_rate(port=port, bps=(10e9, 40e9, 100e9, 100e9)[port])
    now, passed, queued = 0, 0, 0
    for step in range(4000):
        op = rng.random()
        port, prio = rng.randrange(4), rng.randrange(2)
        if op < 0.35:
            length, ingress = rng.randrange(64, 1500), rng.randrange(4)
            if a.pass_through(port, prio, length, now, ingress):
                passed += 1
                assert b.enqueue(port, prio, step, length, now, ingress) is not None
                got = b.dequeue(now)
                assert got is not None and got[2].item == step
                assert got[2].enq_qdepth == 0 and got[3] == 0
                assert b.dequeue(now) is None  # nothing else was due
            else:
                queued += 1
                assert (a.enqueue(port, prio, step, length, now, ingress) is None) == (
                    b.enqueue(port, prio, step, length, now, ingress) is None
                )
        elif op < 0.65:
            got_a, got_b = a.dequeue(now), b.dequeue(now)
            assert (got_a and got_a[2].item) == (got_b and got_b[2].item)
        elif op < 0.7:
            on = rng.random() < 0.5
            a.pause(port, prio, on, now)
            b.pause(port, prio, on, now)
        else:
            now += rng.randrange(0, 600)
        assert a.next_time() == b.next_time(), f"step {step}"
        for p in range(4):
            pa, pb = a.ports[p], b.ports[p]
            assert (pa.busy_until, pa.peak, pa.drops) == (pb.busy_until, pb.peak, pb.drops)
            assert [len(q) for q in pa.queues] == [len(q) for q in pb.queues]
        assert a.ingress_occupancy == b.ingress_occupancy
    assert passed > 100 and queued > 100


def test_occupy_holds_the_port_until_then() -> None:
    tm = TrafficManager(1, default_depth=8, ticks_per_second=1e9)
    tm.set_rate(port=1, bps=100e9)
    tm.set_rate(port=2, bps=100e9)
    tm.occupy(1, 5_000)  # background traffic holds port 1 for 5 us
    tm.occupy(1, 2_000)  # an earlier end does not shorten it
    tm.enqueue(1, 0, "a", 1000, 100)
    tm.enqueue(2, 0, "b", 1000, 100)
    assert tm.next_time() == 100  # port 2 is free
    got = tm.dequeue(100)
    assert got is not None and got[2].item == "b"
    assert tm.dequeue(4_999) is None and tm.next_time() == 5_000
    got = tm.dequeue(5_000)
    assert got is not None and got[2].item == "a"
