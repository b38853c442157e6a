"""Wiring a topology into UDP-over-loopback cables: each cable's two ends name each other,
hosts get their own end, every switch a collector port, addresses kept or allocated."""

from __future__ import annotations

from controller.fabric.wiring import COLLECTOR_PORT, plan_wiring
from softswitch.ports.udp import parse_udp_spec


def test_cables_point_at_each_other() -> None:
    w = plan_wiring(
        [("leaf1", 1, None), ("spine1", 2, "127.0.0.1:50999")],
        [("leaf1", 3, "spine1", 1)],
        [("h1", "leaf1", 1)],
    )
    leaf = dict(w.switches["leaf1"].ports)
    spine = dict(w.switches["spine1"].ports)
    up, down = parse_udp_spec(leaf[3]), parse_udp_spec(spine[1])
    assert up.remote == down.local and down.remote == up.local
    h1 = w.hosts["h1"]
    access = parse_udp_spec(leaf[1])
    assert access.remote == h1.address and access.local == h1.switch_address
    for sw in w.switches.values():
        assert sw.collector_port == COLLECTOR_PORT
        assert parse_udp_spec(dict(sw.ports)[COLLECTOR_PORT]).remote == w.collector
    assert w.switches["spine1"].grpc_addr == "127.0.0.1:50999"
    assert w.switches["leaf1"].grpc_addr.startswith("127.0.0.1:")
    locals_ = [parse_udp_spec(s).local for sw in w.switches.values() for _, s in sw.ports]
    assert len(set(locals_)) == len(locals_) == 5
    assert w.switches["leaf1"].interface_args()[:2] == ["-i", f"1@{leaf[1]}"]


def test_collector_port_avoids_ports_in_use() -> None:
    w = plan_wiring(
        [("s", 1, None), ("t", 2, None)], [("s", COLLECTOR_PORT, "t", 1)], [], ("127.0.0.1", 9)
    )
    assert w.switches["s"].collector_port == COLLECTOR_PORT - 1
    assert w.switches["t"].collector_port == COLLECTOR_PORT
    assert w.collector == ("127.0.0.1", 9)
