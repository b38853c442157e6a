"""A link failure on a k=4 fat-tree, through the controller's desired state
(`fabric_desired_state` with the run's `DesiredCache`): the plan that follows holds exactly
the routes whose next hops changed and the groups whose next-hop sets appeared or went,
with the expected changes worked out here from the topology by a plain BFS (not by the
route computation); unrelated recomputations keep every id; restoring the link restores
the original entities."""

from __future__ import annotations

import ipaddress
from collections import deque
from collections.abc import Iterable
from math import gcd
from types import SimpleNamespace
from typing import Any

import pytest

from controller import P4Schema
from controller.entities import Action, Entity, Exact, Lpm, TableEntry
from controller.fabric import Pipeline
from controller.fabric.desired import DesiredCache, fabric_desired_state
from controller.fabric.reconcile import content, identity, plan
from controller.topology import Topology
from controller.topology.generators import fat_tree

Key = tuple[tuple[str, ...], tuple[int, ...]]  # next hops in port order, weights


def reference_tables(topo: Topology, down: Iterable[tuple[str, str]]) -> dict[str, dict[str, Key]]:
    """prefix -> (next hops, weights) per switch: BFS per destination leaf, every
    shortest-path neighbour, weight min(link rate, what the neighbour can carry onward),
    divided by the gcd; a host /32 at its leaf. Written from the definition, in Python."""
    cut = {frozenset(p) for p in down}
    nbrs: dict[str, list[tuple[int, str, int]]] = {s.name: [] for s in topo.switches}
    for lk in topo.links:
        if frozenset((lk.a, lk.b)) in cut:
            continue
        nbrs[lk.a].append((lk.a_port, lk.b, lk.rate_bps))
        nbrs[lk.b].append((lk.b_port, lk.a, lk.rate_bps))
    out: dict[str, dict[str, Key]] = {s.name: {} for s in topo.switches}
    for leaf in (s for s in topo.switches if s.subnets):
        dist = {leaf.name: 0}
        todo = deque([leaf.name])
        while todo:
            u = todo.popleft()
            for _, v, _ in nbrs[u]:
                if v not in dist:
                    dist[v] = dist[u] + 1
                    todo.append(v)
        carry: dict[str, float] = {leaf.name: float("inf")}
        for u in sorted(dist, key=dist.__getitem__):
            if u == leaf.name:
                continue
            hops = sorted(
                (p, v, min(r, carry[v])) for p, v, r in nbrs[u] if dist.get(v) == dist[u] - 1
            )
            carry[u] = sum(w for _, _, w in hops)
            g = 0
            for _, _, w in hops:
                g = gcd(g, int(w))
            key = (tuple(v for _, v, _ in hops), tuple(int(w) // g for _, _, w in hops))
            for prefix in leaf.subnets:
                out[u][prefix] = key
    for h in topo.hosts:
        out[h.switch][f"{h.ip}/32"] = ((h.name,), (1,))
    return out


class FakeRun:
    """What `fabric_desired_state` reads of a FabricRun."""

    def __init__(self, topo: Topology, schema: P4Schema) -> None:
        self.topology = topo
        self.policy = None
        self.wiring = None
        self.down: list[tuple[str, str]] = []
        self.sessions = {s.name: SimpleNamespace(schema=schema) for s in topo.switches}
        self.desired_cache = DesiredCache()

    def failed_links(self) -> list[tuple[str, str]]:
        return list(self.down)


def _short(e: TableEntry) -> str:
    return e.table.split(".")[-1]


def routes_of(ents: list[Entity]) -> dict[str, int]:
    out = {}
    for e in ents:
        if isinstance(e, TableEntry) and _short(e).startswith("routing_v"):
            (m,) = e.match.values()
            assert isinstance(m, Lpm) and isinstance(e.action, Action)
            net = ipaddress.ip_network((m.value, m.prefix_len))
            out[str(net)] = e.action.params["group_id"]
    return out


def group_of(e: Entity) -> int | None:
    """The group id of a next_hop_group / next_hop_member entry, else None."""
    if isinstance(e, TableEntry) and _short(e) in ("next_hop_group", "next_hop_member"):
        m = e.match["group_id"]
        assert isinstance(m, Exact)
        return m.value
    return None


def id_of_key(ents: list[Entity], table: dict[str, Key]) -> dict[Key, int]:
    """Next-hop set -> the group id its routes name (one id per set)."""
    out: dict[Key, int] = {}
    for prefix, gid in routes_of(ents).items():
        assert out.setdefault(table[prefix], gid) == gid, prefix
    return out


def state(ents: list[Entity]) -> set[tuple[Any, Any]]:
    return {(identity(e), content(e)) for e in ents}


@pytest.fixture(scope="module")
def schema(pipeline: Pipeline) -> P4Schema:
    return P4Schema(pipeline.p4info)


LINK = ("pod0-edge0", "pod0-agg0")


def test_a_link_failure_rewrites_only_what_changed(schema: P4Schema) -> None:
    topo = fat_tree(4)
    run = FakeRun(topo, schema)
    before = fabric_desired_state(run)
    run.desired_cache.release()
    old_ref = reference_tables(topo, [])
    # the encoded routes follow the reference tables (the ids are consistent per set)
    for name, ents in before.items():
        assert set(routes_of(ents)) == set(old_ref[name])
        id_of_key(ents, old_ref[name])

    run.down = [LINK]
    after = fabric_desired_state(run)
    new_ref = reference_tables(topo, [LINK])
    touched = 0
    for name in before:
        old_t, new_t = old_ref[name], new_ref[name]
        old_ids = id_of_key(before[name], old_t)
        new_ids = id_of_key(after[name], new_t)
        for key in old_ids.keys() & new_ids.keys():
            assert old_ids[key] == new_ids[key], (name, key)  # a set that stays keeps its id
        gone = {old_ids[k] for k in old_ids.keys() - new_ids.keys()}
        came = {new_ids[k] for k in new_ids.keys() - old_ids.keys()}
        moved = {p for p in old_t.keys() & new_t.keys() if old_t[p] != new_t[p]}
        assert old_t.keys() == new_t.keys()  # a single link cut on a fat-tree loses nothing
        p = plan(after[name], before[name])
        assert {_route(e) for e in p.modifies} == moved, name
        assert all(_route(e) is not None for e in p.modifies)
        assert {group_of(e) for e in p.inserts} == came, name
        assert {group_of(e) for e in p.deletes} == gone, name
        # every entry of those groups, and nothing else
        n_came = sum(1 for e in after[name] if group_of(e) in came)
        n_gone = sum(1 for e in before[name] if group_of(e) in gone)
        assert (len(p.inserts), len(p.deletes)) == (n_came, n_gone), name
        touched += bool(p)
        assert bool(p) == bool(moved)
    assert 0 < touched < len(before)

    # nothing else changed: the same inputs again give the same entities
    run.desired_cache.release()
    again = fabric_desired_state(run)
    assert all(again[n] is after[n] for n in after)  # not even encoded again

    # the link comes back: every switch as it was
    run.down = []
    restored = fabric_desired_state(run)
    for name in before:
        assert state(restored[name]) == state(before[name]), name


def _route(e: Entity) -> str | None:
    if isinstance(e, TableEntry) and _short(e).startswith("routing_v"):
        (prefix,) = routes_of([e])
        return prefix
    return None


def test_ids_survive_an_unrelated_recomputation(schema: P4Schema) -> None:
    topo = fat_tree(4)
    run = FakeRun(topo, schema)
    first = fabric_desired_state(run)
    run.desired_cache.release()
    first_ids = {n: dict(run.desired_cache.group_ids.ids(n)) for n in first}
    # a fresh cache fed the same inputs gives the same entities
    assert {n: state(e) for n, e in fabric_desired_state(FakeRun(topo, schema)).items()} == {
        n: state(e) for n, e in first.items()
    }
    other = ("pod3-edge1", "pod3-agg1")
    run.down = [other]
    second = fabric_desired_state(run)
    old_ref, new_ref = reference_tables(topo, []), reference_tables(topo, [other])
    same = [n for n in first if old_ref[n] == new_ref[n]]
    assert same  # some switches do not see that link at all
    for name, had in first_ids.items():
        now = run.desired_cache.group_ids.ids(name)
        for key in had.keys() & now.keys():
            assert had[key] == now[key], (name, key)
    for name in same:  # their entities are the very same
        assert run.desired_cache.group_ids.ids(name) == first_ids[name]
        assert second[name] is first[name]
