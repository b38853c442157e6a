"""Reconciliation writes make before break: applied phase by phase, a plan never leaves a
route naming a missing group or a group slot without its member; and the fast local repair
of a failed link clears exactly the live bits of the members on the dead port."""

from __future__ import annotations

from typing import Any

from controller import codec
from controller.entities import Action, Exact, TableEntry, UpdateType
from controller.fabric import Pipeline, identity, plan
from controller.lb import FabricEncoder
from controller.p4info import P4Schema


def group(schema: P4Schema, gid: int, size: int, live: int | None = None) -> TableEntry:
    live = (1 << size) - 1 if live is None else live
    return codec.table_entry(
        schema,
        "next_hop_group",
        {"group_id": gid},
        "use_ecmp",
        {"group_size": size, "live_members": live},
    )


def member(schema: P4Schema, gid: int, idx: int, port: int) -> TableEntry:
    return codec.table_entry(
        schema,
        "next_hop_member",
        {"group_id": gid, "member_index": idx},
        "set_next_hop",
        {"port": port, "smac": "00:00:00:00:aa:01", "dmac": f"00:00:00:00:bb:{port:02x}"},
    )


def route(schema: P4Schema, prefix: str, gid: int) -> TableEntry:
    return codec.table_entry(
        schema, "routing_v4", {"ipv4_dst": prefix}, "set_next_hop_group", {"group_id": gid}
    )


def _exact(e: TableEntry, name: str) -> int:
    m = e.match[name]
    assert isinstance(m, Exact)
    return m.value


def check_references(schema: P4Schema, state: dict[Any, TableEntry]) -> None:
    """Every route's group exists; every live slot of a group has its member."""
    gt, mt = schema.table("next_hop_group").name, schema.table("next_hop_member").name
    groups = {_exact(e, "group_id"): e for e in state.values() if e.table == gt}
    members = {
        (_exact(e, "group_id"), _exact(e, "member_index")) for e in state.values() if e.table == mt
    }
    for e in state.values():
        act = e.action
        assert isinstance(act, Action)
        if act.name.endswith("set_next_hop_group"):
            assert act.params["group_id"] in groups, f"route to missing group: {e}"
        if e.table == gt:
            gid = _exact(e, "group_id")
            for i in range(act.params["group_size"]):
                if act.params["live_members"] >> i & 1:
                    assert (gid, i) in members, f"group {gid} slot {i} has no member"


def test_every_phase_boundary_keeps_references(fabric_pipeline: Pipeline) -> None:
    schema = P4Schema(fabric_pipeline.p4info)
    # before: two prefixes over group 0 (ports 3, 4) and one over group 1 (port 3 only)
    old = [
        group(schema, 0, 2),
        member(schema, 0, 0, 3),
        member(schema, 0, 1, 4),
        group(schema, 1, 1),
        member(schema, 1, 0, 3),
        route(schema, "10.0.1.0/24", 0),
        route(schema, "10.0.2.0/24", 0),
        route(schema, "10.0.3.0/24", 1),
    ]
    # after port 3 died: group 0 shrinks to port 4, group 1 goes, its route moves to group 2
    new = [
        group(schema, 0, 1),
        member(schema, 0, 0, 4),
        group(schema, 2, 1),
        member(schema, 2, 0, 4),
        route(schema, "10.0.1.0/24", 0),
        route(schema, "10.0.2.0/24", 0),
        route(schema, "10.0.3.0/24", 2),
    ]
    p = plan(new, old)
    assert p.deletes  # else nothing here could break
    state = {identity(e): e for e in old}
    check_references(schema, state)
    order = ("next_hop_member", "next_hop_group")
    phases = p.phases([schema.table(t).name for t in order])
    dels = [u.type == UpdateType.DELETE for phase in phases for u in phase]
    assert dels == sorted(dels)  # every write before the first delete
    for phase in phases:
        for u in phase:  # a switch may apply one Write's updates in any order: check each
            if u.type == UpdateType.DELETE:
                del state[identity(u.entity)]
            else:
                state[identity(u.entity)] = u.entity  # type: ignore[assignment]
            check_references(schema, state)
    assert state == {identity(e): e for e in new}


def test_live_members_update_clears_only_dead_slots(fabric_pipeline: Pipeline) -> None:
    schema = P4Schema(fabric_pipeline.p4info)
    enc = FabricEncoder(schema)
    entities = [
        group(schema, 0, 3),
        member(schema, 0, 0, 3),
        member(schema, 0, 1, 4),
        member(schema, 0, 2, 3),
        group(schema, 1, 2, live=0b10),  # slot 0 (port 3) already dead
        member(schema, 1, 0, 3),
        member(schema, 1, 1, 5),
        group(schema, 2, 1),
        member(schema, 2, 0, 4),
        route(schema, "10.0.1.0/24", 0),
    ]
    mods = enc.live_members_update(entities, {3})
    # group 0 loses slots 0 and 2; group 1 had its port-3 bit clear already; group 2 has none
    assert [(_exact(m, "group_id"), m.action.params["live_members"]) for m in mods] == [(0, 0b010)]  # type: ignore[union-attr]
    assert mods[0].action.params["group_size"] == 3  # type: ignore[union-attr]
    both = enc.live_members_update(entities, {3, 5})
    assert {_exact(m, "group_id"): m.action.params["live_members"] for m in both} == {  # type: ignore[union-attr]
        0: 0b010,
        1: 0b00,
    }
    assert enc.live_members_update(entities, {9}) == []
