"""Load balancing: the four modes of next_hop_group, liveness and member counters."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from softswitch.program_info import CompiledProgram

from .fabric import Fabric
from .packets import Frame

PORTS = [2, 3, 4, 5]


def flows(n: int, **kw: object) -> list[Frame]:
    return [Frame(src=f"10.1.{i // 250}.{i % 250 + 1}", sport=1000 + i, **kw) for i in range(n)]  # type: ignore[arg-type]


def out_port(fab: Fabric, f: Frame) -> int:
    out = fab.send(1, f.bytes())
    assert len(out) == 1, out
    return out[0][0]


def make(program: CompiledProgram, mode: str, **kw: int) -> Fabric:
    fab = Fabric(program)
    fab.add_ecmp_route("10.0.2.0/24", 1, PORTS, mode=mode, **kw)
    return fab


def assert_even(counts: Counter[int], total: int, tolerance: float) -> None:
    assert set(counts) == set(PORTS)
    for p in PORTS:
        share = counts[p] / total
        assert abs(share - 1 / len(PORTS)) < tolerance, (p, counts)


# ------------------------------------------------------------------ ecmp
def test_ecmp_is_sticky_and_even(program: CompiledProgram) -> None:
    fab = make(program, "ecmp")
    fs = flows(1200)
    first = [out_port(fab, f) for f in fs]
    assert [out_port(fab, f) for f in fs] == first  # every flow stays on its member
    assert_even(Counter(first), len(fs), 0.05)
    # member counters see the same spread
    assert sum(fab.member_packets(1, i) for i in range(4)) == 2 * len(fs)
    assert fab.member_packets(1, 0) == 2 * Counter(first)[2]


def test_ecmp_hash_covers_the_roce_queue_pair(program: CompiledProgram) -> None:
    fab = make(program, "ecmp")
    ports = {out_port(fab, Frame(l4="roce", qp=qp)) for qp in range(64)}
    assert len(ports) == 4  # same 5-tuple, different QPs: spread


@pytest.mark.parametrize("rotation", [8, 16, 24])
def test_a_rotated_ecmp_hash_splits_what_the_tier_before_sent_one_way(
    program: CompiledProgram, rotation: int
) -> None:
    """The flows a switch with the unrotated hash sends to one of two members (as an edge
    switch sends them to one aggregation switch) all agree in the hash bits it used; a
    switch with those bits again (rotation 0) would send them all one way too. With the
    hash rotated (ecmp_hash_bits, written as the default entry) they split about evenly."""
    fab = Fabric(program)
    fab.add_ecmp_route("10.0.2.0/24", 1, [2, 3], mode="ecmp")
    fs = flows(800)
    one_way = [f for f in fs if out_port(fab, f) == 2]
    assert 300 < len(one_way) < 500
    assert {out_port(fab, f) for f in one_way} == {2}  # the same bits: polarised
    fab.modify(fab.enc.ecmp_hash_bits(rotation))
    split = Counter(out_port(fab, f) for f in one_way)
    assert abs(split[2] / len(one_way) - 0.5) < 0.1, split
    fab.modify(fab.enc.ecmp_hash_bits(0))  # back to the unrotated hash
    assert {out_port(fab, f) for f in one_way} == {2}


# ------------------------------------------------------------------ liveness
def test_down_members_are_skipped_and_others_stay(program: CompiledProgram) -> None:
    fab = make(program, "ecmp")
    fs = flows(400)
    before = [out_port(fab, f) for f in fs]
    fab.set_group(1, "ecmp", 4, live=0b1101)  # member 1 (port 3) is down
    after = [out_port(fab, f) for f in fs]
    for b, a in zip(before, after, strict=True):
        if b == 3:
            assert a == 4  # the next live member, cyclically
        else:
            assert a == b
    fab.set_group(1, "ecmp", 4, live=0b0111)  # member 3 (port 5) down: wraps to member 0
    moved = {a for b, a in zip(before, [out_port(fab, f) for f in fs], strict=True) if b == 5}
    assert moved == {2}


def test_no_live_member_drops(program: CompiledProgram) -> None:
    fab = make(program, "spray_random", live=0)
    assert fab.send(1, Frame().bytes()) == []
    assert fab.drops("NO_LIVE_MEMBER") == 1


@pytest.mark.parametrize("mode", ["spray_random", "spray_round_robin", "adaptive", "flowlet"])
def test_every_mode_skips_down_members(program: CompiledProgram, mode: str) -> None:
    fab = make(program, mode, live=0b1010, gap_us=50)
    seen = Counter()
    for f in flows(200):
        seen[out_port(fab, f)] += 1
        fab.clock.advance(100)
    assert set(seen) == {3, 5}


# ------------------------------------------------------------------ spray
def test_spray_random_spreads_one_flow(program: CompiledProgram) -> None:
    fab = make(program, "spray_random")
    n = 2000
    counts = Counter(out_port(fab, Frame()) for _ in range(n))
    assert_even(counts, n, 0.04)


def test_spray_round_robin_takes_turns(program: CompiledProgram) -> None:
    fab = make(program, "spray_round_robin")
    assert [out_port(fab, Frame()) for _ in range(10)] == [2, 3, 4, 5, 2, 3, 4, 5, 2, 3]


# ------------------------------------------------------------------ flowlet
def test_flowlet_repicks_only_after_a_gap(program: CompiledProgram) -> None:
    fab = make(program, "flowlet", gap_us=100)
    fs = flows(64)
    first = [out_port(fab, f) for f in fs]
    for _ in range(5):  # packets 100 us apart: a gap of exactly the timeout is no gap
        fab.clock.advance(100)
        assert [out_port(fab, f) for f in fs] == first
    fab.clock.advance(101)
    second = [out_port(fab, f) for f in fs]
    changed = sum(a != b for a, b in zip(first, second, strict=True))
    assert changed > len(fs) // 2  # a new flowlet is hashed afresh: ~3/4 move
    fab.clock.advance(10)
    assert [out_port(fab, f) for f in fs] == second  # and sticks again


def test_flowlet_mode_switch_at_run_time(program: CompiledProgram) -> None:
    fab = make(program, "ecmp")
    f = Frame()
    assert len({out_port(fab, f) for _ in range(20)}) == 1
    fab.set_group(1, "spray_round_robin", 4)
    assert len({out_port(fab, f) for _ in range(20)}) == 4


# ------------------------------------------------------------------ adaptive
def test_adaptive_avoids_the_long_queue(program: CompiledProgram) -> None:
    fab = Fabric(program)
    fab.add_ecmp_route("10.0.2.0/24", 1, [2, 3], mode="adaptive")
    fab.add_ecmp_route("10.0.9.0/24", 2, [2])  # background traffic to port 2
    fab.sw.tm.set_rate(port=2, pps=1000)
    fab.sw.tm.set_depth(128, port=2)
    for f in flows(20):  # idle fabric: members are learned, traffic spread
        fab.inject(1, f.bytes())
    assert fab.member_packets(1, 0) > 0 and fab.member_packets(1, 1) > 0
    for i in range(40):
        fab.inject(1, replace(Frame(dst="10.0.9.1"), sport=i).bytes())
    fab.advance(1000)  # port 2 sends one packet, egress records its backlog
    assert fab.extern("port_queue_depth").values[2] > 30
    on_slow = fab.member_packets(1, 0)
    for f in flows(200, dport=81):
        fab.inject(1, f.bytes())
    assert fab.member_packets(1, 0) == on_slow  # nothing more joined the long queue
    assert fab.member_packets(1, 1) >= 200


def test_spray_ignores_the_long_queue(program: CompiledProgram) -> None:
    """The same setup in spray mode: half the packets join the long queue."""
    fab = Fabric(program)
    fab.add_ecmp_route("10.0.2.0/24", 1, [2, 3], mode="spray_random")
    fab.add_ecmp_route("10.0.9.0/24", 2, [2])
    fab.sw.tm.set_rate(port=2, pps=1000)
    fab.sw.tm.set_depth(512, port=2)
    for i in range(40):
        fab.inject(1, replace(Frame(dst="10.0.9.1"), sport=i).bytes())
    fab.advance(1000)
    for f in flows(200, dport=81):
        fab.inject(1, f.bytes())
    assert 70 < fab.member_packets(1, 0) < 130
