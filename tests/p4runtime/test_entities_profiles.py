"""Action profile members and groups, weights, one-shot selector programming."""

from __future__ import annotations

from collections import Counter

import pytest

from p4rt_proto import p4runtime_pb2

from ._entities_util import DELETE, INSERT, MODIFY, Code, World, make_world, packet, raises

P = p4runtime_pb2


@pytest.fixture
def w() -> World:
    return make_world()


def member(w: World, profile: str, mid: int, port: int) -> P.ActionProfileMember:
    return P.ActionProfileMember(
        action_profile_id=w.id("action_profiles", profile),
        member_id=mid,
        action=w.action("fwd", port=port),
    )


def group(w: World, gid: int, members: dict[int, int], max_size: int = 0) -> P.ActionProfileGroup:
    g = P.ActionProfileGroup(
        action_profile_id=w.id("action_profiles", "sel"), group_id=gid, max_size=max_size
    )
    for mid, weight in members.items():
        g.members.add(member_id=mid, weight=weight)
    return g


def ports_over_flows(w: World, n: int = 400) -> Counter[int | None]:
    return Counter(w.port_of(packet(5, a=1, c=i * 7919)) for i in range(n))


def sel_entry(w: World, a: int = 1, *, group_id: int = 0, member_id: int = 0) -> P.TableEntry:
    e = w.entry("t_sel", {"hdr.h.a": a})
    if group_id:
        e.action.action_profile_group_id = group_id
    else:
        e.action.action_profile_member_id = member_id
    return e


# ---------------------------------------------------------------- members


def test_member_entry_forwards_and_reads_back(w: World) -> None:
    m = member(w, "prof", 1, 7)
    w.write(INSERT, m)
    e = w.entry("t_prof", {"hdr.h.a": 3})
    e.action.action_profile_member_id = 1
    w.write(INSERT, e)
    assert w.port_of(packet(6, a=3)) == 7
    assert w.read(P.ActionProfileMember()) == [m]
    assert w.read(e) == [e]
    m.action.CopyFrom(w.action("fwd", port=9))
    w.write(MODIFY, m)
    assert w.port_of(packet(6, a=3)) == 9


def test_member_errors(w: World) -> None:
    m = member(w, "prof", 1, 7)
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, member(w, "prof", 0, 7))
    no_action = P.ActionProfileMember(action_profile_id=m.action_profile_id, member_id=1)
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, no_action)
    wrong = P.ActionProfileMember(
        action_profile_id=m.action_profile_id, member_id=1, action=w.action("drop")
    )
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, wrong)  # not an action of t_prof
    raises(Code.NOT_FOUND, w.write, MODIFY, m)
    raises(Code.NOT_FOUND, w.write, DELETE, m)
    w.write(INSERT, m)
    raises(Code.ALREADY_EXISTS, w.write, INSERT, m)
    for mid in (2, 3, 4):
        w.write(INSERT, member(w, "prof", mid, 1))
    raises(Code.RESOURCE_EXHAUSTED, w.write, INSERT, member(w, "prof", 5, 1))  # size 4
    e = w.entry("t_prof", {"hdr.h.a": 3})
    e.action.action_profile_member_id = 1
    w.write(INSERT, e)
    raises(Code.FAILED_PRECONDITION, w.write, DELETE, m)  # used by an entry
    missing = w.entry("t_prof", {"hdr.h.a": 4})
    missing.action.action_profile_member_id = 99
    raises(Code.NOT_FOUND, w.write, INSERT, missing)
    group_on_profile = w.entry("t_prof", {"hdr.h.a": 4})
    group_on_profile.action.action_profile_group_id = 1
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, group_on_profile)
    direct = w.entry("t_prof", {"hdr.h.a": 4}, w.action("fwd", port=1))
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, direct)
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, P.ActionProfileMember(member_id=1))


# ---------------------------------------------------------------- groups


def test_group_selects_among_members_by_hash(w: World) -> None:
    for mid, port in ((1, 1), (2, 2)):
        w.write(INSERT, member(w, "sel", mid, port))
    g = group(w, 10, {1: 1, 2: 1})
    w.write(INSERT, g)
    w.write(INSERT, sel_entry(w, group_id=10))
    seen = ports_over_flows(w)
    assert set(seen) == {1, 2}
    assert all(w.port_of(packet(5, a=1, c=42)) == w.port_of(packet(5, a=1, c=42)) for _ in range(3))
    assert w.read(P.ActionProfileGroup()) == [g]


def test_weights_skew_selection(w: World) -> None:
    for mid, port in ((1, 1), (2, 2)):
        w.write(INSERT, member(w, "sel", mid, port))
    w.write(INSERT, group(w, 10, {1: 3, 2: 1}))
    w.write(INSERT, sel_entry(w, group_id=10))
    assert w.switch.externs["I.sel"].groups[10].members == [1, 1, 1, 2]
    seen = ports_over_flows(w, 800)
    assert seen[1] > 2 * seen[2] > 0
    w.write(MODIFY, group(w, 10, {1: 1, 2: 3}))
    seen = ports_over_flows(w, 800)
    assert seen[2] > 2 * seen[1] > 0


