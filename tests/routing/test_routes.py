"""Route computation checked against networkx on generated fabrics, healthy and with
failures: every next hop lies on a shortest path and every shortest path's first hop is
a next hop (so routes are loop-free and shortest), no blackholes, no routes to what
cannot be reached, weights follow capacities."""

from __future__ import annotations

import io
import json
import math
from functools import reduce

import networkx as nx
import pytest

from controller.routing import NextHops, Routes, compute_routes, diff_routes, write_routes_json
from controller.topology import Link, Topology, TopologyError
from controller.topology.generators import fat_tree, leaf_spine


def _switch_graph(topo: Topology, failed_links=(), failed_switches=()) -> nx.Graph:
    g = nx.Graph()
    down = {frozenset(p) for p in failed_links}
    g.add_nodes_from(s.name for s in topo.switches if s.name not in failed_switches)
    for lk in topo.links:
        if frozenset((lk.a, lk.b)) in down or {lk.a, lk.b} & set(failed_switches):
            continue
        g.add_edge(lk.a, lk.b, rate=lk.rate_bps)
    return g


def _expected_weights(g: nx.Graph, dest: str, dist: dict[str, int]) -> dict[str, dict[str, int]]:
    """The documented rule, computed independently: cap(dest) = inf, cap(u) = sum over
    next hops v of min(rate(u, v), cap(v)); weight of v = min(rate(u, v), cap(v)) / gcd."""
    cap: dict[str, float] = {dest: math.inf}
    weights: dict[str, dict[str, int]] = {}
    for u in sorted(dist, key=dist.get):
        if u == dest:
            continue
        raw = {v: min(g.edges[u, v]["rate"], cap[v]) for v in g[u] if dist.get(v) == dist[u] - 1}
        cap[u] = sum(raw.values())
        d = reduce(math.gcd, (int(x) for x in raw.values()))
        weights[u] = {v: int(x) // d for v, x in raw.items()}
    return weights


def check_routes(topo: Topology, routes: Routes, failed_links=(), failed_switches=()) -> None:
    g = _switch_graph(topo, failed_links, failed_switches)
    leaves = [s for s in topo.switches if s.subnets and s.name not in failed_switches]
    tables = {s.name: routes.table(s.name) for s in topo.switches}
    for s in failed_switches:
        assert tables[s] == {}
    for leaf in leaves:
        dist = nx.single_source_shortest_path_length(g, leaf.name)
        weights = _expected_weights(g, leaf.name, dist)
        for sw in topo.switches:
            u = sw.name
            if u in failed_switches:
                continue
            for prefix in leaf.subnets:
                got = tables[u].get(prefix)
                if u == leaf.name or u not in dist:
                    assert got is None, (u, prefix, got)  # own subnet / unreachable: no route
                    continue
                assert got is not None, f"blackhole: {u} has no route to {prefix}"
                firsts = {p[1] for p in nx.all_shortest_paths(g, u, leaf.name)}
                assert set(got.neighbours) == firsts, (u, prefix)
                assert len(set(got.neighbours)) == len(got.neighbours)
                for v in got.neighbours:
                    assert dist[v] == dist[u] - 1  # strictly closer: loop-free
                ports = [topo.port_to(u, v) for v in got.neighbours]
                assert ports == sorted(ports)
                assert all(w > 0 for w in got.weights)
                assert dict(zip(got.neighbours, got.weights, strict=True)) == weights[u]
        # hosts: a /32 at their leaf only, pointing at the host
        for h in topo.hosts_of(leaf.name):
            assert tables[leaf.name][f"{h.ip}/32"] == NextHops((h.name,), (1,))
    n_host_routes = {s.name: len(topo.hosts_of(s.name)) for s in topo.switches}
    for u, table in tables.items():
        assert sum(p.endswith("/32") for p in table) == (
            0 if u in failed_switches else n_host_routes[u]
        )
    assert list(routes.entries_per_switch()) == [len(tables[s.name]) for s in topo.switches]


TOPOLOGIES = {
    "leaf-spine-2x2": lambda: leaf_spine(2, 2, 2),
    "leaf-spine-4x3-oversub": lambda: leaf_spine(4, 3, 3, oversubscription=3),
    "fat-tree-k4": lambda: fat_tree(4),
    "fat-tree-k8": lambda: fat_tree(8),
    "multi-plane-fat-tree-k4": lambda: fat_tree(4, planes=2),
    "multi-plane-leaf-spine": lambda: leaf_spine(3, 2, 2, planes=3),
}


@pytest.mark.parametrize("name", list(TOPOLOGIES))
def test_healthy_fabrics(name: str) -> None:
    topo = TOPOLOGIES[name]()
    check_routes(topo, compute_routes(topo))


@pytest.mark.parametrize(
    ("name", "failed_links", "failed_switches"),
    [
        ("leaf-spine-2x2", [("leaf1", "spine1")], []),
        ("leaf-spine-2x2", [("leaf1", "spine1"), ("leaf1", "spine2")], []),  # leaf1 cut off
        ("leaf-spine-4x3-oversub", [("leaf2", "spine3")], ["spine1"]),
        ("fat-tree-k4", [("pod0-agg0", "core0")], []),
        ("fat-tree-k4", [("pod0-edge0", "pod0-agg0"), ("pod2-agg1", "core3")], []),
        ("fat-tree-k8", [("pod1-agg2", "core9"), ("pod3-edge0", "pod3-agg3")], ["core0"]),
        ("fat-tree-k8", [], ["pod0-edge1", "pod5-agg0"]),
        ("multi-plane-fat-tree-k4", [("p1-pod0-agg0", "p1-core1")], ["p0-core0"]),
    ],
)
def test_failures(name: str, failed_links, failed_switches) -> None:
    topo = TOPOLOGIES[name]()
    routes = compute_routes(topo, failed_links=failed_links, failed_switches=failed_switches)
    check_routes(topo, routes, failed_links, failed_switches)
    # the same as computing on the topology without those links
    if not failed_switches:
        again = compute_routes(topo.without_links(failed_links))
        for s in topo.switch_names():
            assert again.table(s) == routes.table(s)


def test_cut_off_leaf_gets_and_receives_no_routes() -> None:
    topo = leaf_spine(2, 2, 2)
    routes = compute_routes(topo, failed_links=[("leaf1", "spine1"), ("leaf1", "spine2")])
    assert "10.0.0.0/24" not in routes.table("spine1")
    assert set(routes.table("leaf1")) == {"10.0.0.1/32", "10.0.0.2/32"}
    assert set(routes.table("leaf2")) == {"10.0.1.1/32", "10.0.1.2/32"}


def _with_rates(topo: Topology, rates: dict[frozenset[str], int]) -> Topology:
    links = tuple(
        Link(lk.a, lk.a_port, lk.b, lk.b_port, rates.get(frozenset((lk.a, lk.b)), lk.rate_bps))
        for lk in topo.links
    )
    return Topology(topo.name, topo.switches, topo.hosts, links)


def test_asymmetric_capacities_weight_the_next_hops() -> None:
    g = 10**9
    topo = _with_rates(
        leaf_spine(3, 3, 3),
        {frozenset(("leaf1", "spine1")): 40 * g, frozenset(("leaf3", "spine2")): 25 * g},
    )
    routes = compute_routes(topo)
    check_routes(topo, routes)
    # leaf1 -> leaf2: the spine1 path is limited to 40G by leaf1's own uplink
    assert routes.table("leaf1")["10.0.1.0/24"] == NextHops(
        ("spine1", "spine2", "spine3"), (2, 5, 5)
    )
    # leaf2 -> leaf3: spine2's path is limited to 25G by spine2-leaf3
    assert routes.table("leaf2")["10.0.2.0/24"] == NextHops(
        ("spine1", "spine2", "spine3"), (4, 1, 4)
    )
    # leaf3 -> leaf2: its own 25G uplink limits that path the same way
    assert routes.table("leaf3")["10.0.1.0/24"].weights == (4, 1, 4)
    # leaf2 -> leaf1 is not symmetric to leaf3 -> leaf1 (different downlink of spine1)
    assert routes.table("leaf2")["10.0.0.0/24"].weights == (2, 5, 5)


def test_asymmetric_fat_tree() -> None:
    topo = _with_rates(
        fat_tree(4),
        {
            frozenset(("pod1-agg0", "core0")): 10 * 10**9,
            frozenset(("pod0-edge1", "pod0-agg1")): 50 * 10**9,
        },
    )
    routes = compute_routes(topo)
    check_routes(topo, routes)
    # pod0-agg0 -> pod1: core0 gets only the 10G of core0-pod1-agg0
    assert routes.table("pod0-agg0")["10.0.2.0/24"] == NextHops(("core0", "core1"), (1, 10))
    # pod0-edge1 -> pod1: its 50G uplink to agg1 against 100G to agg0 (whose 110G towards
    # pod1 is more than the uplink)
    assert routes.table("pod0-edge1")["10.0.2.0/24"] == NextHops(("pod0-agg0", "pod0-agg1"), (2, 1))
    assert routes.table("pod0-edge0")["10.0.2.0/24"].weights == (1, 1)


def test_link_capacity_overrides_weights() -> None:
    topo = leaf_spine(2, 2, 1)
    g = 10**9
    routes = compute_routes(
        topo, link_capacity={("leaf1", "spine1"): 30 * g, ("spine2", "leaf2"): 0}
    )
    assert routes.table("leaf1")["10.0.1.0/24"] == NextHops(("spine1", "spine2"), (30 * g, 1))
    # the other direction keeps its capacity
    assert routes.table("leaf2")["10.0.0.0/24"] == NextHops(("spine1", "spine2"), (1, 1))
    with pytest.raises(TopologyError, match="not a switch link"):
        compute_routes(topo, link_capacity={("leaf1", "leaf2"): 1})


def test_groups_are_shared_per_switch() -> None:
    topo = fat_tree(8)
    routes = compute_routes(topo)
    sr = routes.switch_routes("pod0-edge0")
    # every remote prefix shares one group of all four aggregation switches
    remote = {g for p, g in sr.routes.items() if not p.endswith("/32")}
    assert len(remote) == 1
    assert sr.groups[remote.pop()].neighbours == tuple(f"pod0-agg{i}" for i in range(4))
    assert len(sr.groups) == 1 + 4  # + one per host
    agg = routes.switch_routes("pod0-agg0")
    assert len(agg.groups) == 4 + 1  # one per edge below, one of all its cores
    assert routes.summary().groups == sum(
        len(routes.switch_routes(s).groups) for s in routes.switches
    )
    assert routes.summary().destination_classes == 8  # one per pod


def test_unknown_names_are_errors() -> None:
    topo = leaf_spine(2, 2, 1)
    with pytest.raises(TopologyError, match="no link between leaf1 and leaf2"):
        compute_routes(topo, failed_links=[("leaf1", "leaf2")])
    with pytest.raises(TopologyError, match="no switch named 'spine9'"):
        compute_routes(topo, failed_links=[("leaf1", "spine9")])
    with pytest.raises(TopologyError, match="no switch named 'x'"):
        compute_routes(topo, failed_switches=["x"])


@pytest.mark.parametrize(
    ("failed_links", "failed_switches"),
    [([("pod0-agg0", "core0")], []), ([("pod0-edge0", "pod0-agg1")], ["core3"]), ([], [])],
)
def test_diff_turns_old_tables_into_new(failed_links, failed_switches) -> None:
    topo = fat_tree(4)
    old = compute_routes(topo)
    new = compute_routes(topo, failed_links=failed_links, failed_switches=failed_switches)
    diff = diff_routes(old, new)
    changed_switches = set()
    for s in topo.switch_names():
        if s in failed_switches:
            assert s not in diff
            continue
        table = old.table(s)
        if s in diff:
            d = diff[s]
            assert not set(d.added) & set(table)
            assert set(d.changed) <= set(table) and set(d.removed) <= set(table)
            for p in d.removed:
                del table[p]
            table.update(d.added)
            table.update(d.changed)
            changed_switches.add(s)
        assert table == new.table(s)
    if not failed_links and not failed_switches:
        assert diff == {}
    else:
        assert changed_switches  # a failure changes something
        assert len(changed_switches) < len(topo.switches)  # and only where needed
    # back to healthy: the reverse diff restores every switch, a recovered one included
    back = diff_routes(new, compute_routes(topo))
    for s in topo.switch_names():
        table = new.table(s)
        d = back.get(s)
        if d is not None:
            for p in d.removed:
                del table[p]
            table.update(d.added)
            table.update(d.changed)
        assert table == old.table(s)


def test_json_matches_tables() -> None:
    topo = fat_tree(4, planes=2)
    routes = compute_routes(topo, failed_links=[("p0-pod0-agg0", "p0-core1")])
    buf = io.StringIO()
    write_routes_json(routes, buf, seconds=0.25)
    doc = json.loads(buf.getvalue())
    assert doc["seconds"] == 0.25
    assert list(doc["switches"]) == list(topo.switch_names())
    for s in topo.switch_names():
        want = {
            p: {"next_hops": list(nh.neighbours), "weights": list(nh.weights)}
            for p, nh in routes.table(s).items()
        }
        assert doc["switches"][s]["routes"] == want


def _random_fabric(seed: int) -> Topology:
    """An irregular fabric: a random connected core, leaves hung on random cores (some of
    them twins: the same cores), a leaf-to-leaf link, mixed rates."""
    import random

    from controller.topology import HostNode, SwitchNode

    rnd = random.Random(seed)
    g = nx.connected_watts_strogatz_graph(8, 3, 0.5, seed=seed)
    cores = [f"c{i}" for i in g.nodes]
    edges = [(f"c{a}", f"c{b}") for a, b in g.edges]
    leaves = []
    for i in range(6):
        ups = (
            rnd.sample(cores, rnd.randint(1, 3))
            if i % 3
            else leaves[-1][1]
            if leaves
            else cores[:2]
        )
        leaves.append((f"l{i}", list(ups)))
    edges += [(leaf, up) for leaf, ups in leaves for up in ups]
    edges.append(("l0", "l5"))
    switches = [SwitchNode(c, "core", i + 1) for i, c in enumerate(cores)]
    switches += [
        SwitchNode(name, "leaf", 100 + i, subnets=(f"10.0.{i}.0/24",))
        for i, (name, _) in enumerate(leaves)
    ]
    ports: dict[str, int] = {}

    def port(n: str) -> int:
        ports[n] = ports.get(n, 0) + 1
        return ports[n]

    hosts = [HostNode(f"h{i}", f"10.0.{i}.1", f"06:00:00:00:00:{i + 1:02x}", name, port(name))
             for i, (name, _) in enumerate(leaves)]  # fmt: skip
    rates = [10**9 * r for r in (10, 25, 40, 100)]
    links = [Link(a, port(a), b, port(b), rnd.choice(rates) if rnd.random() < 0.5 else rates[-1])
             for a, b in edges]  # fmt: skip
    return Topology(f"random-{seed}", tuple(switches), tuple(hosts), tuple(links))


@pytest.mark.parametrize("seed", range(6))
def test_irregular_fabrics(seed: int) -> None:
    topo = _random_fabric(seed)
    check_routes(topo, compute_routes(topo))
    first = topo.links[seed % len(topo.links)]
    failed = [(first.a, first.b)]
    check_routes(topo, compute_routes(topo, failed_links=failed), failed)
    check_routes(topo, compute_routes(topo, failed_switches=["c1"]), (), ["c1"])
