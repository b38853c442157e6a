"""controller.fabric.live_ports: a live fabric's port counters over a probe window, in
the layout the doctor reads from a simulated run."""

from __future__ import annotations

import json
from pathlib import Path

from controller.fabric.live_ports import port_rows, snapshot, window_us
from controller.topology.generators import leaf_spine


def _write(path: Path, at: float, ports: dict[str, dict[str, float]]) -> None:
    path.write_text(json.dumps({"at": at, "devices": {"1": ports}}))


def test_rows_are_the_window_differences(tmp_path: Path) -> None:
    topo = leaf_spine(2, 2, 1, name="t")
    port = topo.port_to("leaf1", "spine1")
    f = tmp_path / "leaf1.json"
    _write(f, 100.0, {str(port): {"dropped": 5, "paused_s": 1.0, "queue_area": 10.0}})
    before = snapshot(tmp_path)
    (tmp_path / "half.json").write_text("{")  # a file being written: left out
    _write(
        f,
        102.0,
        {
            str(port): {
                "dropped": 9,
                "paused_s": 2.5,
                "carrier_transitions": 4,
                "queue_area": 30.0,
                "queue_peak": 12,
            }
        },
    )
    after = snapshot(tmp_path)
    assert list(after) == ["leaf1.json"] and window_us(before, after) == 2_000_000.0
    rows = port_rows(topo, {1: "leaf1"}, before, after)
    mine = [r for r in rows if r["switch"] == "leaf1" and r["peer"] == "spine1"]
    assert mine == [
        {
            "switch": "leaf1",
            "port": port,
            "peer": "spine1",
            "lost": 4,
            "paused_us": 1_500_000.0,
            "carrier_transitions": 4,
            "queue_mean": 10.0,
            "queue_peak": 12,
        }
    ]
    # every switch port facing another node has a row; the unreported ones count zero
    assert len(rows) == sum(len(topo.neighbours(s)) for s in topo.switch_names())
    assert all(r["lost"] == 0 and r["queue_mean"] == 0 for r in rows if r is not mine[0])


def test_a_restarted_process_counts_from_zero(tmp_path: Path) -> None:
    topo = leaf_spine(2, 2, 1, name="t")
    port = topo.port_to("leaf1", "spine1")
    f = tmp_path / "leaf1.json"
    _write(f, 100.0, {str(port): {"dropped": 50}})
    before = snapshot(tmp_path)
    _write(f, 101.0, {str(port): {"dropped": 3}})
    rows = port_rows(topo, {1: "leaf1"}, before, snapshot(tmp_path))
    assert [r["lost"] for r in rows if r["port"] == port and r["switch"] == "leaf1"] == [3]
    assert snapshot(tmp_path / "none") == {}
