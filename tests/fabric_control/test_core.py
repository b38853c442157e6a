"""The controller core (controller.fabric.core) on its own, through a southbound that only
records: `sprayfabric up`'s desired state is the core's; the updates each change returns
come in make-before-break order; a port's fast repair touches only group entries and its
return puts them back; `write_all` hands every phase over in order."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

import pytest

from controller import P4Schema
from controller.entities import Entity, TableEntry, Update, UpdateType
from controller.fabric import Pipeline
from controller.fabric.core import TABLE_ORDER, DesiredCache, FabricCore, write_all
from controller.fabric.desired import fabric_desired_state
from controller.fabric.reconcile import identity
from controller.lb import FabricEncoder, Policy
from controller.topology import Topology
from controller.topology.generators import fat_tree

LINK = ("pod0-edge0", "pod0-agg0")


class Recorder:
    """A southbound that keeps what it is given."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[Update]]] = []

    def write(self, switch: str, updates: Sequence[Update]) -> None:
        self.calls.append((switch, list(updates)))

    def read(self, switch: str, entities: Sequence[Entity]) -> list[Entity]:
        return []


@pytest.fixture(scope="module")
def schema(fabric_pipeline: Pipeline) -> P4Schema:
    return P4Schema(fabric_pipeline.p4info)


def make_core(topo: Topology, schema: P4Schema) -> FabricCore:
    enc = FabricEncoder(schema)
    order = [schema.table(t).name for t in TABLE_ORDER]
    return FabricCore(topo, {s.name: enc for s in topo.switches}, Policy(), table_order=order)


def _short(e: Entity) -> str:
    return e.table.split(".")[-1] if isinstance(e, TableEntry) else type(e).__name__


def test_up_computes_its_desired_state_with_the_core(schema: P4Schema) -> None:
    topo = fat_tree(4)
    core = make_core(topo, schema)
    core.failed_links.append(LINK)
    run = SimpleNamespace(
        topology=topo,
        policy=None,
        wiring=None,
        sessions={s.name: SimpleNamespace(schema=schema) for s in topo.switches},
        desired_cache=DesiredCache(),
        failed_links=lambda: [LINK],
    )
    live = fabric_desired_state(run)
    sim = core.desired()
    assert list(live) == list(sim)
    # INT reports aside (no INT here), the same entities in the same order
    assert all(live[n] == sim[n] for n in sim)


def test_reroute_is_make_before_break(schema: P4Schema) -> None:
    core = make_core(fat_tree(4), schema)
    south = Recorder()
    n = write_all(south, core.install())
    assert n == sum(len(v) for v in core.installed.values())
    assert all(u.type is not UpdateType.DELETE for _, ups in south.calls for u in ups)
    south.calls.clear()
    writes = core.reroute(*LINK)
    assert write_all(south, writes) == sum(len(u) for ph in writes.values() for u in ph)
    changed = 0
    for phases in writes.values():
        seen_delete = False
        tables: list[str] = []
        for phase in phases:
            kinds = {u.type for u in phase}
            assert len(kinds) <= 1 or UpdateType.DELETE not in kinds
            if UpdateType.DELETE in kinds:
                seen_delete = True
            else:
                assert not seen_delete  # nothing is written after a delete
                tables += [_short(u.entity) for u in phase]
            changed += len(phase)
        # members and groups before the routes naming them
        firsts = [t for t in tables if t in TABLE_ORDER]
        assert tables[: len(firsts)] == firsts
    assert changed > 0
    # the calls are the phases, in order, switch by switch
    assert [ups for _, ups in south.calls] == [p for ph in writes.values() for p in ph if p]


def test_port_down_and_up_touch_only_the_groups(schema: P4Schema) -> None:
    core = make_core(fat_tree(4), schema)
    core.install()
    before = {n: dict(v) for n, v in core.installed.items()}
    down = core.port_down(*LINK)
    assert set(down) == set(LINK)
    ups = [u for ph in down.values() for p in ph for u in p]
    assert ups and all(u.type is UpdateType.MODIFY for u in ups)
    assert {_short(u.entity) for u in ups} == {"next_hop_group"}
    assert core.installed != before
    back = core.port_up(*LINK)
    assert {identity(u.entity) for ph in back.values() for p in ph for u in p} == {
        identity(u.entity) for u in ups
    }
    assert core.installed == before
