"""The mirror sessions of the TNA build (p4src/tna), numbered as its P4 source numbers
them: the encoder writes the same table entries for v1model and TNA, but CNP sessions,
their truncation, the depth-report, trim and alert (drop and queue report) sessions
differ by target."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller import CloneSession, P4Schema, TableEntry
from controller.entities import Replica
from controller.fabric import Pipeline
from controller.lb import FabricConstants, FabricEncoder, Policy
from controller.lb.from_topology import switch_intent
from controller.lb.intent import NextHop, PortRole, RouteGroup, SwitchIntent
from controller.lb.policy import Cnp, GroupMode, IntCollector, IntPolicy, Trim
from controller.routing import compute_routes
from controller.topology import load_topology

ROOT = Path(__file__).resolve().parents[2]


def test_cnp_sessions_per_target() -> None:
    v1 = FabricConstants.load()
    t1 = FabricConstants.load(target="tofino")
    t2 = FabricConstants.load(target="tofino2")
    assert v1.cnp_session(5) == v1["CNP_SESSION_BASE"] + 5 and v1.cnp_truncate_bytes == 0
    assert t1.cnp_session(5) == t1["CNP_SESSION_BASE_TNA"] + 5 and t1.cnp_truncate_bytes == 74
    # Tofino 2: 8-bit ids, the port's pipe-local low 7 bits
    assert t2.cnp_session(2) == t2.cnp_session(130) == 130 and t2.cnp_truncate_bytes == 0
    t1_ids = [t1.cnp_session(p) for p in range(512)]
    assert len(set(t1_ids)) == 512 and max(t1_ids) < 1 << 10  # MirrorId_t: 10 bits
    assert min(t1_ids) > t1["DEPTH_REPORT_SESSION"]
    assert all(128 <= t2.cnp_session(p) < 1 << 8 for p in range(512))
    assert v1.depth_report_port is None
    assert t1.depth_report_port == t1["DEPTH_REPORT_PORT"] == 68
    assert FabricConstants.load(target="tofino", depth_report_port=196).depth_report_port == 196
    with pytest.raises(ValueError, match="one of v1model, tofino, tofino2"):
        FabricConstants.load(target="tofino3")
    with pytest.raises(ValueError, match="the TNA build's"):
        FabricConstants.load(depth_report_port=68)


def _sessions(pipeline: Pipeline, target: str, policy: Policy) -> list[CloneSession]:
    topo = load_topology(ROOT / "topologies" / "leaf-spine-2x2.yaml")
    routes = compute_routes(topo)
    enc = FabricEncoder(P4Schema(pipeline.p4info), FabricConstants.load(target=target))
    intent = switch_intent(topo, routes.switch_routes("leaf1"))
    ents = enc.switch_entities(intent, policy)
    return [e for e in ents if isinstance(e, CloneSession)]


def test_encoder_writes_each_targets_sessions(pipeline: Pipeline) -> None:
    cnp = Policy(cnp=Cnp(queue_threshold=40, interval_us=50, dscp=48))
    v1 = _sessions(pipeline, "v1model", cnp.with_mode(GroupMode("adaptive")))
    t1 = _sessions(pipeline, "tofino", cnp.with_mode(GroupMode("adaptive")))
    t2 = _sessions(pipeline, "tofino2", cnp)
    ports = sorted(s.replicas[0].port for s in v1)
    assert [s.session_id for s in v1] == [1024 + p for p in ports]
    assert all(s.packet_length_bytes == 0 for s in v1)
    # adaptive groups on TNA learn depths from reports mirrored to the recirculation port
    assert t1[0] == CloneSession(2, (Replica(68),), packet_length_bytes=64)
    assert [(s.session_id, s.packet_length_bytes) for s in t1[1:]] == [(512 + p, 74) for p in ports]
    # ECMP without trimming reads no depths: no report session
    assert [s.session_id for s in t2] == [128 | (p & 0x7F) for p in ports]


def test_tofino1_trim_sessions_are_numbered_as_trim_p4() -> None:
    """Tofino 1 mirrors trimmed packets to a session per front-panel port (256 + pipe * 64
    + low 6 bits): distinct, clear of CNP's, depth reports' and INT's sessions, cut to the
    1-byte mirror header plus the 74 bytes trim.p4 keeps."""
    t1 = FabricConstants.load(target="tofino")
    assert t1["TRIM_SESSION_BASE_TNA"] == 256 and t1["TRIM_KEEP_BYTES_TNA"] == 74
    front = [pipe << 7 | p for pipe in range(4) for p in range(64)]
    ids = [t1.trim_session(p) for p in front]
    assert ids[:2] == [256, 257] and t1.trim_session(130) == 256 + 64 + 2
    assert len(set(ids)) == 256 and min(ids) == 256 and max(ids) < t1["CNP_SESSION_BASE_TNA"]
    assert not {t1.int_report_session, t1["DEPTH_REPORT_SESSION"]} & set(ids)
    assert t1.trim_truncate_bytes == 75
    for port in (64, 68, 199, 512):  # CPU/recirculation ports, out of range
        with pytest.raises(ValueError, match="front-panel"):
            t1.trim_session(port)
    for target in ("v1model", "tofino2"):
        with pytest.raises(ValueError, match="Tofino 1 only"):
            FabricConstants.load(target=target).trim_session(1)


def test_encoder_writes_trim_sessions_for_tofino1_only(pipeline: Pipeline) -> None:
    trim = Policy(trim=Trim(queue_threshold=20, dscp=46, priority=5))
    t1 = _sessions(pipeline, "tofino", trim)
    t2 = _sessions(pipeline, "tofino2", trim)
    v1 = _sessions(pipeline, "v1model", trim)
    # both TNA chips learn port depths from reports; only Tofino 1 mirrors trimmed copies
    assert t1[0] == t2[0] == CloneSession(2, (Replica(68),), packet_length_bytes=64)
    assert v1 == [] and len(t2) == 1
    ports = [s.replicas[0].port for s in t1[1:]]
    assert ports and all(p < 64 for p in ports)
    assert t1[1:] == [
        CloneSession(256 + p, (Replica(p),), class_of_service=5, packet_length_bytes=75)
        for p in ports
    ]


def _spine_with_reports(pipeline: Pipeline, target: str, drops: bool, queues: bool) -> list[Any]:
    """A spine (no hosts) with drop and/or queue reports to a collector behind port 2."""
    col = IntCollector(
        ip="10.0.0.100",
        mac="00:00:00:00:64:01",
        truncate_bytes=200,
        drop_report_gap_us=500 if drops else 0,
        queue_report_threshold=8 if queues else 0,
        queue_report_gap_us=50,
    )
    spine = SwitchIntent(
        name="spine1",
        router_mac="00:00:00:00:aa:01",
        ports=(PortRole(1), PortRole(2)),
        groups=(RouteGroup(1, ("10.0.2.0/24",), (NextHop(1, "00:00:00:00:01:01"),)),),
        switch_id=21,
        report_ip="10.255.0.21",
        collector_port=2,
        collector_next_hop_mac="00:00:00:00:64:01",
    )
    enc = FabricEncoder(P4Schema(pipeline.p4info), FabricConstants.load(target=target))
    return enc.switch_entities(spine, Policy(int_md=IntPolicy(collector=col)))


@pytest.mark.parametrize(("drops", "queues"), [(True, True), (True, False), (False, True)])
def test_drop_and_queue_reports_are_the_same_entries_with_a_tna_alert_session(
    pipeline: Pipeline, drops: bool, queues: bool
) -> None:
    """drop_reasons and queue_report_config are written for Tofino as for v1model; TNA
    adds the alert session (INT_ALERT_SESSION_TNA, tna/include/metadata.p4) toward the
    collector, cut to the 19-byte mirror header and the 128 bytes a report keeps."""
    v1 = _spine_with_reports(pipeline, "v1model", drops, queues)
    v1_tables = {e.table.rsplit(".", 1)[-1] for e in v1 if isinstance(e, TableEntry)}
    assert ("drop_reasons" in v1_tables) == drops
    assert ("queue_report_config" in v1_tables) == queues
    assert [s.session_id for s in v1 if isinstance(s, CloneSession)] == [1]
    for target in ("tofino", "tofino2"):
        tna = _spine_with_reports(pipeline, target, drops, queues)
        assert [e for e in tna if isinstance(e, TableEntry)] == [
            e for e in v1 if isinstance(e, TableEntry)
        ]
        sessions = [s for s in tna if isinstance(s, CloneSession)]
        assert sessions == [
            CloneSession(1, (Replica(2),), packet_length_bytes=200),
            CloneSession(3, (Replica(2),), packet_length_bytes=19 + 128),
        ]
    c = FabricConstants.load(target="tofino")
    assert c.alert_session == c["INT_ALERT_SESSION_TNA"] == 3
    assert c.alert_session not in {c.int_report_session, c["DEPTH_REPORT_SESSION"]}
    assert c.alert_session < c["TRIM_SESSION_BASE_TNA"]  # clear of trim's and CNP's
    assert FabricConstants.load().alert_session is None


def test_no_alert_session_without_drop_or_queue_reports(pipeline: Pipeline) -> None:
    sessions = [
        s
        for s in _spine_with_reports(pipeline, "tofino", False, False)
        if isinstance(s, CloneSession)
    ]
    assert sessions == []  # a spine with neither: no reports at all
