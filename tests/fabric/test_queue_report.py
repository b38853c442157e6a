"""Queue reports: a packet that waited behind `threshold` packets or more in its egress
queue makes the switch send a postcard to the collector (Telemetry Report v2.0, Q=1): the
switch, the ports, the hop latency, the queue id and occupancy, and the packet's first
bytes as it left. At most one report per port per interval. On a SimClock, a burst into a
port served at 1000 packets/s: packet i finds i - 1 packets queued."""

from __future__ import annotations

import pytest

from controller.lb import IntCollector
from controller.telemetry import FlowKey, QueueReport, decode_alert_frame
from softswitch.program_info import CompiledProgram

from .fabric import Fabric
from .packets import Frame, route

ROUTER = "00:00:00:00:aa:01"
NH = "00:00:00:00:02:02"
COLLECTOR = IntCollector("10.0.0.100", "00:00:00:00:cc:cc", src_port=40000)
SWITCH_ID = 5
REPORT_PORT = 3


@pytest.fixture
def fab(program: CompiledProgram) -> Fabric:
    f = Fabric(program, router_mac=ROUTER)
    f.add_ecmp_route("10.0.2.0/24", 1, [2])
    f.sw.tm.set_rate(port=2, pps=1000)
    f.sw.tm.set_depth(64, port=2)
    f.add_int_report(REPORT_PORT, "10.0.0.1", COLLECTOR)
    return f


def burst(fab: Fabric, n: int, gap_us: int = 0) -> tuple[list[bytes], list[QueueReport]]:
    for i in range(n):
        fab.inject(1, Frame(sport=i, payload=bytes(200)).bytes())
        if gap_us:
            fab.advance(gap_us)
    out = fab.advance(1_000_000)
    data = [d for p, d in out if p == 2]
    reports = []
    for p, d in out:
        if p == REPORT_PORT:
            rep = decode_alert_frame(d)
            assert isinstance(rep, QueueReport)
            reports.append(rep)
    assert [p for p, _ in out if p not in (2, REPORT_PORT)] == []
    return data, reports


def test_the_first_packet_at_the_threshold_is_reported(fab: Fabric) -> None:
    fab.insert(fab.enc.queue_report(2, SWITCH_ID, 4, 1_000_000))
    data, reports = burst(fab, 10)
    assert len(data) == 10
    (rep,) = reports  # one per interval, although packets 5..9 all queued behind 4+
    assert rep.node_id == SWITCH_ID
    assert (rep.ingress_port, rep.egress_port, rep.queue_id) == (1, 2, 0)
    assert rep.queue_occupancy == 4  # packet 5: the first to find 4 ahead of it
    assert rep.hop_latency_ns == 5_000_000  # it left at 5 ms, served one per ms
    assert rep.flow == FlowKey("10.0.1.1", "10.0.2.1", 17, 5, 80)
    sent = route(Frame(sport=5, payload=bytes(200)), ROUTER, NH).bytes()
    assert rep.inner == sent[:128] and data[5] == sent  # the packet itself is unchanged


def test_one_report_per_interval_while_congested(fab: Fabric) -> None:
    fab.insert(fab.enc.queue_report(2, SWITCH_ID, 1, 2500))
    _, reports = burst(fab, 12)
    # packet i (i >= 2) leaves at i ms; reports at most every 2.5 ms: packets 2, 5, 8, 11
    assert [r.queue_occupancy for r in reports] == [1, 4, 7, 10]
    assert [r.seq for r in reports] == [reports[0].seq + k for k in range(4)]


def test_no_report_below_the_threshold_or_without_an_entry(fab: Fabric) -> None:
    _, reports = burst(fab, 10)
    assert reports == []
    fab.insert(fab.enc.queue_report(2, SWITCH_ID, 20, 0))
    _, reports = burst(fab, 10)
    assert reports == []
