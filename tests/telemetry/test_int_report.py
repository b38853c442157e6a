"""The INT report decoder and collector on reports that fabric.p4 produced on softswitch
(the three-switch chain of tests/fabric/test_int.py: s1 source, s2 transit, s3 sink)."""

from __future__ import annotations

import socket
import struct

import pytest

from controller.telemetry import IntCollector, ReportError, decode_report, decode_report_frame
from softswitch.program_info import CompiledProgram
from tests.fabric.packets import Frame
from tests.fabric.test_int import ALL_SUPPORTED, chain, through


def test_decodes_every_hop_in_path_order(program: CompiledProgram) -> None:
    s1, s2, s3 = chain(program)
    s2.add_route("10.0.9.0/24", 1)
    s2.sw.tm.set_rate(port=2, pps=1000)
    out1 = s1.send(1, Frame(sport=777, dport=4444).bytes())
    s2.inject(3, Frame(dst="10.0.9.1", dmac="00:00:00:00:aa:02").bytes())  # queued first
    s2.inject(1, out1[0][1])
    out2 = s2.advance(10_000)
    report_frame = dict(s3.send(1, out2[1][1]))[3]

    rep = decode_report_frame(report_frame)
    assert (rep.seq, rep.node_id) == (0, 3)
    assert (rep.flow.src, rep.flow.dst, rep.flow.protocol) == ("10.0.1.1", "10.0.2.1", 17)
    assert (rep.flow.sport, rep.flow.dport) == (777, 4444)  # original dport from the shim
    assert [h.switch_id for h in rep.hops] == [1, 2, 3]
    assert [(h.ingress_port, h.egress_port) for h in rep.hops] == [(1, 2)] * 3
    # each switch's SimClock starts at k ms; s2 held the packet 1 ms behind the other one
    assert [h.ingress_ts_ns for h in rep.hops] == [1_000_000, 2_000_000, 3_000_000]
    assert [h.hop_latency_ns for h in rep.hops] == [0, 1_000_000, 0]
    assert rep.hops[1].egress_ts_ns == 3_000_000
    assert [(h.queue_id, h.queue_occupancy) for h in rep.hops] == [(0, 0)] * 3
    assert rep.hops[0].l2_ingress_port is None  # not asked for by the bitmap
    assert not rep.hop_limit_exceeded and not rep.mtu_exceeded and rep.remaining_hops == 5


def test_all_instructions_and_sequence_numbers(program: CompiledProgram) -> None:
    switches = chain(program, ins=ALL_SUPPORTED)
    reps = [decode_report_frame(through(switches, Frame(sport=i).bytes())[3]) for i in range(3)]
    assert [r.seq for r in reps] == [0, 1, 2]
    hop = reps[0].hops[2]
    assert (hop.l2_ingress_port, hop.l2_egress_port) == (1, 2)
    assert (hop.buffer_id, hop.buffer_occupancy) == (0, 0)
    # txBytes (tx_bytes.p4): what s3's port 2 had sent before each packet, growing
    tx = [r.hops[2].tx_utilization for r in reps]
    assert tx[0] == 0 and tx[1] == tx[2] - tx[1] > 0
    assert reps[0].instructions == ALL_SUPPORTED


def test_hop_budget_flag(program: CompiledProgram) -> None:
    rep = decode_report_frame(through(chain(program, hops=2), Frame().bytes())[3])
    assert rep.hop_limit_exceeded and rep.remaining_hops == 0
    assert [h.switch_id for h in rep.hops] == [1, 2]


def test_rejects_what_is_not_a_report() -> None:
    with pytest.raises(ReportError, match="version 1, expected 2"):
        decode_report(struct.pack("!II", 1 << 28, 3) + bytes(12))
    with pytest.raises(ReportError, match="needs 20 bytes"):
        decode_report(b"\x20\x00")
    with pytest.raises(ReportError, match="expected IPv4"):
        decode_report_frame(bytes(12) + b"\x86\xdd" + bytes(60))


def test_collector_over_udp(program: CompiledProgram) -> None:
    switches = chain(program)
    frames = [through(switches, Frame(sport=i).bytes())[3] for i in range(4)]
    with IntCollector(framed=True) as c, IntCollector() as plain:
        got: list[int] = []
        c.add_listener(lambda r: got.append(r.flow.sport))
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(b"garbage", c.address)  # first: handled before the reports
            for f in frames:
                s.sendto(f, c.address)
            # a host collector gets the UDP payload: the report from its group header on
            s.sendto(frames[0][14 + 20 + 8 :], plain.address)
        assert c.wait_for(4, timeout=5) and plain.wait_for(1, timeout=5)
        assert sorted(got) == [0, 1, 2, 3]
        assert [h.switch_id for h in plain.reports()[0].hops] == [1, 2, 3]
        assert c.errors == 1 and "report encapsulation" in (c.last_error or "")
