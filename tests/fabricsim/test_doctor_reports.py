"""Drop and queue reports as the doctor's evidence (fabricsim.alerts, fabricsim.doctor_reports):
a run with reports on records them in its JSON; a blackhole's drop reports come from its
switch and are cited by the top suspect (and raise it on their own); a hot port's queue
reports are named beside its counters; a healthy run, even an incast's standing queue,
makes no suspect of them; reports are off unless asked for."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from controller.topology import load_topology
from fabricsim.doctor import diagnose, format_report
from fabricsim.doctor_reports import hot_by_reports
from fabricsim.faults import parse_fault
from fabricsim.run import SimConfig, simulate

TOPOS = Path(__file__).resolve().parents[2] / "topologies"


@pytest.fixture(scope="module")
def topo():  # type: ignore[no-untyped-def]
    return load_topology(TOPOS / "leaf-spine-4x4.yaml")


def _run(topo: Any, *faults: str, reports: bool = True, **kw: Any) -> dict[str, Any]:
    cfg = SimConfig(
        flow_bytes=kw.pop("flow_bytes", 5_000),
        probes=True,
        time_limit_ns=300_000,
        faults=tuple(parse_fault(f) for f in faults),
        reports=reports,
        **kw,
    )
    return simulate(topo, cfg).to_dict()


def _rows(r: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [x for x in r["alerts"]["reports"] if x["type"] == kind]


@pytest.fixture(scope="module")
def blackhole(topo) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return _run(topo, "blackhole:spine1,10.0.2.0/24@0")


@pytest.fixture(scope="module")
def healthy(topo) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return _run(topo)


def test_blackhole_drop_reports_come_from_its_switch(blackhole: dict[str, Any]) -> None:
    drops = _rows(blackhole, "drop")
    assert drops, "a blackhole with drop reports on sends some"
    assert {x["switch"] for x in drops} == {"spine1"}
    assert {x["reason"] for x in drops} == {"ROUTE_BLACKHOLE"}
    # in from the leaves, toward leaf3's hosts only; rate-limited: at most one per gap
    assert {x["peer"] for x in drops} <= {"leaf1", "leaf2", "leaf4"}
    assert all(ip.startswith("10.0.2.") for x in drops for ip in x["dsts"])
    gap_ns = blackhole["alerts"]["drop_gap_us"] * 1000
    n = sum(x["count"] for x in drops)
    assert 2 <= n <= 300_000 // gap_ns + 1
    assert all(x["first_ns"] <= x["last_ns"] for x in drops)


def test_top_suspect_cites_the_drop_reports(blackhole: dict[str, Any]) -> None:
    d = diagnose(blackhole)
    top = d["suspects"][0]
    assert (top["kind"], top["where"], top["cause"]) == ("switch", "spine1", "blackhole")
    n = sum(x["count"] for x in _rows(blackhole, "drop"))
    assert top["drop_reports"] == n
    assert f"{n} drop reports, reason ROUTE_BLACKHOLE, at spine1" in top["evidence"]
    assert f"{n} drop reports" in format_report(d)


def test_drop_reports_alone_raise_the_switch(blackhole: dict[str, Any]) -> None:
    # a fabric whose probes saw nothing (none crossed the switch): the reports still name it
    r = copy.deepcopy(blackhole)
    for a in r["probes"]:
        a["received"] = a["sent"]
        a["partial"] = False
    d = diagnose(r)
    top = d["suspects"][0]
    assert (top["kind"], top["where"], top["prefix"]) == ("switch", "spine1", "10.0.2.0/24")
    assert "drop reports, reason ROUTE_BLACKHOLE, at spine1" in top["evidence"]


def test_hot_port_queue_reports_in_its_evidence(topo) -> None:  # type: ignore[no-untyped-def]
    r = _run(topo, "hot-port:spine4-leaf1,0.8@0")
    (mine,) = [x for x in _rows(r, "queue") if (x["switch"], x["peer"]) == ("spine4", "leaf1")]
    assert hot_by_reports(r, "spine4", "leaf1") and not hot_by_reports(r, "leaf1", "spine4")
    top = diagnose(r)["suspects"][0]
    assert (top["link"], top["cause"]) == (["spine4", "leaf1"], "hot-port")
    assert (
        f"{mine['count']} queue reports at spine4 port {mine['port']} toward leaf1"
        in (top["evidence"])
    )


def test_hot_reports_rank_a_link_without_counters(topo) -> None:  # type: ignore[no-untyped-def]
    # what a live fabric's collector gives: no port counters, the reports rank the link
    r = _run(topo, "hot-port:spine4-leaf1,0.8@0")
    del r["ports"]
    top = diagnose(r)["suspects"][0]
    assert (top["link"], top["cause"]) == (["spine4", "leaf1"], "hot-port")


def test_healthy_run_reports_no_drop_and_no_suspect(healthy: dict[str, Any]) -> None:
    assert _rows(healthy, "drop") == []
    d = diagnose(healthy)
    assert d["suspects"] == [] and d["verdict"] == "no fault found"
    assert d["reports"]["drop"] == 0


def test_queue_reports_alone_make_no_suspect(healthy: dict[str, Any]) -> None:
    # a port reporting a queue in every gap, on a fabric whose probes are all fine
    r = copy.deepcopy(healthy)
    gaps = int(r["sim_time_us"] / r["alerts"]["queue_gap_us"])
    r["alerts"]["reports"].append(
        {
            "type": "queue",
            "switch": "leaf1",
            "port": 5,
            "peer": "spine1",
            "count": gaps,
            "first_ns": 0,
            "last_ns": 290_000,
            "max_occupancy": 40,
            "max_latency_ns": 9000,
        }
    )
    assert hot_by_reports(r, "leaf1", "spine1")
    assert diagnose(r)["suspects"] == []


def test_incast_queue_reports_change_no_suspect() -> None:
    # a healthy incast holds a standing queue toward its receiver: reported, never a suspect
    topo = load_topology(TOPOS / "leaf-spine-2x2.yaml")
    r = _run(topo, workload="incast", flow_bytes=60_000)
    assert _rows(r, "queue") and not _rows(r, "drop")
    without = copy.deepcopy(r)
    del without["alerts"]
    got = [(s["kind"], s["where"]) for s in diagnose(r)["suspects"]]
    assert got == [(s["kind"], s["where"]) for s in diagnose(without)["suspects"]]


def test_reports_off_by_default(topo) -> None:  # type: ignore[no-untyped-def]
    assert SimConfig().reports is False
    r = _run(topo, reports=False)
    assert "alerts" not in r
    assert "reports" not in diagnose(r)
