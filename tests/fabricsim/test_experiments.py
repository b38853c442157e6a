"""fabricsim.experiments: the registry, `sprayfabric experiment`, the spread, and quick
runs whose figures could break (spray over ECMP; the reorder sweep)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from fabricsim.compare import load_rows
from fabricsim.experiments import (
    SCENARIOS,
    Scenario,
    get,
    load_spec,
    permutation,
    reorder_window,
    run_scenario,
    spread,
)
from sprayfabric.cli import main


def test_registry_names_and_descriptions() -> None:
    assert set(SCENARIOS) == {
        "permutation",
        "permutation-k8",
        "permutation-2plane",
        "incast",
        "fct",
        "pfc-storm",
        "reorder-window",
    }
    for scn in SCENARIOS.values():
        assert scn.published and scn.headline
        assert load_spec(scn.topology).hosts  # a file or a generator spec that builds
    with pytest.raises(ValueError, match="permutation, permutation-k8"):
        get("nope")


def test_big_scenarios_topologies() -> None:
    k8 = load_spec(get("permutation-k8").topology)
    assert (len(k8.hosts), len(k8.switches)) == (128, 80)
    two = load_spec(get("permutation-2plane").topology)
    servers = two.servers()
    assert len(two.planes) == 2 and len(servers) == 64 and len(two.hosts) == 128
    assert all(sorted(h.plane for h in nics) == [0, 1] for nics in servers.values())


def test_spread_by_hand() -> None:
    s = spread([1.0, 2.0, 6.0])
    assert s["mean"] == 3.0 and s["min"] == 1.0 and s["max"] == 6.0
    # sample sd = sqrt(((4 + 1 + 9) / 2)) = sqrt(7); t(2 dof) = 4.303
    assert s["ci95"] == pytest.approx(4.303 * math.sqrt(7 / 3), abs=1e-3)
    assert spread([5.0])["ci95"] == 0.0


def test_cli_list_and_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in SCENARIOS)
    assert main(["experiment", "no-such"]) == 1
    err = capsys.readouterr().err
    assert "unknown experiment 'no-such'" in err and "reorder-window" in err
    assert main(["experiment"]) == 1


def _small(scn: Scenario, keep: tuple[str, ...], flow_bytes: int) -> Scenario:
    def variants(quick: bool) -> dict[str, Any]:
        v = scn.variants(True)
        return {k: replace(v[k], flow_bytes=flow_bytes) for k in keep}

    return replace(scn, variants=variants)


def test_permutation_spray_beats_ecmp_and_json_spread(tmp_path: Path) -> None:
    scn = _small(permutation.SCENARIO, ("ecmp/dctcp", "spray/dctcp"), 100_000)
    res = run_scenario(scn, seeds=(1, 2), quick=True, report=lambda _: None)
    (tmp_path / "perm.json").write_text(json.dumps(res))
    # compare reads an experiment's result: one row per variant and seed
    rows = load_rows(tmp_path / "perm.json")
    assert sorted((r.config["variant"], r.config["seed"]) for r in rows) == [
        ("ecmp/dctcp", 1),
        ("ecmp/dctcp", 2),
        ("spray/dctcp", 1),
        ("spray/dctcp", 2),
    ]
    by = {(r.config["variant"], r.config["seed"]): r.metrics for r in rows}
    assert (
        by[("spray/dctcp", 2)]["steady_pct"]
        == res["variants"]["spray/dctcp"]["per_seed"]["steady_pct"][1]
    )
    ecmp, spray = (res["variants"][k] for k in ("ecmp/dctcp", "spray/dctcp"))
    for v in (ecmp, spray):
        vals = v["per_seed"]["steady_pct"]
        assert len(vals) == 2
        assert v["spread"]["steady_pct"]["mean"] == pytest.approx(sum(vals) / 2, abs=1e-3)
        assert v["spread"]["steady_pct"]["min"] == min(vals)
    assert min(spray["per_seed"]["steady_pct"]) > max(ecmp["per_seed"]["steady_pct"]) + 10
    assert 0 < spray["spread"]["steady_pct"]["max"] <= 101


def test_reorder_sweep_non_decreasing_and_drops_shrink() -> None:
    scn = _small(reorder_window.SCENARIO, ("window=2", "window=16", "window=128"), 80_000)
    res = run_scenario(scn, seeds=(1,), quick=True, report=lambda _: None)
    v = res["variants"]
    thru = [v[k]["spread"]["steady_pct"]["mean"] for k in ("window=2", "window=16", "window=128")]
    assert thru[0] <= thru[1] + 1 and thru[1] <= thru[2] + 1
    drops = [v[k]["per_seed"]["dropped_outside_window"][0] for k in ("window=2", "window=128")]
    assert drops[0] > 0 and drops[1] == 0
    assert v["window=2"]["per_seed"]["occupancy_max"][0] <= 1  # the window bounds what it holds


def test_big_permutation_window_ends_at_the_longest_paths(program: Any) -> None:
    """permutation_big.measure: the window ends at the first completion among inter-pod
    flows, not at the first completion of all (an intra-pod flow's, on a fat-tree)."""
    from fabricsim.experiments import permutation_big
    from fabricsim.network import Network
    from fabricsim.run import simulate

    topo = load_spec("fat-tree:4")
    cfg = replace(permutation_big.PERMUTATION_K8.variants(True)["spray/dctcp"], seed=2)
    nets: list[Network] = []
    r = simulate(topo, cfg, program=program, on_network=nets.append)
    m = permutation_big.measure(r, nets[0], cfg)
    pod = {h.name: h.switch.split("-")[0] for h in topo.hosts}
    fcts = [f["fct_us"] for f in r["flows"]]
    inter = [f["fct_us"] for f in r["flows"] if pod[f["src"]] != pod[f["dst"]]]
    assert min(fcts) < min(inter)  # this seed has a flow that stays in its pod
    t1 = min(inter)
    assert m["window_us"] == pytest.approx(t1 - min(15.0, t1 / 2), abs=0.002)
    assert 0 < m["longest_path_pct"] <= 101 and 0 < m["steady_pct"] <= 101
