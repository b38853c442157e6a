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


def held_at(fab: Fabric, depth: int, n: int) -> list[int]:
    """The ECN field of `n` packets that each joined port 2's queue with exactly `depth`
    packets ahead of it: `depth` + 1 packets build the queue (the first goes to the
    server), then one packet arrives in the middle of each 1 ms service time, so as one
    leaves another joins."""
    data = Frame(ecn=2).bytes()
    fab.sw.tm.set_depth(depth + 8, port=2)
    for _ in range(depth + 1):
        fab.inject(1, data)
    out = fab.advance(500)
    for _ in range(n):
        fab.inject(1, data)
        out += fab.advance(1_000)
    out += fab.advance(1_000 * (depth + 2))
    assert len(out) == depth + 1 + n
    return [ecn_of(d) for _, d in out[depth + 1 :]]


def test_held_packets_meet_the_depth_they_are_held_at(program: CompiledProgram) -> None:
    """The step threshold brackets the depth `held_at` holds: above depth - 1, not above
    depth."""
    for threshold, marked in ((9, 3), (10, 2)):
        fab = fabric(program)
        fab.set_ecn_step(2, threshold)
        assert set(held_at(fab, 10, 30)) == {marked}


def red_probability(k_min: int, k_max: int, p_max: int, q: int) -> float:
    """P(mark) of ecn.p4's mark_ecn_red for a packet meeting `q` packets: r uniform in
    [0, 256 * (k_max - k_min) - 1] (random), marked when r < (q - k_min) * p_max, so
    exactly the ramp (q - k_min) / (k_max - k_min) * p_max / 256; every packet from
    k_max, none up to k_min."""
    if q >= k_max:
        return 1.0
    if q <= k_min:
        return 0.0
    return (q - k_min) * p_max / (256 * (k_max - k_min))


@pytest.mark.parametrize(
    ("k_min", "k_max", "p_max", "q"),
    [
        (10, 50, 128, 30),  # mid-ramp: P = 20/40 x 1/2 = 1/4
        (10, 50, 128, 11),  # one packet above k_min: 1/80 (a whole-number draw of r
        # over the 40 depths would give 1/40)
        (0, 40, 51, 35),  # P_max 51/256 (20%): 0.174
        (0, 100, 3, 99),  # P_max 3/256 (DCQCN's 1%): 1.16% (not 2%, a rounded ramp)
    ],
)
def test_red_marks_at_its_probability_at_a_fixed_depth(
    program: CompiledProgram, k_min: int, k_max: int, p_max: int, q: int
) -> None:
    """The fraction of packets marked at one queue depth is the ramp's probability,
    within a binomial bound; where rounding the ramp to whole values of r over the
    k_max - k_min depths would be several standard deviations away, the count rules it
    out."""
    n = 10_000
    fab = fabric(program, seed=11)
    fab.set_ecn_red(2, k_min, k_max, p_max)
    marks = held_at(fab, q, n).count(3)
    p = red_probability(k_min, k_max, p_max, q)
    # within 4 standard deviations of n * p (the seed makes it the same count every run;
    # the bound says the draws behave as the formula says)
    bound = 4 * (n * p * (1 - p)) ** 0.5
    assert abs(marks - n * p) <= bound, (marks, n * p, bound)
    rounded = min(1.0, -(-(q - k_min) * p_max // 256) / (k_max - k_min))
    if n * (rounded - p) > 2 * bound:
        assert n * rounded - marks > bound, (marks, n * rounded)
    assert fab.extern("ecn_marked_counter").packets[2] >= marks


def test_red_ramp_ends(program: CompiledProgram) -> None:
    """At k_min nothing is marked; at k_max everything is, whatever p_max."""
    for q, want in ((5, 2), (30, 3)):
        fab = fabric(program, seed=3)
        fab.set_ecn_red(2, 5, 30, 1)
        assert set(held_at(fab, q, 200)) == {want}