def test_group_errors(w: World) -> None:
    for mid in (1, 2, 3):
        w.write(INSERT, member(w, "sel", mid, mid))
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, group(w, 0, {1: 1}))
    raises(Code.NOT_FOUND, w.write, INSERT, group(w, 1, {9: 1}))
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, group(w, 1, {1: 0}))  # weight 0
    dup = group(w, 1, {1: 1})
    dup.members.add(member_id=1, weight=1)
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, dup)
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, group(w, 1, {1: 1}, max_size=5))  # > 4
    raises(Code.RESOURCE_EXHAUSTED, w.write, INSERT, group(w, 1, {1: 3, 2: 2}))  # 5 > 4
    raises(Code.RESOURCE_EXHAUSTED, w.write, INSERT, group(w, 1, {1: 2, 2: 1}, max_size=2))
    raises(Code.NOT_FOUND, w.write, MODIFY, group(w, 1, {1: 1}))
    w.write(INSERT, group(w, 1, {1: 1}, max_size=3))
    raises(Code.ALREADY_EXISTS, w.write, INSERT, group(w, 1, {1: 1}))
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, group(w, 1, {1: 1}, max_size=2))
    w.write(MODIFY, group(w, 1, {1: 1, 2: 2}))  # max_size 0: unchanged (3)
    raises(Code.RESOURCE_EXHAUSTED, w.write, MODIFY, group(w, 1, {1: 2, 2: 2}))
    raises(Code.FAILED_PRECONDITION, w.write, DELETE, member(w, "sel", 2, 2))  # in a group
    w.write(INSERT, sel_entry(w, group_id=1))
    raises(Code.FAILED_PRECONDITION, w.write, DELETE, group(w, 1, {}))  # used by an entry
    raises(Code.NOT_FOUND, w.write, INSERT, sel_entry(w, 2, group_id=7))
    prof_group = P.ActionProfileGroup(action_profile_id=w.id("action_profiles", "prof"), group_id=1)
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, prof_group)
    w.write(DELETE, sel_entry(w))
    w.write(DELETE, group(w, 1, {}))
    raises(Code.NOT_FOUND, w.write, DELETE, group(w, 1, {}))
    w.write(DELETE, member(w, "sel", 2, 2))


def test_watch_ports_read_back(w: World) -> None:
    w.write(INSERT, member(w, "sel", 1, 1))
    w.write(INSERT, member(w, "sel", 2, 2))
    g = group(w, 3, {})
    g.members.add(member_id=1, weight=1, watch_port=b"\x00\x05")
    g.members.add(member_id=2, weight=1, watch=6)
    w.write(INSERT, g)
    [got] = w.read(P.ActionProfileGroup(action_profile_id=g.action_profile_id, group_id=3))
    assert got.members[0].watch_port == b"\x05"
    assert got.members[1].watch == 6


# ---------------------------------------------------------------- one-shot


def oneshot(w: World, a: int, ports: dict[int, int]) -> P.TableEntry:
    e = w.entry("t_sel", {"hdr.h.a": a})
    aps = e.action.action_profile_action_set
    for port, weight in ports.items():
        apa = aps.action_profile_actions.add(weight=weight)
        apa.action.CopyFrom(w.action("fwd", port=port))
    return e


def test_oneshot_round_trip_and_forwarding(w: World) -> None:
    e = oneshot(w, 1, {1: 1, 2: 2})
    w.write(INSERT, e)
    assert w.read(w.entry("t_sel", {"hdr.h.a": 1})) == [e]
    assert set(ports_over_flows(w)) == {1, 2}
    assert w.read(P.ActionProfileMember()) == []  # hidden
    assert w.read(P.ActionProfileGroup()) == []
    e2 = oneshot(w, 1, {3: 1})
    w.write(MODIFY, e2)
    assert set(ports_over_flows(w, 50)) == {3}
    prof = w.switch.externs["I.sel"]
    assert len(prof.members) == 1 and len(prof.groups) == 1  # old group released
    w.write(DELETE, w.entry("t_sel", {"hdr.h.a": 1}))
    assert prof.members == {} and prof.groups == {}


def test_oneshot_errors(w: World) -> None:
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, oneshot(w, 1, {1: 0}))
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, oneshot(w, 1, {1: 3, 2: 2}))  # > 4
    ga = oneshot(w, 1, {1: 1})
    ga.action.action_profile_action_set.group_action.CopyFrom(w.action("fwd", port=1))
    raises(Code.UNIMPLEMENTED, w.write, INSERT, ga)
    mode = oneshot(w, 1, {1: 1})
    mode.action.action_profile_action_set.action_selection_mode = 2
    raises(Code.UNIMPLEMENTED, w.write, INSERT, mode)
    w.write(INSERT, oneshot(w, 1, {1: 1}))
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, member(w, "sel", 1, 1))  # mixing
    raises(Code.ALREADY_EXISTS, w.write, INSERT, oneshot(w, 1, {2: 1}))
    prof = w.switch.externs["I.sel"]
    assert len(prof.groups) == 1  # the failed insert left nothing behind
    w2 = make_world()
    w2.write(INSERT, member(w2, "sel", 1, 1))
    raises(Code.INVALID_ARGUMENT, w2.write, INSERT, oneshot(w2, 1, {1: 1}))
    on_profile = w2.entry("t_prof", {"hdr.h.a": 1})
    apa = on_profile.action.action_profile_action_set.action_profile_actions.add(weight=1)
    apa.action.CopyFrom(w2.action("fwd", port=1))
    raises(Code.INVALID_ARGUMENT, w2.write, INSERT, on_profile)
