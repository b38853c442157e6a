"""Faults on a live fabric of softswitch processes (UDP cables, no root): each live kind
injected, probed (`sprayfabric probe`'s prober), diagnosed (`sprayfabric doctor`'s
method), the true place ranked first; a healthy fabric diagnosed clean; clearing a fault
restores what it changed, read back over P4Runtime.

One fabric for the module: leaf-spine with 3 leaves, 2 spines and a host per leaf, ECMP
groups, the default policy's INT on the probes. Not 2x2: there every path through spine1
toward leaf2 crosses leaf1->spine1 and nothing else does, so a blackhole at spine1 reads as
that link (docs/doctor.md, "Limits"); a third leaf gives the doctor a clean path through
the same link toward another prefix.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.fabric import content, identity
from controller.fabric.live_faults import LiveFaultError, parse_live_fault
from controller.fabric.live_probe import LiveProber
from controller.fabric.runner import FabricRun
from fabricsim.doctor import diagnose
from fabricsim.faults import Fault
from sprayfabric.cli import main as sprayfabric
from sprayfabric.doctor import hit_rank
from tests.fabric_run.live_fabric import live_fabric


@pytest.fixture(scope="module")
def fabric(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FabricRun]:
    with live_fabric(3, tmp_path_factory.mktemp("livefault"), control=True) as run:
        yield run


def probe(run: FabricRun, **kw: Any) -> dict[str, Any]:
    return LiveProber(run, rounds=kw.pop("rounds", 15), **kw).run_probes()


def state_of(run: FabricRun, name: str) -> set[Any]:
    assert run.sessions is not None
    return {(identity(e), content(e)) for e in run.sessions[name].read_managed()}


def test_healthy_fabric_has_no_suspect(live: FabricRun) -> None:
    out = probe(live)
    assert sum(a["sent"] for a in out["probes"]) == 15 * 6 * 4
    # every path from INT: host, leaf, spine, leaf, host
    assert all(len(a["path"]) == 5 and not a["partial"] for a in out["probes"])
    d = diagnose(out)
    assert d["verdict"] == "no fault found" and not d["suspects"], d
    assert out["faults"] == []


def _leaf2_prefix(run: FabricRun) -> str:
    return str(run.topology.switch("leaf2").subnets[0])


@pytest.mark.parametrize(
    "spec",
    [
        "loss:leaf1-spine1,0.3",
        "slow:leaf1-spine1,0.25",
        "flap:leaf1-spine1,400ms/0.5",
        "blackhole:spine1,PREFIX",
        "pfc-storm:h3",
        "hot-port:leaf1-spine1,0.8",
    ],
)
def test_fault_is_ranked_first(live: FabricRun, spec: str) -> None:
    spec = spec.replace("PREFIX", _leaf2_prefix(live))
    rec = live.faults.inject(spec)
    out = probe(live)
    # the ground truth travels with the probes (the doctor does not read it)
    assert [(f["kind"], f["place"], f["arg"]) for f in out["faults"]] == [
        (rec["kind"], rec["place"], rec["arg"])
    ]
    d = diagnose(out)
    truth = Fault(rec["kind"], tuple(rec["place"]), rec["arg"])
    assert hit_rank(d, truth) == 1, (spec, d["verdict"], d["suspects"][:3])
    live.faults.clear(rec["id"])
    assert json.loads(live.faults.state_file.read_text()) == {"faults": []}
    assert json.loads(live.faults.impair_file.read_text()) == {}


def test_clear_restores_the_entries_read_back(live: FabricRun) -> None:
    before = {n: state_of(live, n) for n in ("spine1", "leaf1")}
    bh = live.faults.inject(f"blackhole:spine1,{_leaf2_prefix(live)}")
    skew = live.faults.inject("wcmp-skew:leaf1-spine2,8")
    assert bh["entries"]["written"]["modified"] == 1  # the route rewritten to drop
    assert len(skew["entries"]["leaf1"]["after"]) > len(skew["entries"]["leaf1"]["before"])
    recorded = json.loads(live.faults.state_file.read_text())["faults"]
    assert [f["spec"] for f in recorded] == [bh["spec"], skew["spec"]]
    for n in ("spine1", "leaf1"):
        assert state_of(live, n) != before[n]
    live.faults.clear(bh["id"])
    assert state_of(live, "spine1") == before["spine1"]
    assert state_of(live, "leaf1") != before["leaf1"]
    live.faults.clear(skew["id"])
    assert state_of(live, "leaf1") == before["leaf1"]


def test_wcmp_skew_moves_the_hash_toward_the_member(live: FabricRun) -> None:
    def share_to_spine2(out: dict[str, Any]) -> float:
        c: Counter[str] = Counter()
        for a in out["probes"]:
            if a["src"] == "h1" and not a["partial"]:
                c[a["path"][2]] += len(a["sports"])
        return c["spine2"] / sum(c.values())

    even = share_to_spine2(probe(live, paths=16, rounds=3))
    live.faults.inject("wcmp-skew:leaf1-spine2,8")
    skewed = share_to_spine2(probe(live, paths=16, rounds=3))
    assert skewed >= 0.75 and skewed > even, (even, skewed)


def test_cli_inject_list_probe_doctor_clear(
    live: FabricRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.chdir(live.workdir.parent)  # where `up` runs: .sprayfabric/run.json
    assert sprayfabric(["fault", "inject", "loss:leaf2-spine2,0.3"]) == 0
    assert "leaf2 port" in capsys.readouterr().out
    assert sprayfabric(["fault", "list"]) == 0
    assert "loss:leaf2-spine2,0.3" in capsys.readouterr().out
    out = tmp_path / "probe.json"
    assert sprayfabric(["probe", "--rounds", "15", "--json", str(out)]) == 0
    assert sprayfabric(["doctor", str(out)]) == 0
    report = capsys.readouterr().out
    assert "verdict: link leaf2->spine2" in report, report
    assert sprayfabric(["fault", "inject", "pfc-storm:leaf1"]) == 1
    assert "expected pfc-storm:HOST" in capsys.readouterr().err
    assert sprayfabric(["fault", "clear", "--all"]) == 0
    assert sprayfabric(["fault", "list"]) == 0
    assert "no faults" in capsys.readouterr().out


def test_specs_checked_against_the_fabric(fabric: FabricRun) -> None:
    topo = fabric.topology
    assert parse_live_fault("flap:leaf1-spine1,2s", topo).arg == "2s/0.5"
    assert parse_live_fault("loss:leaf1-spine1,0.05@0", topo).place == ("leaf1", "spine1")
    for spec, words in [
        ("hot-port:leaf1-spine1,1.5", "busy '1.5'.*below 1"),
        ("hot-port:h1-leaf1,0.5", "h1 is not a switch"),
        ("pfc-storm:leaf1", "a host of ls-3x2"),
        ("pfc-storm:h1,2", "expected pfc-storm:HOST"),
        ("loss:leaf1-spine1,0.05@10us", "starts now"),
        ("loss:leaf1-leaf2,0.05", "no link between leaf1 and leaf2"),
        ("slow:leaf1-spine1,1.5", "below 1"),
        ("flap:leaf1-spine1,10ms", "at least"),
        ("blackhole:spine9,10.0.0.0/24", "no switch spine9"),
        ("wcmp-skew:leaf1-spine1,1", "at least 2"),
        ("wcmp-skew:spine1-leaf1,4", "no group"),
    ]:
        with pytest.raises(LiveFaultError, match=words):
            if spec.startswith("wcmp-skew:spine1"):
                fabric.faults.inject(spec)  # spine1 has one next hop per leaf
            else:
                parse_live_fault(spec, topo)
    assert fabric.faults.listing() == {"faults": []}


def test_wcmp_skew_is_ranked_first_by_a_doctor_reading_groups(live: FabricRun) -> None:
    pytest.importorskip(
        "fabricsim.doctor_groups", reason="this doctor reads losses and latency only, not skews"
    )
    rec = live.faults.inject("wcmp-skew:leaf1-spine2,8")
    d = diagnose(probe(live, paths=32, rounds=2))
    truth = Fault(rec["kind"], tuple(rec["place"]), rec["arg"])
    assert hit_rank(d, truth) == 1, (d["verdict"], d["suspects"][:3])


def test_faults_survive_a_switch_restart(live: FabricRun) -> None:
    assert live.sessions is not None
    live.faults.inject(f"blackhole:spine1,{_leaf2_prefix(live)}")
    faulty = state_of(live, "spine1")
    before = live.sessions["spine1"].counts.restores
    live.restart_switch("spine1")
    assert live.sessions.wait_restored("spine1", before, timeout=60)
    assert state_of(live, "spine1") == faulty  # the watcher restored the bad entry too


def test_fault_commands_need_a_running_fabric(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    assert sprayfabric(["fault", "list"]) == 1
    assert "no running fabric here" in capsys.readouterr().err
    assert sprayfabric(["fault", "clear"]) == 1
    assert "give a fault id or --all" in capsys.readouterr().err


def _row(src: str, dst: str, spine: str, low: int, mid: int) -> dict[str, Any]:
    return {
        "src": src,
        "dst": dst,
        "path": [src, "leaf", spine, "leaf", dst],
        "partial": False,
        "lat_ns": {"min": low, "p50": mid, "p99": mid, "max": mid},
    }


def test_latency_thresholds_grow_with_the_machines_jitter() -> None:
    """A slow link shifts its paths' latencies (their spread stays small): the median
    jitter, and so the thresholds, stay the idle ones. A loaded machine spreads every
    path's latencies: the thresholds grow so that jitter is not read as a slow link."""
    from controller.fabric.live_probe import (
        LIVE_QUEUED_NS,
        LIVE_SLOW_NS,
        latency_noise,
        latency_thresholds,
    )

    idle = [_row("h1", "h2", s, 700_000, 750_000) for s in ("spine1", "spine2")]
    slow = [*idle, _row("h1", "h3", "spine1", 4_700_000, 4_760_000)]
    assert latency_noise(slow) == 50_000
    assert latency_thresholds(slow) == {  # the fixed figures hold
        "slow_ns": LIVE_SLOW_NS,
        "queued_ns": LIVE_QUEUED_NS,
        "latency_noise_ns": 50_000,
    }
    loaded = [_row("h1", f"h{i}", "spine1", 700_000, 1_500_000) for i in range(2, 6)]
    assert latency_thresholds(loaded) == {
        "slow_ns": LIVE_SLOW_NS + 100_000,  # twice the jitter: a minimum moves less
        "queued_ns": 3_200_000,
        "latency_noise_ns": 800_000,
    }
    assert latency_noise([{**r, "partial": True} for r in loaded]) == 0
