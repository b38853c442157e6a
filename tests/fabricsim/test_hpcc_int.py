"""HPCC closed-loop on what fabric.p4 stamps: every data flow is INT-watched, the sink's
reports are echoed in ACKs (fabricsim.int_echo), and the window reacts to them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from controller.topology.generators import leaf_spine
from fabricsim.frames import ACK_LEN, ip_checksum
from fabricsim.int_echo import HOP_BYTES, decode_hops, encode_hops
from fabricsim.network import NetParams, Network
from fabricsim.run import SimConfig, simulate
from fabricsim.transports import IntHop, PathInfo, make_transport, reads_int
from fabricsim.transports.hpcc import Hpcc
from softswitch.codegen.program import CompiledProgram

from .accounting import assert_conserved, flow_frames
from .test_sim import strip

INCAST = SimConfig(workload="incast", mode="ecmp", transport="hpcc", flow_bytes=200_000)


class Trace:
    """Every ACK's hop records and the window after it, per HPCC instance."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.hops: dict[int, list[tuple[IntHop, ...]]] = {}
        self.windows: dict[int, list[float]] = {}
        self.w_init: dict[int, float] = {}
        orig = Hpcc.on_ack
        trace = self

        def on_ack(
            cc: Hpcc, now: int, acked: int, ece: bool, rtt: int | None, hops: Sequence[IntHop]
        ) -> None:
            orig(cc, now, acked, ece, rtt, hops)
            if hops:
                trace.hops.setdefault(id(cc), []).append(tuple(hops))
            trace.windows.setdefault(id(cc), []).append(cc.W)
            trace.w_init[id(cc)] = cc.w_init

        monkeypatch.setattr(Hpcc, "on_ack", on_ack)


def test_incast_hops_reach_hpcc_and_its_window_drops(
    program: CompiledProgram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four senders into one host: each HPCC sender gets the three hops of its path
    (first leaf, spine, last leaf) with growing txBytes and microsecond timestamps, and
    cuts its window well below the BDP it starts with (the fair share is a quarter);
    without INT the same senders never leave their initial window."""
    topo = leaf_spine(2, 2, 4)
    trace = Trace(monkeypatch)
    r = simulate(topo, INCAST, program=program)
    assert r["flows_completed"] == 4
    echo = r["int_echo"]
    assert echo["filed"] > 4 * 100 and echo["undecodable"] == 0
    assert len(trace.hops) == 4
    for key, seen in trace.hops.items():
        assert {len(h) for h in seen} == {3}
        for j in range(3):
            tx = [h[j].tx_bytes for h in seen]
            assert all(b >= a for a, b in zip(tx, tx[1:], strict=False)) and tx[-1] > tx[0]
            assert all(h[j].ts_ns % 1000 == 0 for h in seen)
        assert [h.rate_bps for h in seen[0]] == [200e9, 200e9, 100e9]  # uplinks, host port
        assert min(trace.windows[key]) < 0.5 * trace.w_init[key]
    monkeypatch.undo()
    trace = Trace(monkeypatch)
    r = simulate(topo, replace(INCAST, int_telemetry=False), program=program)
    assert r["flows_completed"] == 4 and r["int_echo"] is None
    assert not trace.hops
    assert all(set(w) == {trace.w_init[k]} for k, w in trace.windows.items())


def test_hpcc_with_int_is_repeatable(program: CompiledProgram) -> None:
    topo = leaf_spine(2, 2, 2)
    cfg = SimConfig(workload="permutation", mode="spray", transport="hpcc", flow_bytes=60_000)
    a = simulate(topo, cfg, program=program)
    b = simulate(topo, cfg, program=program)
    assert a["flows_completed"] == 4 and a["int_echo"]["filed"] > 0
    assert strip(a) == strip(b)
    assert strip(simulate(topo, replace(cfg, seed=2), program=program)) != strip(a)


def test_every_packet_accounted_for_with_int_echo(program: CompiledProgram) -> None:
    """With INT on every flow (reports are clones the sink sends to the collector port):
    what hosts sent plus the CNPs equals what hosts received plus every drop; each data
    packet a host received untrimmed had its records filed, and a filed record without
    a packet is one the sink's queue then dropped."""
    topo = leaf_spine(2, 2, 4)
    nets: list[Network] = []
    cfg = replace(INCAST, flow_bytes=60_000, net=NetParams(queue_depth=16), drain=True)
    r = simulate(topo, cfg, program=program, on_network=nets.append)
    net = nets[0]
    assert r["flows_completed"] == 4
    assert_conserved(net, r)
    rx = [rv for h in net.hosts.values() for rv in h.receivers.values()]
    data = sum(rv.arrivals - rv.trimmed for rv in rx)
    filed = r["int_echo"]["filed"]
    assert data <= filed <= data + r["drops_by_cause"]["queue_full"]
    assert all(not rv.echo for rv in rx)  # every record filed went into an ACK


def test_ack_carries_the_echo_with_lengths_and_checksum_fixed() -> None:
    frames = flow_frames(sport=0xC001, ack_sport=0x8001)
    hops = (IntHop(3, 1 << 31, 7_000, 100e9), IntHop(0, 5, 8_000, 400e9))
    plain = frames.ack(4, 3, False, False)
    ack = frames.ack(4, 3, False, False, encode_hops(hops))
    assert len(plain) == ACK_LEN and len(ack) == ACK_LEN + 2 * HOP_BYTES
    assert int.from_bytes(ack[34:36], "big") == 0x8001  # the ACK's own source port
    assert int.from_bytes(ack[16:18], "big") == int.from_bytes(plain[16:18], "big") + 40
    assert int.from_bytes(ack[38:40], "big") == int.from_bytes(plain[38:40], "big") + 40
    assert ip_checksum(ack[14:34]) == 0  # a header with its checksum sums to zero
    assert decode_hops(ack[58:-4]) == hops


def test_only_hpcc_reads_int() -> None:
    assert reads_int("hpcc")
    assert not any(reads_int(t) for t in ("dcqcn", "dctcp", "ndp", "none", "tcp"))


def test_hpcc_acks_travel_in_the_header_class_and_are_never_cut(
    program: CompiledProgram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ACK echoing three hops is past fabric.p4's small-packet bound: in the data class
    a trimming switch cuts it (its AETH lost). HPCC's ACKs carry the trim DSCP, so the
    same Poisson run, whose ACKs share queues above the trim threshold with data, loses
    none; in the data class it loses dozens."""
    assert make_transport("hpcc", PathInfo(100e9, 10_000, 1_500)).control_in_header_class
    topo = leaf_spine(2, 2, 4)
    cfg = SimConfig(
        workload="poisson",
        transport="hpcc",
        flow_bytes=60_000,
        poisson_flows=40,
        load=0.7,
        trim_threshold=8,
    )

    def acks_lost() -> int:
        nets: list[Any] = []
        r = simulate(topo, cfg, program=program, on_network=nets.append)
        assert r["flows_completed"] == 40
        return sum(h.acks_lost for h in nets[0].hosts.values())

    assert acks_lost() == 0
    monkeypatch.setattr(Hpcc, "control_in_header_class", False)
    assert acks_lost() > 10
