"""The traffic manager's next departure: kept up to date as packets come and go and
queues pause, it must always be the earliest head over all ports (ties to the lowest
port), and `dequeue` must take the packet of that port."""

from __future__ import annotations

import random

import pytest

from softswitch.v1model.tm import TrafficManager


def earliest(tm: TrafficManager) -> tuple[float, int] | None:
    """The next departure found the slow way: every port's head, the earliest first."""
    heads = [(t, p) for p, pq in tm.ports.items() if (t := pq.head_time()) is not None]
    return min(heads) if heads else None


@pytest.mark.parametrize("queueing", ["shared", "bmv2"])
def test_next_departure_follows_every_change(queueing: str) -> None:
    rng = random.Random(7)
    for priorities in (1, 2, 3):
        tm = TrafficManager(priorities, default_depth=8, ticks_per_second=1e9)
        tm.set_queueing(queueing)
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


@pytest.mark.parametrize("queueing", ["shared", "bmv2"])
def test_pass_through_leaves_the_state_enqueue_then_dequeue_leaves(queueing: str) -> None:
    # twin traffic managers see the same packets: one lets a packet pass through when it
    # may, the other always queues it and, when the first let it pass, must hand it out
    # at once with queue depths 0; afterwards both must agree on everything
    rng = random.Random(11)
    a, b = (TrafficManager(2, default_depth=6, ticks_per_second=1e9) for _ in range(2))
    for tm in (a, b):
        tm.set_queueing(queueing)
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
            assert (pa.last_depart, pa.last_length) == (pb.last_depart, pb.last_length)
            assert [len(q) for q in pa.queues] == [len(q) for q in pb.queues]
        assert a.ingress_occupancy == b.ingress_occupancy
    assert passed > 100 and queued > 100


def drain(tm: TrafficManager) -> list[tuple[float, int, object]]:
    """(departure time, priority, item) of everything queued, taken as the port frees."""
    out = []
    while (t := tm.next_time()) is not None:
        port, prio, entry, _ = tm.dequeue(t)
        out.append((t, prio, entry.item))
    return out


def test_each_priority_has_its_own_rate_and_the_highest_goes_first() -> None:
    tps = 1e6
    fast, slow = 1000.0, 100.0  # packets/s of priority 1 and of priority 0
    tm = TrafficManager(2, ticks_per_second=tps)
    tm.set_rate(port=1, pps=slow, priority=0)
    tm.set_rate(port=1, pps=fast, priority=1)
    assert (tm.port(1).configs[0].rate_pps, tm.port(1).configs[1].rate_pps) == (slow, fast)
    for i in range(3):
        tm.enqueue(1, 0, f"lo{i}", 100, 0)
        tm.enqueue(1, 1, f"hi{i}", 100, 0)
    got = drain(tm)
    assert [item for _, _, item in got] == ["hi0", "hi1", "hi2", "lo0", "lo1", "lo2"]
    # each departure follows the previous one by the service time of the previous packet
    for (t0, p0, _), (t1, _, _) in zip(got, got[1:], strict=False):
        assert t1 - t0 == pytest.approx(tps / (fast if p0 == 1 else slow))


def test_a_rate_change_applies_to_the_packets_already_queued() -> None:
    tps = 1e6
    tm = TrafficManager(2, ticks_per_second=tps)
    tm.set_rate(port=1, pps=100.0, priority=0)
    for i in range(4):
        tm.enqueue(1, 0, i, 100, 0)
    assert tm.dequeue(0)[2].item == 0  # in service for 1/100 s
    tm.set_rate(port=1, pps=1000.0, priority=0)
    got = drain(tm)
    # the packet in service keeps its time; the three waiting leave at the new rate
    assert [t for t, _, _ in got] == pytest.approx([tps / 100 + k * tps / 1000 for k in range(3)])
    # the other priority was left alone
    assert tm.port(1).configs[1].rate_pps is None


def test_each_priority_has_its_own_depth() -> None:
    tm = TrafficManager(2, default_depth=5)
    tm.set_rate(port=1, pps=10.0)
    tm.set_depth(2, port=1, priority=0)
    took = [tm.enqueue(1, 0, i, 64, 0) is not None for i in range(4)]
    assert took == [True, True, False, False]
    assert sum(tm.enqueue(1, 1, i, 64, 0) is not None for i in range(7)) == 5
    # a smaller depth keeps what is queued and drops what comes until there is room
    tm.set_depth(3, port=1, priority=1)
    assert tm.occupancy(1, 1) == 5 and tm.enqueue(1, 1, "x", 64, 0) is None
    assert tm.port(1).drops == 2 + 2 + 1


def test_all_ports_settings_per_priority_reach_ports_made_later() -> None:
    tm = TrafficManager(3)
    tm.set_rate(port=1, pps=50.0)  # port 1 exists, its own rate
    tm.set_rate(pps=1000.0, priority=2)
    tm.set_depth(7, priority=1)
    later = tm.port(9)
    assert [c.rate_pps for c in later.configs] == [None, None, 1000.0]
    assert [c.depth for c in later.configs] == [64, 7, 64]
    assert [c.rate_pps for c in tm.port(1).configs] == [50.0, 50.0, 1000.0]
    assert 9 in tm.shaped and 4 in tm.shaped  # every port goes through its queues now
    with pytest.raises(ValueError, match=r"priority 3 out of range \(0\.\.2\)"):
        tm.set_rate(pps=1.0, priority=3)


def test_bmv2_queueing_each_priority_is_a_rate_limiter_of_its_own() -> None:
    tps, rate = 1e6, 10.0
    gap = tps / rate
    tm = TrafficManager(2, ticks_per_second=tps)
    tm.set_queueing("bmv2")
    tm.set_rate(port=1, pps=rate)  # both priorities
    for i in range(3):
        tm.enqueue(1, 0, f"lo{i}", 100, 0)
        tm.enqueue(1, 1, f"hi{i}", 100, 0)
    got = drain(tm)
    # both queues send at the full rate: twice the rate between them, the higher
    # priority first whenever both are due
    assert [(t, item) for t, _, item in got] == [
        (k * gap, f"{name}{k}") for k in range(3) for name in ("hi", "lo")
    ]


def test_bmv2_queueing_a_rate_change_reaches_only_later_packets() -> None:
    tps = 1e6
    slow, fast = 100.0, 1000.0
    tm = TrafficManager(1, ticks_per_second=tps)
    tm.set_queueing("bmv2")
    tm.set_rate(port=1, pps=slow)
    for i in range(3):
        tm.enqueue(1, 0, f"old{i}", 100, 0)
    tm.set_rate(port=1, pps=fast)
    for i in range(2):
        tm.enqueue(1, 0, f"new{i}", 100, 0)
    got = drain(tm)
    old_times = [k * tps / slow for k in range(3)]
    new_times = [old_times[-1] + (k + 1) * tps / fast for k in range(2)]
    assert [t for t, _, _ in got] == pytest.approx(old_times + new_times)
    assert [item for _, _, item in got] == ["old0", "old1", "old2", "new0", "new1"]


def test_queueing_is_chosen_before_packets() -> None:
    tm = TrafficManager(1)
    tm.set_rate(port=1, pps=1.0)
    tm.enqueue(1, 0, "x", 64, 0)
    with pytest.raises(ValueError, match="before packets are queued"):
        tm.set_queueing("bmv2")
    with pytest.raises(ValueError, match="shared or bmv2"):
        TrafficManager(1).set_queueing("fair")


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
