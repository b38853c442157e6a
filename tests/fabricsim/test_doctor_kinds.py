"""The fault kinds beyond loss, slow and blackhole: flap, wcmp-skew, pfc-storm and
hot-port. Each, injected in a short probe run, makes its evidence (carrier transitions,
the probes' spread over a group, pause time, a standing queue) and is named at rank 1 at
its true place; a healthy run's counters show none of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.topology import load_topology
from fabricsim.doctor import diagnose
from fabricsim.faults import FaultError, parse_fault
from fabricsim.run import SimConfig, simulate
from sprayfabric.doctor import hit_rank

TOPOS = Path(__file__).resolve().parents[2] / "topologies"


@pytest.fixture(scope="module")
def topo():  # type: ignore[no-untyped-def]
    return load_topology(TOPOS / "leaf-spine-4x4.yaml")


def _run(topo: Any, *faults: str, limit_ns: int = 300_000) -> dict[str, Any]:
    cfg = SimConfig(
        flow_bytes=5_000,
        probes=True,
        time_limit_ns=limit_ns,
        faults=tuple(parse_fault(f) for f in faults),
    )
    return simulate(topo, cfg).to_dict()


def _port(r: dict[str, Any], switch: str, peer: str) -> dict[str, Any]:
    (p,) = [p for p in r["ports"] if p["switch"] == switch and p["peer"] == peer]
    return p


@pytest.fixture(scope="module")
def healthy(topo) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return _run(topo)


def test_healthy_counters_and_no_suspect(healthy: dict[str, Any]) -> None:
    assert all(p["carrier_transitions"] == 0 and p["paused_us"] == 0 for p in healthy["ports"])
    assert max(p["queue_mean"] for p in healthy["ports"]) < 1.0
    d = diagnose(healthy)
    assert d["suspects"] == [] and d["verdict"] == "no fault found"


def test_flap_counts_transitions_and_is_the_link(topo) -> None:  # type: ignore[no-untyped-def]
    spec = "flap:leaf2-spine3,50us@0"
    r = _run(topo, spec)
    # down at 0, 25, ... up at 25 ... : a transition each 25 us at both ends
    n = _port(r, "leaf2", "spine3")["carrier_transitions"]
    assert n == _port(r, "spine3", "leaf2")["carrier_transitions"] >= 10
    assert _port(r, "leaf1", "spine3")["carrier_transitions"] == 0
    d = diagnose(r)
    top = d["suspects"][0]
    assert (top["cause"], set(top["link"])) == ("flap", {"leaf2", "spine3"})
    assert hit_rank(d, parse_fault(spec)) == 1


def test_wcmp_skew_writes_the_weights_and_is_the_switch(topo) -> None:  # type: ignore[no-untyped-def]
    spec = "wcmp-skew:leaf3-spine1,8@0"
    r = _run(topo, spec)
    # the probes leaving leaf3 for other leaves go mostly to spine1 now
    up = [a for a in r["probes"] if a["path"][1] == "leaf3" and len(a["path"]) == 5]
    via = sum(len(a["sports"]) for a in up if a["path"][2] == "spine1")
    assert via / sum(len(a["sports"]) for a in up) > 0.5  # an equal share is 25%
    d = diagnose(r)
    top = d["suspects"][0]
    assert (top["kind"], top["where"], top["cause"], top["member"]) == (
        "switch",
        "leaf3",
        "wcmp-skew",
        "spine1",
    )
    assert hit_rank(d, parse_fault(spec)) == 1


def test_pfc_storm_pauses_the_port_and_is_the_host(topo) -> None:  # type: ignore[no-untyped-def]
    spec = "pfc-storm:h6@20us"
    r = _run(topo, spec)
    leaf = next(h.switch for h in topo.hosts if h.name == "h6")
    paused = _port(r, leaf, "h6")["paused_us"]
    # paused from the storm plus the link's 1 us delay to the end of the run
    assert paused == pytest.approx(r["sim_time_us"] - 21, abs=0.01)
    d = diagnose(r)
    top = d["suspects"][0]
    assert (top["kind"], top["where"], top["cause"]) == ("host", "h6", "pfc-storm")
    assert hit_rank(d, parse_fault(spec)) == 1


def test_hot_port_is_one_direction(topo) -> None:  # type: ignore[no-untyped-def]
    spec = "hot-port:spine4-leaf1,0.8@0"
    r = _run(topo, spec)
    assert _port(r, "spine4", "leaf1")["queue_mean"] > 1.0
    assert _port(r, "leaf1", "spine4")["queue_mean"] < 1.0
    d = diagnose(r)
    top = d["suspects"][0]
    assert (top["link"], top["cause"]) == (["spine4", "leaf1"], "hot-port")
    assert hit_rank(d, parse_fault(spec)) == 1
    # the other direction of the link is not the hot port
    assert hit_rank(d, parse_fault("hot-port:leaf1-spine4,0.8@0")) != 1


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("flap:leaf1-spine2,100ns@0", "at least 1us"),
        ("flap:leaf1-spine2,100us/1.5@0", "above 0, below 1"),
        ("flap:leaf1-spine2@0", "expected flap:leaf1-spine2,100us@TIME"),
        ("wcmp-skew:leaf1-spine2,1@0", "at least 2"),
        ("wcmp-skew:leaf1-spine2,x@0", "a whole number"),
        ("pfc-storm:h3,1@0", "expected pfc-storm:HOST@TIME"),
        ("hot-port:leaf1-spine2,1.2@0", "above 0, below 1"),
    ],
)
def test_bad_specs(spec: str, says: str) -> None:
    with pytest.raises(FaultError) as e:
        parse_fault(spec)
    assert says in str(e.value)


def test_places_checked(topo) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(FaultError, match="has no host h99"):
        parse_fault("pfc-storm:h99@0").check(topo)
    with pytest.raises(FaultError, match="h1 is not a switch"):
        parse_fault("hot-port:h1-leaf1,0.5@0").check(topo)
    f = parse_fault("flap:leaf1-spine2,100us/0.2@1ms")
    assert (f.flap(), f.at_ns) == ((100_000, 0.2), 1_000_000)


def test_pfc_storm_spreading_under_pfc_names_its_source(topo) -> None:  # type: ignore[no-untyped-def]
    # lossless fabric: the stuck queue toward h6 pauses leaf2's upstream, and so on; the
    # source is the one paused port whose peer is not paused itself
    from fabricsim.network import NetParams
    from fabricsim.switchnode import PfcParams

    cfg = SimConfig(
        flow_bytes=20_000,
        probes=True,
        time_limit_ns=250_000,
        trim_threshold=None,
        net=NetParams(pfc=PfcParams(enabled=True)),
        faults=(parse_fault("pfc-storm:h6@0"),),
    )
    r = simulate(topo, cfg)
    spread = {p["switch"] for p in r["ports"] if p["paused_us"] > 0.5 * r["sim_time_us"]}
    assert {"leaf2"} < spread  # more than the storm's own switch
    top = diagnose(r)["suspects"][0]
    assert (top["kind"], top["where"], top["cause"]) == ("host", "h6", "pfc-storm")


def _agg(path: list[str], p50: int) -> dict[str, Any]:
    lat = {"min": 1000, "p50": p50, "p99": p50, "max": p50}
    return {
        "src": path[0],
        "dst": path[-1],
        "path": path,
        "partial": False,
        "sports": [1],
        "sent": 10,
        "received": 10,
        "lat_ns": lat,
    }


def _port_rec(switch: str, peer: str, queue: float) -> dict[str, Any]:
    return {
        "switch": switch,
        "port": 1,
        "peer": peer,
        "queue_mean": queue,
        "queue_peak": 9,
        "paused_us": 0.0,
        "carrier_transitions": 0,
    }


def test_the_hot_egress_goes_first_among_tied_links() -> None:
    # h1 -> h2 over s2 is late (median), over s4 not: s1->s2 and s2->s3 tie on the votes,
    # and s1->s2 would win the tie by name; the standing queue is s2's toward s3
    run = {
        "sim_time_us": 100.0,
        "probes": [
            _agg(["h1", "s1", "s2", "s3", "h2"], 3000),
            _agg(["h1", "s1", "s4", "s3", "h2"], 1000),
        ],
        "ports": [
            _port_rec("s1", "s2", 0.0),
            _port_rec("s2", "s3", 5.0),
            _port_rec("s1", "s4", 0.0),
            _port_rec("s4", "s3", 0.0),
        ],
    }
    links = [s["link"] for s in diagnose(run)["suspects"]]
    assert links[:2] == [["s2", "s3"], ["s1", "s2"]]
    assert diagnose(run)["suspects"][0]["cause"] == "hot-port"
    run["ports"][1]["queue_mean"] = 0.0  # no queue: the votes' order, both slow
    d = diagnose(run)
    assert [s["link"] for s in d["suspects"]][:2] == [["s1", "s2"], ["s2", "s3"]]
    assert {s["cause"] for s in d["suspects"]} == {"slow"}
