"""Drop reports: a packet ingress drops is reported to the collector (Telemetry Report
v2.0, D=1) with the switch, the port it came in on, the reason and its first bytes; one
report per reason per interval, the rest only counted.

    h1 --1[s1]2-- (routes to 10.0.2.0/24)        collector on port 3
"""

from __future__ import annotations

import pytest

from controller.lb import IntCollector
from controller.telemetry import FlowKey, ReportError, decode_drop_report_frame
from controller.telemetry.int_report import decode_report_frame
from softswitch.program_info import CompiledProgram

from .fabric import Fabric, next_hop_mac
from .packets import Frame, ipv4_header

COLLECTOR = IntCollector("10.0.0.100", "00:00:00:00:cc:cc", udp_port=32766, src_port=40000)
SWITCH_ID = 7
REPORT_PORT = 3
GAP_US = 100


@pytest.fixture
def fab(program: CompiledProgram) -> Fabric:
    f = Fabric(program, start_us=1000)
    f.add_ecmp_route("10.0.2.0/24", 1, [2])
    f.add_route_action("10.0.4.0/24", "drop_route")
    f.add_int_report(REPORT_PORT, "10.0.0.1", COLLECTOR)
    return f


def _reports(out: list[tuple[int, bytes]]) -> list[bytes]:
    assert all(p == REPORT_PORT for p, _ in out), out
    return [d for _, d in out]


def test_blackholed_packet_is_reported_with_reason_port_and_headers(fab: Fabric) -> None:
    fab.add_drop_report(SWITCH_ID, GAP_US)
    sent = Frame(dst="10.0.4.9", sport=4321, dport=4791, payload=bytes(300)).bytes()
    (frame,) = _reports(fab.send(1, sent))
    rep = decode_drop_report_frame(frame)
    assert rep.node_id == SWITCH_ID
    assert rep.ingress_port == 1
    assert rep.egress_port == 511
    assert rep.reason == fab.c.drop_reasons["ROUTE_BLACKHOLE"]
    assert rep.flow == FlowKey("10.0.1.1", "10.0.4.9", 17, 4321, 4791)
    assert rep.inner == sent[:128]  # cut to what a report keeps
    outer = ipv4_header(frame)
    assert outer["total_len"] == len(frame) - 14 == 20 + 8 + 20 + 8 + 128
    assert frame[14 + 20 + 8 + 9] == 2 + 2 + 32  # rep_len: main contents, metadata, inner
    assert fab.drops("ROUTE_BLACKHOLE") == 1


def test_one_report_per_reason_per_interval(fab: Fabric) -> None:
    fab.add_drop_report(SWITCH_ID, GAP_US)
    drop = Frame(dst="10.0.4.9").bytes()
    miss = Frame(dst="10.0.9.9").bytes()
    first = decode_drop_report_frame(_reports(fab.send(1, drop))[0])
    assert fab.send(1, drop) == []  # within the interval: counted only
    other = _reports(fab.send(2, miss))  # another reason has its own interval
    assert decode_drop_report_frame(other[0]).reason == fab.c.drop_reasons["NO_ROUTE"]
    assert decode_drop_report_frame(other[0]).ingress_port == 2
    fab.advance(GAP_US)
    again = decode_drop_report_frame(_reports(fab.send(1, drop))[0])
    assert again.seq == first.seq + 2
    assert fab.drops("ROUTE_BLACKHOLE") == 3


def test_only_the_reasons_with_an_entry_are_reported(fab: Fabric) -> None:
    fab.add_drop_report(SWITCH_ID, GAP_US, "TTL_EXPIRED")
    assert fab.send(1, Frame(dst="10.0.4.9").bytes()) == []
    (frame,) = _reports(fab.send(1, Frame(ttl=1).bytes()))
    assert decode_drop_report_frame(frame).reason == fab.c.drop_reasons["TTL_EXPIRED"]
    assert fab.drops("ROUTE_BLACKHOLE") == 1


def test_short_and_tcp_packets_are_reported_whole(fab: Fabric) -> None:
    fab.add_drop_report(SWITCH_ID, 0)
    sent = Frame(dst="10.0.4.9", l4="tcp", sport=5, dport=6, payload=b"").bytes()
    (frame,) = _reports(fab.send(1, sent))
    rep = decode_drop_report_frame(frame)
    assert rep.inner == sent
    assert rep.flow == FlowKey("10.0.1.1", "10.0.4.9", 6, 5, 6)


def test_forwarded_packets_give_no_report_and_no_entry_means_none(fab: Fabric) -> None:
    out = fab.send(1, Frame().bytes())
    assert [p for p, _ in out] == [2]
    assert fab.send(1, Frame(dst="10.0.4.9").bytes()) == []  # no drop_reasons entry
    fab.add_drop_report(SWITCH_ID, 0)
    out = fab.send(1, Frame().bytes())
    assert [p for p, _ in out] == [2] and out[0][1][:6] == bytes.fromhex(
        next_hop_mac(2).replace(":", "")
    )


def test_drop_and_int_decoders_refuse_each_others_reports(fab: Fabric) -> None:
    fab.add_drop_report(SWITCH_ID, 0)
    (frame,) = _reports(fab.send(1, Frame(dst="10.0.4.9").bytes()))
    with pytest.raises(ReportError, match="not IP|INT"):
        decode_report_frame(frame)
    cleared = bytearray(frame)
    cleared[14 + 20 + 8 + 11] &= 0x7F  # the D flag
    with pytest.raises(ReportError, match="D and Q flags clear"):
        decode_drop_report_frame(bytes(cleared))
    with pytest.raises(ReportError, match="needs 28 bytes"):
        decode_drop_report_frame(frame[: 14 + 20 + 8 + 24])
