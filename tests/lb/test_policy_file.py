"""Policy YAML: the shipped default loads; every mistake names the file, the key and what
is wrong."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from controller.lb import (
    Cnp,
    EcnRed,
    EcnStep,
    GroupMode,
    IntCollector,
    PolicyError,
    Trim,
    instruction_bitmap,
    load_policy,
)
from sprayfabric.policy_args import add_policy_arguments, policy_from_args

ROOT = Path(__file__).resolve().parents[2]


def test_the_default_policy_loads() -> None:
    p = load_policy(ROOT / "topologies" / "policy-default.yaml")
    assert p.mode == GroupMode("spray", gap_us=100, spray="random")
    assert dict(p.groups) == {}
    assert p.ecn == EcnStep(20)
    assert p.trim == Trim(48, 46, 1)
    assert p.cnp == Cnp(16, 50, 48)
    assert p.int_md is not None and p.int_md.max_hops == 8
    assert p.int_md.instructions == 0xF000
    assert [(w.ip_proto, w.l4_dport, w.priority) for w in p.int_md.watchlist] == [(17, 4791, 10)]
    assert p.mtu == 1500


def test_every_knob(tmp_path: Path) -> None:
    f = tmp_path / "p.yaml"
    f.write_text(
        """
load_balancing:
  mode: flowlet
  flowlet_gap_us: 300
  groups:
    7: {mode: spray, spray: round_robin}
    8: adaptive
    9: {flowlet_gap_us: 20}
ecn: {red: {min_threshold: 5, max_threshold: 40, max_probability: 32}}
int:
  instructions: 0x8000
  collector:
    {ip: 10.0.100.1, mac: "00:00:00:00:64:01", switch: leaf1, port: 7, truncate_bytes: 128,
     drop_report_gap_us: 1000}
mtu: {default: 1500, ports: {3: 9000, 4: 4000}}
"""
    )
    p = load_policy(f)
    assert p.mode == GroupMode("flowlet", 300)
    assert p.group_mode(7) == GroupMode("spray", 300, "round_robin")
    assert p.group_mode(8) == GroupMode("adaptive", 300)
    assert p.group_mode(9) == GroupMode("flowlet", 20)  # a group inherits the fabric mode
    assert p.group_mode(1) == p.mode
    assert p.ecn == EcnRed(5, 40, 32)
    assert p.trim is None and p.cnp is None
    assert p.int_md is not None and p.int_md.instructions == instruction_bitmap(("switch_id",))
    assert p.int_md.collector == IntCollector(
        "10.0.100.1",
        "00:00:00:00:64:01",
        switch="leaf1",
        port=7,
        truncate_bytes=128,
        drop_report_gap_us=1000,
    )
    assert (p.mtu_of(3), p.mtu_of(4), p.mtu_of(5)) == (9000, 4000, 1500)


@pytest.mark.parametrize(
    ("text", "key", "what"),
    [
        ("load_balancing: {mode: sprey}", "load_balancing.mode", "'sprey' is not one of ecmp"),
        ("load_balancing: {mode: spray, spray: zigzag}", "load_balancing.spray", "'zigzag'"),
        ("load_balancing: {flowlet_gap_us: -3}", "load_balancing.flowlet_gap_us", "negative"),
        ("load_balancing: {flowlet_gap_us: fast}", "load_balancing.flowlet_gap_us", "integer"),
        ("load_balancing: {groups: {x: ecmp}}", "load_balancing.groups.x", "group id"),
        (
            "load_balancing: {groups: {3: {mod: ecmp}}}",
            "load_balancing.groups.3.mod",
            "unknown key",
        ),
        ("balancing: {}", "balancing", "unknown key (known here: load_balancing"),
        ("ecn: {step: {threshold: 1}, red: {}}", "ecn", "one of step, red"),
        ("ecn: {step: {}}", "ecn.step.threshold", "missing"),
        (
            "ecn: {red: {min_threshold: 50, max_threshold: 10, max_probability: 1}}",
            "ecn.red",
            "min_threshold 50 > max_threshold 10",
        ),
        ("trim: {queue_threshold: 4, dscp: 64}", "trim", "dscp: 64 > 63"),
        ("cnp: [16]", "cnp", "expected a mapping, got a list"),
        ("int: {watchlist: [{ip_dst: 10.0.0.1/8}]}", "int.watchlist[0]", "host bits set"),
        ("int: {instructions: [switch_id, colour]}", "int.instructions", "'colour'"),
        ("int: {collector: {ip: 10.0.0.1}}", "int.collector.mac", "missing"),
        ("int: {collector: {ip: '2001:db8::1', mac: x}}", "int.collector", "reports are IPv4"),
        ("mtu: {ports: {3: big}}", "mtu.ports.3", "integer"),
    ],
)
def test_errors_name_file_key_and_problem(tmp_path: Path, text: str, key: str, what: str) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(text + "\n")
    with pytest.raises(PolicyError) as ei:
        load_policy(f)
    assert ei.value.source == str(f)
    assert ei.value.key == key
    assert what in ei.value.message
    assert str(ei.value).startswith(f"{f}: {key}: ")


def test_unreadable_and_invalid_yaml(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="No such file"):
        load_policy(tmp_path / "missing.yaml")
    f = tmp_path / "broken.yaml"
    f.write_text("ecn: {step: [\n")
    with pytest.raises(PolicyError, match=r"broken\.yaml: line \d+, column \d+: not valid YAML"):
        load_policy(f)


def _flags(*argv: str) -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    add_policy_arguments(ap)
    return ap.parse_args(list(argv))


def test_command_line_flags_override_the_file() -> None:
    default = ROOT / "topologies" / "policy-default.yaml"
    p = policy_from_args(
        _flags("--policy", str(default), "--lb-mode", "flowlet", "--flowlet-gap-us", "40",
               "--ecn-red", "5,30,64", "--trim", "10", "--cnp", "4,20,40", "--mtu", "9000")
    )  # fmt: skip
    assert p.mode == GroupMode("flowlet", 40)
    assert p.ecn == EcnRed(5, 30, 64)
    assert p.trim == Trim(10, 46, 1)
    assert p.cnp == Cnp(4, 20, 40)
    assert p.mtu == 9000
    assert p.int_md is not None  # kept from the file
    assert policy_from_args(_flags("--lb-mode", "spray_round_robin")).mode == GroupMode(
        "spray", spray="round_robin"
    )


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--lb-mode", "zigzag"), "--lb-mode"),
        (("--ecn-red", "5,30"), "--ecn-red"),
        (("--trim", "x"), "--trim"),
        (("--cnp", "4,2,99"), "--cnp"),
    ],
)
def test_bad_flags_name_the_flag(argv: tuple[str, ...], flag: str) -> None:
    with pytest.raises(PolicyError) as ei:
        policy_from_args(_flags(*argv))
    assert ei.value.key == flag
    assert str(ei.value).startswith(f"command line: {flag}: ")
