"""sprayfabric doctor: faults injected in short probe runs are localised; a healthy run
gives no suspect; bad fault specs are refused with clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.topology import load_topology
from fabricsim.doctor import diagnose
from fabricsim.faults import FaultError, parse_fault
from fabricsim.run import SimConfig, simulate
from sprayfabric.cli import main

TOPOS = Path(__file__).resolve().parents[2] / "topologies"
TOPO = TOPOS / "leaf-spine-2x2.yaml"


@pytest.fixture(scope="module")
def topo():  # type: ignore[no-untyped-def]
    return load_topology(TOPO)


def _run(topo, *faults: str):  # type: ignore[no-untyped-def]
    cfg = SimConfig(
        flow_bytes=20_000,
        probes=True,
        time_limit_ns=500_000,
        faults=tuple(parse_fault(f) for f in faults),
    )
    return simulate(topo, cfg).to_dict()


def test_healthy_run_has_no_suspect(topo) -> None:  # type: ignore[no-untyped-def]
    r = _run(topo)
    assert r["faults"] == []
    sent = sum(a["sent"] for a in r["probes"])
    assert sent == sum(a["received"] for a in r["probes"]) > 0
    d = diagnose(r)
    assert d["verdict"] == "no fault found" and d["suspects"] == []


def test_probe_paths_cross_the_fabric(topo) -> None:  # type: ignore[no-untyped-def]
    r = _run(topo)
    by_pair = {}
    for a in r["probes"]:
        by_pair.setdefault((a["src"], a["dst"]), set()).add(tuple(a["path"]))
    # same leaf: one switch; across leaves: leaf, a spine, leaf
    assert by_pair[("h1", "h2")] == {("h1", "leaf1", "h2")}
    spines = {p[2] for p in by_pair[("h1", "h3")]}
    assert spines <= {"spine1", "spine2"} and all(len(p) == 5 for p in by_pair[("h1", "h3")])


def test_loss_localised_to_the_link(topo) -> None:  # type: ignore[no-untyped-def]
    r = _run(topo, "loss:leaf1-spine2,0.2@0")
    assert r["faults"] == [{"kind": "loss", "place": ["leaf1", "spine2"], "arg": "0.2", "at_ns": 0}]
    d = diagnose(r)
    assert d["probes_lost"] >= 3
    assert d["suspects"][0]["kind"] == "link"
    assert d["suspects"][0]["link"] == ["leaf1", "spine2"]


def test_slow_link_localised() -> None:
    # on 2x2 every path through spine1 crosses both of its links: 4x4 tells them apart
    d = diagnose(_run(load_topology(TOPOS / "leaf-spine-4x4.yaml"), "slow:leaf2-spine3,0.25@0"))
    assert d["probes_lost"] == 0 and d["probes_slow"] > 0
    assert set(d["suspects"][0]["link"]) == {"leaf2", "spine3"}


def test_blackhole_is_a_switch_toward_one_prefix() -> None:
    # on 2x2 leaf1->spine1 carries only traffic toward leaf2: a drop there is the same
    # evidence as that link losing everything. On 4x4 spine1 has links from three leaves.
    topo = load_topology(TOPOS / "leaf-spine-4x4.yaml")
    r = _run(topo, "blackhole:spine1,10.0.2.0/24@0")
    leaf3 = {h.name for h in topo.hosts if h.switch == "leaf3"}
    lost = [a for a in r["probes"] if a["received"] < a["sent"]]
    # only probes toward leaf3's hosts through spine1 die, all of them, in spine1
    assert lost and all(a["dst"] in leaf3 and a["received"] == 0 for a in lost)
    assert all(a["path"][-1] == "spine1" and a["partial"] for a in lost)
    assert any(a["dst"] in leaf3 and a["received"] == a["sent"] for a in r["probes"])
    d = diagnose(r)
    top = d["suspects"][0]
    assert (top["kind"], top["where"], top["prefix"]) == ("switch", "spine1", "10.0.2.0/24")


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("loss:leaf1-spine2,0.05", "no start time"),
        ("lose:leaf1-spine2,0.05@0", "kind 'lose' is not one of loss, slow, blackhole"),
        ("loss:leaf1-spine2,1.5@0", "a fraction above 0, at most 1"),
        ("slow:leaf1-spine2,1@0", "above 0, below 1"),
        ("loss:leaf1,0.05@0", "expected A-B"),
        ("blackhole:leaf1,10.0.0.300/24@0", "prefix '10.0.0.300/24'"),
        ("blackhole:leaf1@0", "expected blackhole:leaf3,10.0.2.0/24@TIME"),
        ("loss:leaf1-spine2,0.05@soon", "time 'soon'"),
    ],
)
def test_bad_specs(spec: str, says: str) -> None:
    with pytest.raises(FaultError, match=None) as e:
        parse_fault(spec)
    assert says in str(e.value)


def test_hyphenated_names_split_by_the_topology() -> None:
    names = {"pod1-edge0", "pod1-agg0"}
    f = parse_fault("loss:pod1-edge0-pod1-agg0,0.05@0", names)
    assert f.place == ("pod1-edge0", "pod1-agg0")
    with pytest.raises(FaultError, match="expected A-B"):
        parse_fault("loss:pod1-edge0-pod1-agg0,0.05@0")


def test_cli_refuses_unknown_place(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", str(TOPO), "--fault", "lose:x"]) == 1
    assert "kind 'lose' is not one of" in capsys.readouterr().err
    assert main(["sim", str(TOPO), "--fault", "loss:leaf1-spine9,0.05@0"]) == 1
    assert "has no link between leaf1 and spine9" in capsys.readouterr().err
    assert main(["sim", str(TOPO), "--fault", "blackhole:spine7,10.0.1.0/24@0"]) == 1
    assert "has no switch spine7" in capsys.readouterr().err
