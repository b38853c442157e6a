"""ECN marking on egress: DCTCP step and RED ramp, on queues built on a SimClock.

A burst injected at one instant into a port served at 1000 packets/s: the first packet
goes straight to the server, so packet i (i >= 1) finds i - 1 packets queued
(enq_qdepth), which is what the marking decision reads."""

from __future__ import annotations

import pytest

from softswitch.program_info import CompiledProgram

from .fabric import Fabric
from .packets import Frame, ecn_of, mark_ce, route

ROUTER = "00:00:00:00:aa:01"
NH = "00:00:00:00:02:02"


def fabric(program: CompiledProgram, seed: int = 1) -> Fabric:
    fab = Fabric(program, seed=seed, router_mac=ROUTER)
    fab.add_ecmp_route("10.0.2.0/24", 1, [2])
    fab.add_ecmp_route("2001:db8:2::/64", 2, [2])
    fab.sw.tm.set_rate(port=2, pps=1000)
    fab.sw.tm.set_depth(64, port=2)
    return fab


def burst(fab: Fabric, pkts: list[Frame]) -> list[bytes]:
    for p in pkts:
        fab.inject(1, p.bytes())
    out = fab.advance(1_000_000)
    assert [port for port, _ in out] == [2] * len(pkts)
    return [data for _, data in out]


def depth_seen(i: int) -> int:
    return max(i - 1, 0)


@pytest.mark.parametrize("src", ["10.0.1.1", "2001:db8:1::1"])
def test_step_marks_exactly_above_the_threshold(program: CompiledProgram, src: str) -> None:
    fab = fabric(program)
    fab.set_ecn_step(2, 5)
    dst = "10.0.2.1" if "." in src else "2001:db8:2::1"
    pkts = [Frame(src=src, dst=dst, ecn=2, sport=i) for i in range(12)]
    out = burst(fab, pkts)
    for i, (p, got) in enumerate(zip(pkts, out, strict=True)):
        exp = route(p, ROUTER, NH)
        if depth_seen(i) > 5:
            exp = mark_ce(exp)
        assert got == exp.bytes(), f"packet {i} (queue {depth_seen(i)})"
    assert fab.extern("ecn_marked_counter").packets[2] == 5  # queues 6..10


def test_not_ect_is_never_touched(program: CompiledProgram) -> None:
    fab = fabric(program)
    fab.set_ecn_step(2, 0)
    pkts = [Frame(ecn=0, sport=i) for i in range(10)]
    assert burst(fab, pkts) == [route(p, ROUTER, NH).bytes() for p in pkts]
    ce = [Frame(ecn=3, sport=i) for i in range(10)]
    assert burst(fab, ce) == [route(p, ROUTER, NH).bytes() for p in ce]
    assert fab.extern("ecn_marked_counter").packets[2] == 0


def test_ports_without_config_do_not_mark(program: CompiledProgram) -> None:
    fab = fabric(program)
    pkts = [Frame(ecn=1, sport=i) for i in range(20)]
    assert burst(fab, pkts) == [route(p, ROUTER, NH).bytes() for p in pkts]


def test_red_ramp(program: CompiledProgram) -> None:
    k_min, k_max, p_max = 10, 50, 128  # P(mark) rises from 0 at 10 to 1/2 at 50, then 1
    fab = fabric(program, seed=7)
    fab.set_ecn_red(2, k_min, k_max, p_max)
    marks: dict[int, int] = {}
    seen: dict[int, int] = {}
    for _ in range(5):
        pkts = [Frame(ecn=2, sport=i) for i in range(60)]
        for i, data in enumerate(burst(fab, pkts)):
            q = depth_seen(i)
            seen[q] = seen.get(q, 0) + 1
            marks[q] = marks.get(q, 0) + (ecn_of(data) == 3)
    assert all(marks[q] == 0 for q in seen if q <= k_min)
    assert all(marks[q] == seen[q] for q in seen if q >= k_max)
    ramp = [q for q in seen if k_min < q < k_max]
    expected = sum(seen[q] * (q - k_min) / (k_max - k_min) * p_max / 256 for q in ramp)
    got = sum(marks[q] for q in ramp)
    assert abs(got - expected) < 4 * expected**0.5, (got, expected)
    low = sum(marks[q] for q in ramp if q < 30)
    high = sum(marks[q] for q in ramp if q >= 30)
    assert high > 2 * low
