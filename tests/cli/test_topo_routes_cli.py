"""`sprayfabric topo ...` and `sprayfabric routes ...`: outputs read back and checked,
errors as one line with exit status 1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from controller.routing import compute_routes
from controller.topology import load_topology
from controller.topology.generators import fat_tree, leaf_spine
from sprayfabric.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_gen_leaf_spine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "ls.yaml"
    code, out, _ = run(
        capsys, "topo", "gen", "leaf-spine", "--leaves", "4", "--spines", "2",
        "--hosts-per-leaf", "8", "--oversubscription", "2", "--planes", "2", "-o", str(f),
    )  # fmt: skip
    assert code == 0 and out.startswith(f"wrote {f}: ")
    topo = load_topology(f)
    assert topo == leaf_spine(4, 2, 8, oversubscription=2, planes=2)
    assert {lk.rate_bps for lk in topo.links} == {200 * 10**9}


def test_gen_fat_tree_to_stdout(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "topo", "gen", "fat-tree", "--k", "4", "--rate", "40G")
    assert code == 0
    f = tmp_path / "ft.yaml"
    f.write_text(out)
    assert load_topology(f) == fat_tree(4, rate_bps=40 * 10**9)


def test_check_good_and_bad(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = ROOT / "topologies" / "fat-tree-k4.yaml"
    code, out, _ = run(capsys, "topo", "check", str(good))
    assert code == 0 and "ok: fat-tree-k4: 20 switches (8 edge, 8 agg, 4 core), 16 hosts" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        good.read_text().replace("b: pod0-agg1, b_port: 1}", "b: pod0-agg9, b_port: 1}", 1)
    )
    code, out, err = run(capsys, "topo", "check", str(bad))
    assert code == 1 and out == ""
    assert err == f"sprayfabric: error: {bad}: links[1].b: unknown switch 'pod0-agg9'\n"


def test_show_json_is_node_link(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "topo", "show", str(ROOT / "topologies" / "leaf-spine-2x2.yaml"), "--json"
    )
    assert code == 0
    g = nx.node_link_graph(json.loads(out), edges="links")
    assert sorted(n for n, d in g.nodes(data=True) if d["kind"] == "switch") == [
        "leaf1", "leaf2", "spine1", "spine2",
    ]  # fmt: skip
    assert {n: d["ip"] for n, d in g.nodes(data=True) if d["kind"] == "host"} == {
        "h1": "10.0.0.1", "h2": "10.0.0.2", "h3": "10.0.1.1", "h4": "10.0.1.2",
    }  # fmt: skip
    assert g.edges["leaf1", "spine2"]["ports"] == {"leaf1": 4, "spine2": 1}


def test_show_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "topo", "show", str(ROOT / "topologies" / "leaf-spine-2x2.yaml"))
    assert code == 0
    assert "leaf1            1:h1(100G) 2:h2(100G) 3:spine1(100G) 4:spine2(100G)" in out
    assert "h4           10.0.1.2        06:00:0a:00:01:02 leaf2            2" in out


def test_routes_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "routes", str(ROOT / "topologies" / "fat-tree-k4.yaml"))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "fat-tree-k4: 20 switches, 0 failed links, 4 destination classes"
    code, out, _ = run(
        capsys,
        "routes",
        str(ROOT / "topologies" / "leaf-spine-2x2.yaml"),
        "--fail-link",
        "leaf1,spine1",
    )
    assert out.splitlines()[0] == "leaf-spine-2x2: 4 switches, 1 failed link, 2 destination classes"
    # edge: 7 remote /24s + 2 hosts; agg and core: all 8 /24s
    assert lines[1] == "groups: 64"
    assert lines[2] == "entries: 168 (per switch min 8, mean 8.4, max 9)"
    assert lines[3].startswith("seconds: ")


def test_routes_json_with_failures(capsys: pytest.CaptureFixture[str]) -> None:
    path = ROOT / "topologies" / "fat-tree-k4.yaml"
    code, out, _ = run(
        capsys, "routes", str(path), "--json", "--fail-link", "pod0-agg0,core0",
        "--fail-link", "pod1-edge1,pod1-agg0", "--fail-switch", "core3",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert doc["seconds"] >= 0
    topo = load_topology(path)
    want = compute_routes(
        topo.without_links([("pod0-agg0", "core0"), ("pod1-edge1", "pod1-agg0")]),
        failed_switches=["core3"],
    )
    assert doc["switches"]["core3"] == {"routes": {}}
    for s in topo.switch_names():
        assert doc["switches"][s]["routes"] == {
            p: {"next_hops": list(nh.neighbours), "weights": list(nh.weights)}
            for p, nh in want.table(s).items()
        }
    assert doc["switches"]["pod0-agg0"]["routes"]["10.0.2.0/24"] == {
        "next_hops": ["core1"], "weights": [1],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["routes", "TOPO", "--fail-link", "leaf1,leaf2"], "no link between leaf1 and leaf2"),
        (["routes", "TOPO", "--fail-link", "leaf1,spine7"], "no switch named 'spine7'"),
        (["routes", "TOPO", "--fail-link", "leaf1"], "expected two switch names A,B"),
        (["routes", "TOPO", "--fail-switch", "nope"], "no switch named 'nope'"),
        (["routes", "missing.yaml"], "missing.yaml: cannot read"),
        (["topo", "gen", "fat-tree", "--k", "5"], "k must be an even integer"),
        (
            [
                "topo",
                "gen",
                "leaf-spine",
                "--leaves",
                "2",
                "--spines",
                "2",
                "--hosts-per-leaf",
                "1",
                "--host-rate",
                "fast",
            ],
            "expected a rate like 100G",
        ),
    ],
)
def test_errors_are_one_line_exit_1(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(ROOT / "topologies" / "leaf-spine-2x2.yaml") if a == "TOPO" else a for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_console_script_and_module(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "sprayfabric"
    assert script.exists(), "the sprayfabric console script is installed with the package"
    f = tmp_path / "t.yaml"
    done = subprocess.run(
        [str(script), "topo", "gen", "fat-tree", "--k", "2", "-o", str(f)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "sprayfabric", "routes", str(f), "--fail-link", "pod0-edge0,pod1-edge0"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == "sprayfabric: error: no link between pod0-edge0 and pod1-edge0\n"
