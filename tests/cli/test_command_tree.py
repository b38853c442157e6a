"""The `sprayfabric` command tree: noun verb, and every old flat spelling an alias of its
new one, with the same options."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from sprayfabric.cli import GROUPS, PLACES, build_parser, canonical_argv, main

ROOT = Path(__file__).resolve().parents[2]
TOPO = str(ROOT / "topologies" / "leaf-spine-2x2.yaml")

# the top-level commands before the tree (each must still be accepted)
OLD_COMMANDS = (
    "topo", "routes", "sim", "sweep", "experiment", "compare", "doctor", "doctor-eval",
    "job-report", "up", "down", "status", "set-lb", "link", "telemetry", "send", "shell",
    "fault", "probe",
)  # fmt: skip


def _parse(argv: list[str]) -> argparse.Namespace:
    return build_parser().parse_args(canonical_argv(argv))


@pytest.mark.parametrize("old", OLD_COMMANDS)
def test_every_old_command_is_still_accepted(old: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([old, "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: sprayfabric ")


@pytest.mark.parametrize(("old", "place"), sorted(PLACES.items()))
def test_an_alias_is_its_new_spelling(old: str, place: tuple[str, str]) -> None:
    noun, verb = place
    assert canonical_argv([old, "X", "--y"]) == [noun, verb, "X", "--y"]
    parser = build_parser()
    with pytest.raises(SystemExit) as e:
        parser.parse_args([noun, verb, "--help"])
    assert e.value.code == 0


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (["set-lb", "flowlet", "--group", "3", "--gap-us", "40"],
         ["lb", "set", "flowlet", "--group", "3", "--gap-us", "40"]),
        (["sim", TOPO, "--mode", "spray", "--seed", "2"],
         ["sim", "run", TOPO, "--mode", "spray", "--seed", "2"]),
        (["sweep", TOPO, "--modes", "ecmp,spray"], ["sim", "sweep", TOPO, "--modes", "ecmp,spray"]),
        (["experiment", "--list"], ["sim", "experiment", "--list"]),
        (["doctor", "--json", "RUN.json"], ["doctor", "diagnose", "--json", "RUN.json"]),
        (["doctor-eval", TOPO, "--json"], ["doctor", "eval", TOPO, "--json"]),
        (["compare", "A", "B", "--all"], ["report", "compare", "A", "B", "--all"]),
        (["job-report", "RUN.json", "--top", "3"], ["report", "job", "RUN.json", "--top", "3"]),
        (["routes", TOPO, "--json"], ["topo", "routes", TOPO, "--json"]),
        (["up", TOPO, "--free-ports", "--lb-mode", "spray", "--ecn-step", "20"],
         ["fabric", "up", TOPO, "--free-ports", "--lb-mode", "spray", "--ecn-step", "20"]),
        (["down"], ["fabric", "down"]),
        (["status", "--json"], ["fabric", "status", "--json"]),
        (["telemetry", "--once"], ["fabric", "telemetry", "--once"]),
        (["send", "h1", "h2", "--roce"], ["fabric", "send", "h1", "h2", "--roce"]),
        (["shell", "leaf1", "--primary"], ["fabric", "shell", "leaf1", "--primary"]),
        (["probe", "--json", "o.json"], ["fabric", "probe", "--json", "o.json"]),
    ],
)  # fmt: skip
def test_old_and_new_spellings_parse_alike(old: list[str], new: list[str]) -> None:
    assert vars(_parse(old)) == vars(_parse(new))


def test_new_spellings_stay_as_they_are() -> None:
    for argv in (["sim", "sweep", TOPO], ["sim"], ["sim", "--help"], ["doctor", "-h"], ["lb"]):
        assert canonical_argv(argv) == argv
    assert canonical_argv(["link", "down", "a", "b"]) == ["link", "down", "a", "b"]


def test_the_help_lists_nouns_and_marks_the_aliases(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    listed, aliases = out.split("old spellings, aliases of the commands above:")
    for noun in (*GROUPS, "link", "fault"):
        assert f"    {noun} " in listed
    for old in ("up", "set-lb", "sweep", "job-report", "doctor-eval"):
        assert f"\n    {old} " not in listed  # hidden from the list of commands
    for old, (noun, verb) in PLACES.items():
        assert f"  {old} " in aliases and f"= {noun} {verb}" in aliases


def test_an_alias_runs_as_its_new_spelling(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["routes", TOPO]) == 0
    old = capsys.readouterr().out
    assert main(["topo", "routes", TOPO]) == 0
    new = capsys.readouterr().out
    strip = [line for line in old.splitlines() if not line.startswith("seconds:")]
    assert strip == [line for line in new.splitlines() if not line.startswith("seconds:")]


def test_a_usage_error_names_the_new_spelling(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["set-lb", "zigzag"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("sprayfabric lb set: error: argument mode: invalid choice")
    assert err.count("\n") == 1
