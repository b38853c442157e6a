"""The controller core's difference (`core.difference`): from what a switch was last written
to its new desired state, the exact updates in the order P4Runtime writes need them (a new
group's members, then the group, then the route naming it; a route off a group before that
group and its members go), written through the in-process southbound to a softswitch
entity store that ends up holding the desired state; and a live fabric's update
(`FabricSessions.update_all`, what `set_lb` and `set_link` run) writes exactly these."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from controller import codec
from controller.entities import Entity, TableEntry, Update
from controller.fabric import FabricSessions, Pipeline, StoreSouthbound, content, identity
from controller.fabric import sessions as sessions_module
from controller.fabric.core import TABLE_ORDER, difference, write_all
from controller.fabric.reconcile import wildcards
from controller.p4info import P4Schema
from softswitch.clock import SimClock
from softswitch.device_config import load_device_config
from softswitch.p4runtime.entities import EntityStore
from softswitch.program_info import CompiledProgram
from softswitch.v1model.switch import Switch

from .conftest import LocalSwitch

SMAC = "00:00:00:00:aa:01"


@pytest.fixture(scope="module")
def schema(fabric_pipeline: Pipeline) -> P4Schema:
    return P4Schema(fabric_pipeline.p4info)


@pytest.fixture(scope="module")
def order(schema: P4Schema) -> list[str]:
    return [schema.table(t).name for t in TABLE_ORDER]


class Recording:
    """A southbound that keeps every write it passes on to `inner`."""

    def __init__(self, inner: StoreSouthbound) -> None:
        self.inner = inner
        self.calls: list[tuple[str, list[Update]]] = []

    def write(self, switch: str, updates: Sequence[Update]) -> None:
        self.calls.append((switch, list(updates)))
        self.inner.write(switch, updates)

    def read(self, switch: str, entities: Sequence[Entity]) -> list[Entity]:
        return self.inner.read(switch, entities)


@pytest.fixture(scope="module")
def program(fabric_pipeline: Pipeline) -> CompiledProgram:
    return load_device_config(fabric_pipeline.device_config)


@pytest.fixture
def south(schema: P4Schema, program: CompiledProgram) -> Recording:
    """A softswitch's entity store in this process, behind the in-process southbound."""
    store = EntityStore(Switch(program, clock=SimClock(0)), schema.p4info)
    return Recording(StoreSouthbound(schema, {"s1": store}))


def member(schema: P4Schema, group: int, index: int, port: int) -> TableEntry:
    return codec.table_entry(
        schema,
        "next_hop_member",
        {"group_id": group, "member_index": index},
        "set_next_hop",
        {"port": port, "smac": SMAC, "dmac": f"00:00:00:00:bb:{port:02x}"},
    )


def group(schema: P4Schema, gid: int, mode: str = "use_ecmp") -> TableEntry:
    return codec.table_entry(
        schema, "next_hop_group", {"group_id": gid}, mode, {"group_size": 2, "live_members": 3}
    )


def route(schema: P4Schema, prefix: str, gid: int) -> TableEntry:
    return codec.table_entry(
        schema, "routing_v4", {"ipv4_dst": prefix}, "set_next_hop_group", {"group_id": gid}
    )


def with_group(schema: P4Schema, gid: int, ports: tuple[int, int]) -> list[Entity]:
    """Group `gid` and its two members (on `ports`)."""
    return [group(schema, gid), member(schema, gid, 0, ports[0]), member(schema, gid, 1, ports[1])]


def state(south: Recording) -> set[tuple[object, ...]]:
    """What the store holds of the three tables, in canonical form."""
    schema = south.inner.schema
    tables = [schema.table(t).name for t in ("next_hop_member", "next_hop_group", "routing_v4")]
    return {
        (identity(e), content(e)) for e in south.read("s1", wildcards(tables, (), False, False))
    }


def canonical(entities: Sequence[Entity]) -> set[tuple[object, ...]]:
    return {(identity(e), content(e)) for e in entities}


def program_then_change(
    south: Recording, order: list[str], written: list[Entity], desired: list[Entity]
) -> list[list[Update]]:
    """`written` written to the store, then the difference to `desired` (returned) too; the
    calls recorded are the difference's only."""
    write_all(south, {"s1": difference(written, [], order)})
    assert state(south) == canonical(written)
    south.calls.clear()
    phases = difference(desired, written, order)
    write_all(south, {"s1": phases})
    assert [ups for _, ups in south.calls] == phases  # phase by phase, in order
    assert state(south) == canonical(desired)
    return phases


def two_routes(schema: P4Schema) -> tuple[list[Entity], TableEntry, list[Entity], TableEntry]:
    """Groups 1 (ports 1, 2) and 2 (ports 3, 4), and a route to each."""
    g1, g2 = with_group(schema, 1, (1, 2)), with_group(schema, 2, (3, 4))
    return g1, route(schema, "10.1.0.0/24", 1), g2, route(schema, "10.2.0.0/24", 2)


def test_a_new_group_goes_before_the_route_naming_it(
    schema: P4Schema, order: list[str], south: Recording
) -> None:
    g1, r1, g2, r2 = two_routes(schema)
    phases = program_then_change(south, order, [*g1, r1], [*g1, r1, *g2, r2])
    assert phases == [
        [Update.insert(g2[1]), Update.insert(g2[2])],  # the members
        [Update.insert(g2[0])],  # the group over them
        [Update.insert(r2)],  # the route naming the group
    ]


