"""Counter polling and Prometheus metrics against an in-process fabric.p4 switch carrying
real packets: port counters, per-member spread, drops by reason, INT hop latency."""

from __future__ import annotations

import time

from controller import P4RuntimeSession, codec
from controller.fabric import Pipeline
from controller.lb import FabricConstants
from controller.telemetry import FabricMetrics, PortInfo, poll_counters
from controller.telemetry.int_report import FlowKey, HopRecord, IntReport
from tests.fabric.packets import Frame

from .conftest import LocalSwitch

ROUTER = "00:00:00:00:aa:01"


def program(s: P4RuntimeSession) -> None:
    sc = s.schema
    s.insert(
        codec.table_entry(sc, "my_station", {"eth_dst": ROUTER}, "set_routable"),
        codec.table_entry(
            sc, "routing_v4", {"ipv4_dst": "10.9.0.0/16"}, "set_next_hop_group", {"group_id": 5}
        ),
        codec.table_entry(
            sc, "next_hop_group", {"group_id": 5}, "use_ecmp", {"group_size": 2, "live_members": 3}
        ),
        *(
            codec.table_entry(
                sc,
                "next_hop_member",
                {"group_id": 5, "member_index": i},
                "set_next_hop",
                {"port": 1 + i, "smac": ROUTER, "dmac": f"00:00:00:00:bb:0{i}"},
            )
            for i in (0, 1)
        ),
    )


def wait_out(sw: LocalSwitch, n: int, timeout: float = 10.0) -> dict[int, int]:
    got = {1: 0, 2: 0}
    deadline = time.monotonic() + timeout
    while sum(got.values()) < n and time.monotonic() < deadline:
        for p in (1, 2):
            while sw.ports[p].take(timeout=0) is not None:
                got[p] += 1
        time.sleep(0.01)
    return got


def test_poll_counters_and_metrics(
    local_switches: list[LocalSwitch], fabric_pipeline: Pipeline
) -> None:
    sw = local_switches[0]
    names = {n: k.lower() for k, n in FabricConstants.load().drop_reasons.items()}
    with P4RuntimeSession(sw.target.address, sw.device_id, election_id=5) as s:
        s.set_pipeline(fabric_pipeline.p4info, fabric_pipeline.device_config)
        program(s)
        ports = {
            1: PortInfo("spine1", 10**9),
            2: PortInfo("spine2", 10**9),
            3: PortInfo("h1", 10**9),
        }
        metrics = FabricMetrics({"s1": ports}, switch_ids={7: "s1"}, drop_names=names)
        metrics.update(poll_counters(s, "s1", ports))
        for i in range(40):
            sw.ports[3].feed(Frame(dst="10.9.1.1", dmac=ROUTER, sport=1000 + i).bytes())
        sw.ports[3].feed(Frame(dst="10.9.1.1", dmac="00:00:00:00:99:99").bytes())  # not ours
        out = wait_out(sw, 40)
        assert sum(out.values()) == 40 and min(out.values()) > 0  # ECMP used both members
        snap = poll_counters(s, "s1", ports)
        metrics.update(snap)

    assert snap.rx[3].packets == 41
    assert (snap.tx[1].packets, snap.tx[2].packets) == (out[1], out[2])
    assert [(m.group, m.index, m.port, m.packets) for m in snap.members] == [
        (5, 0, 1, out[1]),
        (5, 1, 2, out[2]),
    ]
    assert snap.drops[1].packets == 1 and snap.drops[2].packets == 0
    # every drop reason the counter holds (size from the P4Info) but 0, "no drop"
    assert sorted(snap.drops) == list(range(1, FabricConstants.load()["DROP_REASON_COUNT"]))

    rows = metrics.rows()
    shares = {r["member"]: r["share"] for r in rows["members"]}
    assert abs(shares[0] - out[1] / 40) < 1e-9 and abs(sum(shares.values()) - 1) < 1e-9
    link1 = next(r for r in rows["links"] if r["port"] == 1)
    assert link1["peer"] == "spine1" and link1["tx_packets"] == out[1] and link1["tx_bps"] > 0
    assert rows["switches"][0]["drops"] == {"not_router_mac": 1}

    metrics.on_report(
        IntReport(
            0,
            7,
            0,
            FlowKey("10.0.0.1", "10.9.1.1", 17, 1, 2),
            0xFC00,
            (HopRecord(switch_id=7, egress_port=1, hop_latency_ns=3000, queue_occupancy=4),),
            False,
            False,
            5,
            100,
        )
    )
    text = metrics.exposition().decode()
    assert (
        f'sprayfabric_port_tx_packets_total{{peer="spine1",port="1",switch="s1"}} {float(out[1])}'
        in text
    )
    assert 'sprayfabric_drops_total{reason="not_router_mac",switch="s1"} 1.0' in text
    assert 'sprayfabric_member_packets_total{group="5",member="0",port="1",switch="s1"}' in text
    assert 'sprayfabric_link_utilization_ratio{peer="spine1",port="1",switch="s1"}' in text
    assert 'sprayfabric_int_reports_total{switch="s1"} 1.0' in text
    assert 'sprayfabric_int_queue_occupancy_packets{port="1",switch="s1"} 4.0' in text
    assert 'sprayfabric_int_hop_latency_seconds_bucket{le="5e-06",switch="s1"} 1.0' in text
    assert 'sprayfabric_int_hop_latency_seconds_bucket{le="1e-06",switch="s1"} 0.0' in text
