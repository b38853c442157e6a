"""The demo's tables: uplinks of a topology, shares, balance and the per-mode summary."""

from __future__ import annotations

from pathlib import Path

from controller.topology import load_topology
from fabricnet.report import ModeRun, Uplink, balance, format_mode, format_summary, uplinks_of
from fabricnet.traffic import Flow, FlowResult

ROOT = Path(__file__).resolve().parents[2]


def test_uplinks_are_the_leaf_ports_facing_spines() -> None:
    topo = load_topology(ROOT / "topologies" / "leaf-spine-2x2.yaml")
    assert uplinks_of(topo) == [
        Uplink("leaf1", 3, "spine1"),
        Uplink("leaf1", 4, "spine2"),
        Uplink("leaf2", 3, "spine1"),
        Uplink("leaf2", 4, "spine2"),
    ]
    assert [u.switch for u in uplinks_of(topo, role="spine")] == ["spine1"] * 2 + ["spine2"] * 2


def _run(mode: str, counts: dict[Uplink, int], mbps: list[float]) -> ModeRun:
    flows = [FlowResult(Flow("h1", f"h{3 + i}"), m * 1e6, m * 1e6, i) for i, m in enumerate(mbps)]
    return ModeRun(mode, 5, counts, flows)


def test_mode_table_shows_each_uplinks_share_and_the_flows() -> None:
    a, b = Uplink("leaf1", 3, "spine1"), Uplink("leaf1", 4, "spine2")
    run = _run("ecmp", {a: 300, b: 100}, [4.0, 2.5])
    text = format_mode(run)
    assert "== ecmp: 2 parallel iperf3 flows, 5 s" in text
    assert "leaf1:3 -> spine1" in text and "75.0%" in text and "25.0%" in text
    assert "h1 -> h4" in text and "2.50" in text
    assert text.splitlines()[-1].split() == ["total", "6.50"]
    assert balance(run.uplink_packets, "leaf1") == 100 / 300


def test_failed_flows_and_idle_leaves_are_reported() -> None:
    a = Uplink("leaf2", 3, "spine1")
    run = ModeRun("spray", 5, {a: 0}, [FlowResult(Flow("h1", "h3"), 0, 0, 0, "refused")])
    text = format_mode(run)
    assert "h1 -> h3" in text and "failed: refused" in text
    assert balance(run.uplink_packets, "leaf2") is None
    summary = format_summary([run, _run("ecmp", {a: 10}, [1.0])]).splitlines()
    assert summary[1].split() == ["spray", "0.00", "-"]
    assert summary[2].split() == ["ecmp", "1.00", "1.00"]