def test_a_removed_group_goes_after_the_route_that_named_it(
    schema: P4Schema, order: list[str], south: Recording
) -> None:
    g1, r1, g2, r2 = two_routes(schema)
    phases = program_then_change(south, order, [*g1, r1, *g2, r2], [*g1, r1])
    assert phases == [
        [Update.delete(r2)],  # the route first
        [Update.delete(g2[0])],  # then its group
        [Update.delete(g2[1]), Update.delete(g2[2])],  # then the group's members
    ]


def test_a_modified_route_is_one_modify(
    schema: P4Schema, order: list[str], south: Recording
) -> None:
    g1 = with_group(schema, 1, (1, 2))
    g2 = with_group(schema, 2, (3, 4))
    r1 = route(schema, "10.1.0.0/24", 1)
    moved = route(schema, "10.1.0.0/24", 2)
    phases = program_then_change(south, order, [*g1, *g2, r1], [*g1, *g2, moved])
    assert phases == [[Update.modify(moved)]]


def test_a_route_moved_to_a_new_group_is_make_before_break(
    schema: P4Schema, order: list[str], south: Recording
) -> None:
    """The new group's members, the group, the route's MODIFY onto it; only then the old
    group and its members go: no write leaves the route naming a group that is not there."""
    g1 = with_group(schema, 1, (1, 2))
    g3 = with_group(schema, 3, (3, 4))
    r1 = route(schema, "10.1.0.0/24", 1)
    moved = route(schema, "10.1.0.0/24", 3)
    phases = program_then_change(south, order, [*g1, r1], [*g3, moved])
    assert phases == [
        [Update.insert(g3[1]), Update.insert(g3[2])],
        [Update.insert(g3[0])],
        [Update.modify(moved)],
        [Update.delete(g1[0])],
        [Update.delete(g1[1]), Update.delete(g1[2])],
    ]


def test_a_mode_change_modifies_the_groups_only(schema: P4Schema, order: list[str]) -> None:
    """What `set_lb` writes: the group entries MODIFYed to their new mode; the members and
    routes the two states share are not compared (the same objects)."""
    g1, g2 = with_group(schema, 1, (1, 2)), with_group(schema, 2, (3, 4))
    routes = [route(schema, "10.1.0.0/24", 1), route(schema, "10.2.0.0/24", 2)]
    written = [*g1, *g2, *routes]
    spray = [group(schema, 1, "use_spray_random"), group(schema, 2, "use_spray_random")]
    desired = [spray[0], *g1[1:], spray[1], *g2[1:], *routes]
    assert difference(desired, written, order) == [
        [Update.modify(spray[0]), Update.modify(spray[1])]
    ]


def test_equal_states_write_nothing(schema: P4Schema, order: list[str]) -> None:
    """The same objects, or equal copies of them in another order: nothing to write."""
    written = [*with_group(schema, 1, (1, 2)), route(schema, "10.1.0.0/24", 1)]
    assert difference(written, written, order) == []
    copies = [*reversed(with_group(schema, 1, (1, 2))), route(schema, "10.1.0.0/24", 1)]
    assert difference(copies, written, order) == []


Calls = list[tuple[str, list[Update]]]


@pytest.fixture
def fabric(
    local_switches: list[LocalSwitch], fabric_pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[FabricSessions, Calls]]:
    """A fabric of one in-process switch whose sessions' southbound keeps what it writes."""
    calls: Calls = []

    class Recorded(sessions_module.SessionsSouthbound):
        def write(self, switch: str, updates: Sequence[Update]) -> None:
            calls.append((switch, list(updates)))
            super().write(switch, updates)

    monkeypatch.setattr(sessions_module, "SessionsSouthbound", Recorded)
    fab = FabricSessions(
        [s.target for s in local_switches[:1]], fabric_pipeline, table_order=TABLE_ORDER
    )
    try:
        yield fab, calls
    finally:
        fab.close()


def test_a_live_update_writes_the_cores_difference(
    fabric: tuple[FabricSessions, Calls], schema: P4Schema, order: list[str]
) -> None:
    """`FabricSessions.update_all` (`FabricRun.reprogram`'s write) sends exactly the core's
    difference from what it wrote last, phase by phase, through the sessions' southbound."""
    fab, calls = fabric
    g1 = with_group(schema, 1, (1, 2))
    written = [*g1, route(schema, "10.1.0.0/24", 1)]
    first = fab.update_all({"s1": written})["s1"]  # never synced: a full sync, read back
    assert first.inserted == len(written)
    assert sum(len(ups) for _, ups in calls) == len(written)  # also through the southbound
    calls.clear()
    g3 = with_group(schema, 3, (3, 4))
    desired = [*g3, route(schema, "10.1.0.0/24", 3)]
    res = fab.update_all({"s1": desired})["s1"]
    phases = difference(desired, written, order)
    assert [ups for _, ups in calls] == phases
    assert {sw for sw, _ in calls} == {"s1"}
    assert (res.inserted, res.modified, res.deleted, res.read) == (3, 1, 3, 0)
    assert res.writes == len(phases)  # one Write per phase at the default batch size
    assert fab["s1"].ledger() == desired
