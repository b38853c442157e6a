"""Topology files: every kind of mistake is reported with the file, the key and the
problem; dumps read back to equal topologies."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.topology import (
    Topology,
    TopologyError,
    dump_topology,
    load_topology,
    parse_topology,
)
from controller.topology.generators import fat_tree, leaf_spine

GOOD = """\
name: tiny
defaults: {rate: 100G, delay: 1us}
switches:
  - {name: leaf1, role: leaf, device_id: 1, grpc: "127.0.0.1:50001", subnets: [10.0.0.0/24]}
  - {name: leaf2, role: leaf, device_id: 2, grpc: "127.0.0.1:50002", subnets: [10.0.1.0/24]}
  - {name: spine1, role: spine, device_id: 3}
hosts:
  - {name: h1, ip: 10.0.0.1, mac: "00:00:0a:00:00:01", switch: leaf1, port: 1}
  - {name: h2, ip: 10.0.1.1, switch: leaf2, port: 1, rate: 25G, delay: 500ns}
links:
  - {a: leaf1, a_port: 2, b: spine1, b_port: 1, rate: 40G}
  - {a: leaf2, a_port: 2, b: spine1, b_port: 2, loss: 0.5%}
"""


def _error(text: str) -> TopologyError:
    with pytest.raises(TopologyError) as info:
        parse_topology(text, "fab.yaml")
    return info.value


def test_good_file_values() -> None:
    t = parse_topology(GOOD, "fab.yaml")
    assert [s.name for s in t.switches] == ["leaf1", "leaf2", "spine1"]
    assert t.switch("leaf1").grpc_addr == "127.0.0.1:50001"
    assert t.switch("spine1").grpc_addr is None
    assert t.switch("spine1").router_mac == "02:00:00:00:00:03"
    assert t.host("h1").mac == "00:00:0a:00:00:01"
    assert t.host("h2").mac == "06:00:0a:00:01:01"  # derived from the IP
    assert t.host("h2").rate_bps == 25 * 10**9 and t.host("h2").delay_ns == 500
    assert t.host("h1").rate_bps == 100 * 10**9 and t.host("h1").delay_ns == 1000
    assert t.links[0].rate_bps == 40 * 10**9
    assert t.links[1].loss == pytest.approx(0.005)
    assert t.port_to("leaf1", "spine1") == 2
    assert t.port_to("spine1", "leaf2") == 2
    assert t.neighbour_on("spine1", 1) == ("leaf1", 2)
    assert t.neighbour_on("leaf1", 1) == ("h1", 0)
    assert t.neighbour_on("leaf1", 9) is None
    assert [h.name for h in t.hosts_of("leaf2")] == ["h2"]
    assert t.hosts_of("spine1") == ()


@pytest.mark.parametrize(
    ("edit", "path", "words"),
    [
        (
            ("spine1, role: spine, device_id: 3", "leaf1, role: spine, device_id: 3"),
            "switches[2].name",
            "duplicate name 'leaf1'",
        ),
        (("device_id: 3", "device_id: 2"), "switches[2].device_id", "duplicate device id 2"),
        (("device_id: 3", "device_id: three"), "switches[2].device_id", "expected an integer"),
        (('"127.0.0.1:50002"', '"127.0.0.1:50001"'), "switches[1].grpc", "duplicate P4Runtime"),
        (('"127.0.0.1:50002"', '"localhost"'), "switches[1].grpc", "HOST:PORT"),
        (("10.0.1.0/24]", "10.0.0.128/25]"), "switches[1].subnets[0]", "overlaps"),
        (("10.0.1.0/24]", "10.0.1.1/24]"), "switches[1].subnets[0]", "host bits set"),
        (("ip: 10.0.1.1", "ip: 10.0.0.1"), "hosts[1].ip", "duplicate IP 10.0.0.1"),
        (("ip: 10.0.1.1", "ip: 10.0.9.1"), "hosts[1].ip", "not inside a subnet of leaf2"),
        (("ip: 10.0.1.1", "ip: 10.0.1"), "hosts[1].ip", "expected an IPv4 address"),
        (('mac: "00:00:0a:00:00:01"', 'mac: "00:00:0a:00:00"'), "hosts[0].mac", "MAC address"),
        (('mac: "00:00:0a:00:00:01"', 'mac: "02:00:00:00:00:02"'), "hosts[0].mac", "duplicate MAC"),
        (
            ("switch: leaf2, port: 1", "switch: leaf9, port: 1"),
            "hosts[1].switch",
            "unknown switch 'leaf9'",
        ),
        (
            ("switch: leaf2, port: 1", "switch: leaf2, port: 2"),
            "links[1].a_port",
            "port 2 of leaf2 is already used by hosts[1]",
        ),
        (("switch: leaf2, port: 1", "switch: leaf2, port: 255"), "hosts[1].port", "CPU port"),
        (("rate: 25G", "rate: 25Q"), "hosts[1].rate", "expected a rate like 100G"),
        (("rate: 40G", "rate: -4"), "links[0].rate", "positive"),
        (("delay: 500ns", "delay: 5 parsecs"), "hosts[1].delay", "expected a delay"),
        (("loss: 0.5%", "loss: 1.5"), "links[1].loss", "between 0 and 1"),
        (("b: spine1, b_port: 1", "b: spine9, b_port: 1"), "links[0].b", "unknown switch 'spine9'"),
        (("b: spine1, b_port: 1", "b: h2, b_port: 1"), "links[0].b", "h2 is a host"),
        (
            (
                "a: leaf2, a_port: 2, b: spine1, b_port: 2",
                "a: leaf1, a_port: 3, b: spine1, b_port: 2",
            ),
            "links[1]",
            "parallel links",
        ),
        (
            ("b_port: 2, loss", "b_port: 1, loss"),
            "links[1].b_port",
            "port 1 of spine1 is already used by links[0]",
        ),
        (("b_port: 2, loss", "b_port: 511, loss"), "links[1].b_port", "out of range"),
        (("b_port: 2, loss", "bport: 2, loss"), "links[1].bport", "unknown key 'bport'"),
        (("a: leaf1, a_port: 2, ", "a: leaf1, "), "links[0]", "missing key 'a_port'"),
        (("device_id: 3}", "device_id: 3, plane: 1}"), "links[0]", "joins plane 0"),
        (("name: tiny\n", ""), "name", "missing key 'name'"),
    ],
)
def test_errors_name_file_key_and_problem(edit: tuple[str, str], path: str, words: str) -> None:
    old, new = edit
    assert old in GOOD
    err = _error(GOOD.replace(old, new, 1))
    assert err.file == "fab.yaml"
    assert err.path == path
    assert words in err.message
    assert str(err).startswith(f"fab.yaml: {path}: ")


def test_unquoted_mac_read_as_number() -> None:
    err = _error(GOOD.replace('"00:00:0a:00:00:01"', "10:00:00:00:00:01"))
    assert err.path == "hosts[0].mac" and "in quotes" in err.message


def test_yaml_syntax_error_has_line_and_column() -> None:
    err = _error(GOOD.replace("switches:\n", "switches: [\n"))
    assert err.file.startswith("fab.yaml:") and err.file.count(":") == 2
    assert "invalid YAML" in err.message


def test_not_a_mapping() -> None:
    assert "expected a mapping" in _error("- a\n- b\n").message
    err = _error(GOOD.replace("  - {name: spine1, role: spine, device_id: 3}", "  - spine1"))
    assert err.path == "switches[2]"


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TopologyError, match="cannot read"):
        load_topology(tmp_path / "nope.yaml")


@pytest.mark.parametrize(
    "topo",
    [
        leaf_spine(2, 2, 2),
        leaf_spine(3, 2, 4, oversubscription=3, planes=2),
        fat_tree(4),
        fat_tree(4, planes=2),
    ],
    ids=lambda t: t.name,
)
def test_round_trip(topo: Topology, tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(dump_topology(topo))
    back = load_topology(path)
    assert back == topo
    assert dump_topology(back) == dump_topology(topo)


def test_round_trip_keeps_odd_values() -> None:
    t = parse_topology(GOOD.replace("name: tiny", 'name: "yes"'), "x")
    assert t.name == "yes"
    back = parse_topology(dump_topology(t), "y")
    assert back == t
    assert back.links[1].loss == pytest.approx(0.005)
    assert back.host("h1").mac == "00:00:0a:00:00:01"


@pytest.mark.parametrize(
    "entry",
    [
        "{name: yes, port: 1}",
        "{port: 010}",
        "{rate: 1e5}",
        "{loss: 1.5e-3}",
        "{a: -1}",
        "{x: .5}",
        "{x: 0x10}",
        "{x: 1_000}",
        "{x: 12:30}",
        "{x: ~}",
        "{x: null}",
        "{x: 'single'}",
        '{x: "tab\\there", y: "\\u00e9"}',
        "{x: a b}",
        "{x: [1, 2, yes]}",
        "{x: 2001-12-14}",
        "{x: 1.5G, y: 0.5us, z: 10.0.0.0/24, w: 10.1.2.3}",
        "{x: [], y: [a, b/c]}",
        "{x: 1, x: 2}",
        "{x: a, y: b c}",
        "{x: 1,y: 2}",
        "{x:1}",
        "{x: a: b}",
        "{x: a}b}",
        "{ x: 7 , y: h1 }",
    ],
)
def test_fast_reader_agrees_with_pyyaml(entry: str) -> None:
    import yaml

    from controller.topology.fastyaml import fast_load

    text = f"name: t\nlinks:\n  - {entry}\n  - {{a: b}}\n"
    got = fast_load(text)
    assert got is None or got == yaml.safe_load(text)


def test_fast_reader_reads_dumper_output() -> None:
    import yaml

    from controller.topology.fastyaml import fast_load

    text = dump_topology(fat_tree(4, planes=2))
    got = fast_load(text)
    assert got is not None and got == yaml.safe_load(text)


def test_the_documented_example_loads() -> None:
    import re

    doc = (Path(__file__).resolve().parents[2] / "docs" / "topology.md").read_text()
    block = re.search(r"```yaml\n(.*?)```", doc, re.S)
    assert block is not None
    t = parse_topology(block.group(1), "docs/topology.md")
    assert t.host("h2").rate_bps == 25 * 10**9
    assert t.link_between("leaf2", "spine1").loss == pytest.approx(0.001)  # type: ignore[union-attr]
