"""Packet accounting over a finished fabricsim run, shared by the tests that check it."""

from __future__ import annotations

from typing import Any

from fabricsim.frames import FlowFrames
from fabricsim.network import Network


def assert_conserved(net: Network, r: dict[str, Any]) -> int:
    """Every packet a host sent (and every CNP a switch made) was received, dropped by a
    switch, lost on a link or taken by a switch's CPU port or watchdog; every packet put
    on a wire arrived at a switch's pipeline or a host. Returns the switches' drops."""
    host_wires = [h.wire for h in net.hosts.values()]
    sent = sum(w.packets + w.lost for w in host_wires if w is not None)
    received = sum(h.received for h in net.hosts.values())
    switch_drops = sum(s.sw.dropped for s in net.switches.values())
    lost = sum(w.lost for w in net.wires.values())
    cpu = sum(s.cpu_packets + s.storm_drops for s in net.switches.values())
    assert sent + r["cnps"] == received + switch_drops + lost + cpu
    on_wires = sum(w.packets for w in net.wires.values())
    assert on_wires == sum(s.pipeline_runs for s in net.switches.values()) + received
    return switch_drops


def flow_frames(**kw: Any) -> FlowFrames:
    """One flow's frames between two hosts on different leaves (`kw` overrides)."""
    args: dict[str, Any] = {
        "src_mac": "00:00:00:00:00:01",
        "src_gw": "00:00:00:00:01:00",
        "src_ip": "10.0.1.1",
        "dst_mac": "00:00:00:00:00:02",
        "dst_gw": "00:00:00:00:02:00",
        "dst_ip": "10.0.2.1",
        "sport": 49152,
        "payload": 1_000,
        "last_payload": 100,
        "data_qp": 1,
        "ack_qp": 2,
        "dscp": 0,
    } | kw
    return FlowFrames.build(**args)
