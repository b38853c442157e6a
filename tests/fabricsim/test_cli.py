"""`sprayfabric sim` and `sprayfabric sweep` (a local process pool)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from sprayfabric.cli import main
from sprayfabric.sim import parse_fail_link, parse_time_ns

TOPO = str(Path(__file__).resolve().parents[2] / "topologies" / "leaf-spine-2x2.yaml")


def test_time_and_fail_link_syntax() -> None:
    assert parse_time_ns("50us") == 50_000
    assert parse_time_ns("0.2ms") == 200_000
    assert parse_time_ns("7") == 7_000
    assert parse_fail_link("leaf1, spine2@1.5us") == ("leaf1", "spine2", 1_500)


def test_sim_prints_figures_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    rc = main(
        [
            "sim",
            TOPO,
            "--workload",
            "permutation",
            "--mode",
            "spray",
            "--flow-bytes",
            "20000",
            "--json",
            str(out),
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "permutation/spray/seed1" in text and "thru%" in text
    r = json.loads(out.read_text())
    assert r["flows_completed"] == 4 and r["config"]["mode"] == "spray"


def test_trim_threshold_reaches_the_switches(tmp_path: Path) -> None:
    """--trim-threshold 0 trims whatever meets a queue; off trims nothing (tail drop)."""
    trims = {}
    for value in ("0", "off"):
        out = tmp_path / f"{value}.json"
        args = ["--workload", "incast", "--flow-bytes", "20000", "--trim-threshold", value]
        assert main(["sim", TOPO, *args, "--json", str(out)]) == 0
        trims[value] = json.loads(out.read_text())["trims"]
    assert trims["0"] > 0 and trims["off"] == 0


def test_sim_errors_name_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", str(tmp_path / "none.yaml")]) == 1
    assert "none.yaml: no such topology file" in capsys.readouterr().err
    assert main(["sim", TOPO, "--fail-link", "leaf1,leaf2@5us"]) == 1
    assert "no link between leaf1 and leaf2" in capsys.readouterr().err
    assert main(["sim", TOPO, "--fail-link", "leaf1"]) == 1
    assert "A,B@TIME" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--flow-bytes", "0"], "--flow-bytes: expected a whole number of at least 1, got '0'"),
        (["--flow-bytes", "-5"], "--flow-bytes: expected a whole number of at least 1"),
        (["--trim-threshold", "-1"], "--trim-threshold: expected a queue depth in packets"),
        (["--fan-in", "0", "--workload", "incast"], "--fan-in: expected a whole number"),
        (["--time-limit", "0"], "--time-limit: expected a time above 0, got '0'"),
        (["--load", "2", "--workload", "poisson"], "--load: expected an offered load above 0"),
        (["--load", "0"], "--load: expected an offered load above 0"),
        (["--pfc", "--watchdog", "0us"], "--watchdog: expected a time above 0"),
        (["--watchdog", "20us"], "--watchdog needs --pfc"),
        (["--storm", "h4@2us"], "--storm needs --pfc"),
        (["--fan-in", "9", "--workload", "incast"], "incast fan-in 9: only 2 hosts can send to"),
    ],
)
def test_sim_refuses_values_it_cannot_run(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sim", TOPO, *args]) != 0
    err = capsys.readouterr().err
    assert says in err, err


def test_sweep_refuses_bad_grid_values(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", TOPO, "--loads", "0.5,1.5"]) != 0
    assert "expected an offered load above 0 and at most 1" in capsys.readouterr().err
    assert main(["sweep", TOPO, "--processes", "0"]) != 0
    assert "--processes: expected a whole number of at least 1" in capsys.readouterr().err


def test_sweep_runs_the_grid_on_a_process_pool(tmp_path: Path) -> None:
    out = tmp_path / "sweep.json"
    rc = main(
        [
            "sweep",
            TOPO,
            "--modes",
            "ecmp,spray",
            "--seeds",
            "1",
            "--flow-bytes",
            "20000",
            "--processes",
            "2",
            "-o",
            str(out),
        ]
    )
    assert rc == 0
    rows = json.loads(out.read_text())
    assert sorted(r["mode"] for r in rows) == ["ecmp", "spray"]
    assert all(
        r["workload"] == "permutation" and r["throughput_pct_of_line_rate"] > 0 for r in rows
    )
    from fabricsim.demo import SUMMARY_KEYS

    assert all(set(SUMMARY_KEYS) | {"pfc_pause_us"} <= r.keys() for r in rows)
    assert all(r["flows_completed"] > 0 for r in rows)


def _action(noun: str, verb: str, dest: str) -> Any:
    """The argparse action of `dest` in the command `sprayfabric NOUN VERB`."""
    from sprayfabric.cli import build_parser

    parser: Any = build_parser()
    for word in (noun, verb):
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = sub.choices[word]
    (action,) = [a for a in parser._actions if a.dest == dest]
    return action


def test_every_mode_command_takes_controller_lbs_one_list() -> None:
    import fabricsim
    from controller.lb import MODE_CHOICES, MODE_LABELS

    # `sim run --mode` and `lb set` take the same labels: the list, then its aliases
    assert tuple(_action("sim", "run", "mode").choices) == MODE_CHOICES
    assert tuple(_action("lb", "set", "mode").choices) == MODE_CHOICES
    assert tuple(_action("sim", "sweep", "modes").default) == MODE_LABELS == fabricsim.MODES
    assert "spray_random" in MODE_CHOICES  # `lb set` took it before `sim run` did


def test_cli_choices_are_the_simulators() -> None:
    # the CLI keeps its own copies so that parsing does not import the simulator
    import fabricsim
    from sprayfabric import sim

    assert tuple(fabricsim.WORKLOADS) == sim.WORKLOADS
    assert fabricsim.run.RECEIVERS + tuple(fabricsim.run.RECEIVER_ALIASES) == sim.RECEIVERS


def test_demo_grid_and_table() -> None:
    from fabricsim.demo import SUMMARY_KEYS, demo_jobs, format_table

    jobs = demo_jobs(1000, 500, 300, seed=7)
    keys = [j.key for j in jobs]
    workloads = {wl for wl, _ in keys}
    assert any("permutation" in w for w in workloads) and any("incast" in w for w in workloads)
    for wl in workloads:
        assert [m for w, m in keys if w == wl] == ["ecmp", "flowlet", "spray", "adaptive"]
    assert all(j.config.seed == 7 for j in jobs)
    row = dict.fromkeys(SUMMARY_KEYS, 0) | {"throughput_pct_of_line_rate": 41.25}
    table = format_table({"permutation": {"ecmp": row}})
    assert table.splitlines()[2].split()[:3] == ["permutation", "ecmp", "41.2"]


@pytest.mark.parametrize(
    "opt", ["--flow-bytes", "--incast-bytes", "--in-order-bytes", "--processes"]
)
def test_demo_refuses_sizes_below_one(
    opt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fabricsim.demo import main as demo_main

    with pytest.raises(SystemExit) as e:
        demo_main(["--out", str(tmp_path / "out"), opt, "0"])
    assert e.value.code == 2
    assert f"{opt} must be at least 1, not 0" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # refused before anything ran or was written


def test_size_mix_reaches_the_poisson_workload(tmp_path: Path) -> None:
    """--size-mix picks the distribution: under 1% of the mean lie about 60% of the Hadoop
    mix's flows (half are under 700 B, the mean is 120 kB) and about 19% of web search's;
    the run's config records the mix and the load."""
    small = {}
    for mix in ("websearch", "hadoop"):
        out = tmp_path / f"{mix}.json"
        args = ["--workload", "poisson", "--size-mix", mix, "--flow-bytes", "20000"]
        assert main(["sim", TOPO, *args, "--load", "0.3", "--json", str(out)]) == 0
        r = json.loads(out.read_text())
        assert r["config"]["size_mix"] == mix and r["config"]["load"] == 0.3
        small[mix] = sum(1 for f in r["flows"] if f["bytes"] < 200) / len(r["flows"])
    assert small["hadoop"] > 0.4 > small["websearch"]
