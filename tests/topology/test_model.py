"""The topology model and the generators: lookups, graphs, derived topologies, sizes,
rates, addresses and ports of generated fabrics."""

from __future__ import annotations

import ipaddress

import networkx as nx
import pytest

from controller.topology import Topology, TopologyError
from controller.topology.generators import fat_tree, leaf_spine, port_number


def test_graph_kinds_ips_and_ports() -> None:
    t = leaf_spine(2, 2, 2)
    g = t.graph()
    assert g.number_of_nodes() == 8 and g.number_of_edges() == 8
    assert g.nodes["leaf1"]["kind"] == "switch" and g.nodes["leaf1"]["role"] == "leaf"
    assert g.nodes["h3"] == {
        "kind": "host",
        "ip": "10.0.1.1",
        "mac": "06:00:0a:00:01:01",
        "plane": 0,
        "server": "h3",
    }
    assert g.edges["leaf2", "spine1"]["ports"] == {"leaf2": 3, "spine1": 2}
    assert g.edges["h1", "leaf1"]["ports"] == {"h1": 0, "leaf1": 1}
    data = nx.node_link_data(g, edges="links")
    assert {n["id"] for n in data["nodes"] if n["kind"] == "host"} == {"h1", "h2", "h3", "h4"}


def test_without_links_and_switches() -> None:
    t = leaf_spine(2, 2, 2)
    cut = t.without_links([("spine1", "leaf1")])
    assert len(cut.links) == 3 and cut.link_between("leaf1", "spine1") is None
    assert cut.neighbour_on("leaf1", 3) is None
    assert t.link_between("leaf1", "spine1") is not None  # the original is unchanged
    with pytest.raises(TopologyError, match="no link between leaf1 and leaf2"):
        t.without_links([("leaf1", "leaf2")])
    with pytest.raises(TopologyError, match="no switch named 'spine7'"):
        t.without_links([("leaf1", "spine7")])
    with pytest.raises(TopologyError, match="no link between h1 and leaf1"):
        t.without_links([("h1", "leaf1")])
    gone = t.without_switches(["leaf2"])
    assert [h.name for h in gone.hosts] == ["h1", "h2"]
    assert all("leaf2" not in (lk.a, lk.b) for lk in gone.links)


@pytest.mark.parametrize(("leaves", "spines", "hosts"), [(2, 2, 2), (4, 4, 4), (6, 3, 5)])
def test_leaf_spine_shape(leaves: int, spines: int, hosts: int) -> None:
    t = leaf_spine(leaves, spines, hosts)
    assert len(t.switches) == leaves + spines
    assert len(t.hosts) == leaves * hosts
    assert len(t.links) == leaves * spines
    assert sorted(s.device_id for s in t.switches) == list(range(1, leaves + spines + 1))
    assert [s.grpc_addr for s in t.switches] == [
        f"127.0.0.1:{50001 + i}" for i in range(leaves + spines)
    ]
    g = t.graph()
    for leaf in (s for s in t.switches if s.role == "leaf"):
        (net,) = leaf.subnets
        assert all(
            ipaddress.IPv4Address(h.ip) in ipaddress.IPv4Network(net) for h in t.hosts_of(leaf.name)
        )
        assert sum(1 for n in g[leaf.name] if g.nodes[n]["kind"] == "switch") == spines


def test_oversubscription_sets_uplink_rate() -> None:
    t = leaf_spine(4, 2, 8, oversubscription=2.0, host_rate_bps=25 * 10**9)
    # 8 x 25G down, 2 uplinks: 200G / (2 * 2) = 50G each
    assert {lk.rate_bps for lk in t.links} == {50 * 10**9}
    assert {h.rate_bps for h in t.hosts} == {25 * 10**9}


@pytest.mark.parametrize("k", [2, 4, 6, 8])
def test_fat_tree_shape(k: int) -> None:
    t = fat_tree(k)
    assert len(t.hosts) == k**3 // 4
    roles = [s.role for s in t.switches]
    assert roles.count("edge") == roles.count("agg") == k * k // 2
    assert roles.count("core") == k * k // 4
    assert len(t.links) == k**3 // 2
    g = t.graph()
    sw = g.subgraph(s.name for s in t.switches)
    # every switch has k ports in use (edge: k/2 hosts + k/2 aggs)
    assert all(g.degree(s.name) == k for s in t.switches)
    assert nx.is_connected(sw)
    # any two edge switches of different pods are 4 hops apart, of the same pod 2
    assert nx.shortest_path_length(sw, "pod0-edge0", f"pod{k - 1}-edge0") == 4
    if k > 2:
        assert nx.shortest_path_length(sw, "pod0-edge0", "pod0-edge1") == 2


def test_multi_plane_servers_have_one_nic_per_plane() -> None:
    t = fat_tree(4, planes=3)
    assert t.planes == (0, 1, 2)
    servers = t.servers()
    assert len(servers) == 16
    for nics in servers.values():
        assert sorted(n.plane for n in nics) == [0, 1, 2]
        assert len({n.ip for n in nics}) == 3
        assert len({t.switch(n.switch).plane for n in nics}) == 3
    g = t.graph()
    sw = g.subgraph(s.name for s in t.switches)
    assert nx.number_connected_components(sw) == 3


def test_port_numbers_skip_the_cpu_port() -> None:
    assert [port_number(i) for i in (0, 253, 254, 255)] == [1, 254, 256, 257]
    t = leaf_spine(300, 1, 1)
    spine = t.switch("spine1")
    ports = sorted(t.port_to(spine.name, f"leaf{i + 1}") for i in range(300))
    assert 255 not in ports and ports[-1] == 301


def test_grpc_addresses_dropped_when_they_do_not_fit() -> None:
    t = leaf_spine(2, 2, 1, grpc_base_port=65534)
    assert all(s.grpc_addr is None for s in t.switches)


def test_bad_generator_arguments() -> None:
    with pytest.raises(TopologyError, match="even"):
        fat_tree(5)
    with pytest.raises(TopologyError, match="spines"):
        leaf_spine(2, 0, 1)
    with pytest.raises(TopologyError, match="hosts per leaf"):
        leaf_spine(2, 2, 300)


def test_topology_equality_ignores_index() -> None:
    assert leaf_spine(2, 2, 2) == leaf_spine(2, 2, 2)
    assert isinstance(leaf_spine(2, 2, 2), Topology)


@pytest.mark.parametrize(
    ("file", "expected"),
    [
        ("leaf-spine-2x2.yaml", lambda: leaf_spine(2, 2, 2)),
        ("leaf-spine-4x4.yaml", lambda: leaf_spine(4, 4, 4)),
        ("fat-tree-k4.yaml", lambda: fat_tree(4)),
        ("leaf-spine-2x2-2planes.yaml", lambda: leaf_spine(2, 2, 2, planes=2)),
    ],
)
def test_ready_files_match_their_generator(file: str, expected) -> None:
    from pathlib import Path

    from controller.topology import load_topology

    path = Path(__file__).resolve().parents[2] / "topologies" / file
    assert load_topology(path) == expected()
