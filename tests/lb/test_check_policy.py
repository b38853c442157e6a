"""A policy checked against the program's P4Info before anything is written: values the
data plane cannot hold are errors naming the policy key."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import P4Schema
from controller.fabric import Pipeline
from controller.lb import FabricEncoder, PolicyError, check_policy, load_policy, parse_policy

ROOT = Path(__file__).resolve().parents[2]


def test_the_default_policy_fits_fabric_p4(encoder: FabricEncoder) -> None:
    check_policy(load_policy(ROOT / "topologies" / "policy-default.yaml"), encoder)


def _doc_blocks(kind: str) -> list[str]:
    """The ```KIND code blocks of docs/policy.md."""
    parts = (ROOT / "docs" / "policy.md").read_text().split("```")
    return [b.removeprefix(kind) for b in parts[1::2] if b.startswith(kind + "\n")]


def test_the_documented_example_policy_loads_and_fits(encoder: FabricEncoder) -> None:
    import yaml

    [example] = _doc_blocks("yaml")
    policy = parse_policy(yaml.safe_load(example), "policy.yaml")
    check_policy(policy, encoder, "policy.yaml")
    assert policy.group_mode(7).mode == "flowlet" and policy.group_mode(8).mode == "adaptive"
    assert policy.int_md is not None and policy.int_md.collector is not None
    assert policy.mtu_of(3) == 9000


@pytest.mark.parametrize(
    "text",
    [
        "load_balancing: {mode: sprey}",
        "ecn: {red: {min_threshold: 50, max_threshold: 10, max_probability: 1}}",
        "int: {watchlist: [{ip_dst: 10.0.0.1/8}]}",
        "ecn: {step: {threshold: 1048576}}",
        "load_balancing: {groups: {2000: adaptive}}",
    ],
)
def test_documented_error_messages_are_the_ones_printed(encoder: FabricEncoder, text: str) -> None:
    """docs/policy.md quotes these errors word for word."""
    import yaml

    documented = {ln for b in _doc_blocks("") for ln in b.splitlines() if ln.startswith("policy")}
    with pytest.raises(PolicyError) as ei:
        check_policy(parse_policy(yaml.safe_load(text), "policy.yaml"), encoder, "policy.yaml")
    assert str(ei.value) in documented


@pytest.mark.parametrize(
    ("text", "key", "what"),
    [
        ("ecn: {step: {threshold: 1048576}}", "ecn", "does not fit in 19 bits"),
        ("trim: {queue_threshold: 4, priority: 8}", "trim", "does not fit in 3 bits"),
        ("cnp: {queue_threshold: 4, interval_us: 4294967296}", "cnp", "32 bits"),
        ("mtu: {ports: {3: 70000}}", "mtu.ports.3", "does not fit in 16 bits"),
        ("load_balancing: {groups: {2000: adaptive}}", "load_balancing.groups.2000", "below 1024"),
        ("int: {max_hops: 256}", "int", "does not fit in 8 bits"),
        ("int: {watchlist: [{l4_dport: 70000}]}", "int.watchlist[0]", "16 bits"),
        ("int: {collector: {ip: 10.0.0.9, mac: nope}}", "int.collector", "neither a MAC"),
    ],
)
def test_values_the_program_cannot_hold(
    encoder: FabricEncoder, text: str, key: str, what: str
) -> None:
    import yaml

    policy = parse_policy(yaml.safe_load(text), "p.yaml")
    with pytest.raises(PolicyError) as ei:
        check_policy(policy, encoder, "p.yaml")
    assert ei.value.key == key
    assert what in ei.value.message
    assert str(ei.value).startswith(f"p.yaml: {key}: ")


def test_a_program_without_the_knob(pipeline: Pipeline) -> None:
    info = type(pipeline.p4info)()
    info.CopyFrom(pipeline.p4info)
    keep = [t for t in info.tables if not t.preamble.name.endswith("ecn_config")]
    del info.tables[:]
    info.tables.extend(keep)
    enc = FabricEncoder(P4Schema(info))
    with pytest.raises(PolicyError, match=r"p\.yaml: ecn: no table 'ecn_config'"):
        check_policy(parse_policy({"ecn": {"step": {"threshold": 5}}}, "p.yaml"), enc, "p.yaml")
