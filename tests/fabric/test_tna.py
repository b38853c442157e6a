"""p4src/tna/fabric_tna.p4 must stay valid TNA/T2NA: p4test checks every profile
against the Tofino architecture includes in $TNA_INCLUDE (they are not part of
the project), and its P4Info must match the v1model one wherever a feature exists
on both (same table, key, action and parameter names and widths)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from google.protobuf import text_format

from p4rt_proto import p4info_pb2

ROOT = Path(__file__).resolve().parents[2]
TNA = ROOT / "p4src" / "tna" / "fabric_tna.p4"
V1MODEL = ROOT / "p4src" / "fabric.p4"
# (Tofino generation, profile defines): every TNA profile on both chips
PROFILES = [
    (t, d)
    for t in ("1", "2")
    for d in ([], ["-DWITH_CORE_ONLY"], ["-DWITH_INT"], ["-DWITH_ECN"], ["-DWITH_CONGESTION"])
]

pytestmark = [
    pytest.mark.skipif(shutil.which("p4test") is None, reason="p4test is not on PATH"),
    pytest.mark.skipif(
        not os.environ.get("TNA_INCLUDE"),
        reason="TNA_INCLUDE (the directory holding tna.p4 and t2na.p4) is not set",
    ),
]


def _p4test(args: list[str], out: Path) -> tuple[p4info_pb2.P4Info, str]:
    run = subprocess.run(
        ["p4test", "--std", "p4-16", *args, "--p4runtime-files", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    info = p4info_pb2.P4Info()
    text_format.Parse(out.read_text(), info)
    return info, run.stderr


def _tna(tofino: str, defines: list[str], tmp_path: Path) -> tuple[p4info_pb2.P4Info, str]:
    include = os.environ["TNA_INCLUDE"]
    return _p4test(
        ["-I", include, f"-D__TARGET_TOFINO__={tofino}", *defines, str(TNA)],
        tmp_path / f"tna{tofino}.p4info.txtpb",
    )


Keys = tuple[tuple[str, int, int], ...]
Actions = set[tuple[str, tuple[tuple[str, int], ...]]]


def _shape(info: p4info_pb2.P4Info) -> dict[str, tuple[Keys, Actions]]:
    """Table -> (keys with widths and match kinds, actions with parameter widths)."""
    actions = {
        a.preamble.id: (a.preamble.name, tuple((p.name, p.bitwidth) for p in a.params))
        for a in info.actions
    }
    return {
        t.preamble.name: (
            tuple((f.name, f.bitwidth, f.match_type) for f in t.match_fields),
            {actions[r.id] for r in t.action_refs},
        )
        for t in info.tables
    }


def _id(p: tuple[str, list[str]]) -> str:
    return f"tofino{p[0]} " + (" ".join(p[1]) or "full")


@pytest.mark.parametrize("profile", PROFILES, ids=_id)
def test_p4test_accepts_tna_without_warnings(
    profile: tuple[str, list[str]], tmp_path: Path
) -> None:
    info, stderr = _tna(*profile, tmp_path)
    assert [ln for ln in stderr.splitlines() if "warning" in ln] == []
    assert len(info.tables) > 0


@pytest.mark.parametrize("profile", PROFILES, ids=_id)
def test_tna_tables_match_v1model(profile: tuple[str, list[str]], tmp_path: Path) -> None:
    tna = _shape(_tna(*profile, tmp_path)[0])
    v1 = _shape(_p4test([str(V1MODEL)], tmp_path / "v1model.p4info.txtpb")[0])
    for name, (keys, actions) in tna.items():
        assert name in v1, f"{name} has no v1model counterpart"
        v1_keys, v1_actions = v1[name]
        assert keys == v1_keys, name
        # TNA may offer fewer modes (docs/tna.md), never another signature
        assert actions <= v1_actions, (name, actions - v1_actions)


GROUP = "FabricIngress.load_balance.next_hop_group"
# next_hop_group modes both targets must offer, with v1model's signature
SHARED_GROUP_MODES = (
    "use_ecmp",
    "use_flowlet",
    "use_spray_random",
    "use_spray_round_robin",
    "use_adaptive",
)


def _actions_of(shape: dict[str, tuple[Keys, Actions]], table: str) -> dict[str, object]:
    return {name.rsplit(".", 1)[-1]: params for name, params in shape[table][1]}


def test_full_tna_profile_has_the_ecn_and_cnp_tables(tmp_path: Path) -> None:
    tables = _shape(_tna("1", [], tmp_path)[0])
    assert "FabricEgress.ecn.ecn_config" in tables
    assert "FabricIngress.load_balance.next_hop_member" in tables
    # decided in egress on TNA, under v1model's name so the encoder's intent is the same
    assert "FabricIngress.cnp_trigger.cnp_config" in tables
    assert "FabricIngress.cnp_trigger.cnp_config" not in _shape(
        _tna("1", ["-DWITH_ECN"], tmp_path)[0]
    )


INT_TABLES = (
    "FabricIngress.int_ingress.int_watchlist",
    "FabricIngress.int_ingress.int_sink_ports",
    "FabricEgress.int_egress.int_ports",
    "FabricEgress.int_egress.int_report",
    "FabricIngress.drop_report.drop_reasons",
    "FabricEgress.queue_report.queue_report_config",
)


@pytest.mark.parametrize("tofino", ["1", "2"])
def test_int_md_tables_are_built_with_v1model_names(tofino: str, tmp_path: Path) -> None:
    """INT-MD source, sink, transit and report tables and the drop and queue report
    tables exist on both chips in the full and INT profiles with exactly v1model's keys,
    actions and parameters (names and widths), not otherwise."""
    v1 = _shape(_p4test([str(V1MODEL)], tmp_path / "v1model.p4info.txtpb")[0])
    for defines in ([], ["-DWITH_INT"]):
        tables = _shape(_tna(tofino, defines, tmp_path)[0])
        assert [t for t in INT_TABLES if t not in tables] == [], defines
        for t in INT_TABLES:
            assert tables[t] == v1[t], (defines, t)
    core = _shape(_tna(tofino, ["-DWITH_CORE_ONLY"], tmp_path)[0])
    assert [t for t in INT_TABLES if t in core] == []


@pytest.mark.parametrize("tofino", ["1", "2"])
def test_trimming_is_built_on_both_chips(tofino: str, tmp_path: Path) -> None:
    """Tofino 2 cuts in ingress (mtu_trunc_len), Tofino 1 mirrors to a truncating session;
    both keep v1model's trim_config (its shape is checked with the others), only with
    WITH_CONGESTION."""
    trim = "FabricIngress.trim.trim_config"
    assert trim in _shape(_tna(tofino, ["-DWITH_CONGESTION"], tmp_path)[0])
    assert trim in _shape(_tna(tofino, [], tmp_path)[0])
    assert trim not in _shape(_tna(tofino, ["-DWITH_ECN"], tmp_path)[0])


def test_tx_byte_register_keeps_the_v1model_name_and_width(tmp_path: Path) -> None:
    """p4test leaves TNA's Register out of the P4Info: the TNA source must name the tx
    byte counter as v1model's P4Info does, with the same cell width."""
    info = _p4test([str(V1MODEL)], tmp_path / "v1model.p4info.txtpb")[0]
    (reg,) = [r for r in info.registers if r.preamble.name == "port_tx_bytes"]
    src = (ROOT / "p4src" / "tna" / "include" / "tx_bytes.p4").read_text()
    decl = re.search(r'@name\("\.(\w+)"\)\s*Register<bit<(\d+)>,', src)
    assert decl is not None, "tx_bytes.p4: no @name'd Register"
    assert decl.group(1) == reg.preamble.name
    assert int(decl.group(2)) == reg.type_spec.bitstring.bit.bitwidth


def _packet_metadata(info: p4info_pb2.P4Info) -> dict[str, tuple[tuple[str, int], ...]]:
    return {
        c.preamble.name: tuple((m.name, m.bitwidth) for m in c.metadata)
        for c in info.controller_packet_metadata
    }


@pytest.mark.parametrize("tofino", ["1", "2"])
def test_tna_packet_in_out_headers_are_the_v1model_ones(tofino: str, tmp_path: Path) -> None:
    """The controller reads and writes the same packet-in/out metadata on both targets."""
    v1 = _packet_metadata(_p4test([str(V1MODEL)], tmp_path / "v1.txtpb")[0])
    tna = _packet_metadata(_tna(tofino, [], tmp_path)[0])
    assert set(tna) == {"packet_in", "packet_out"}
    assert tna == v1


@pytest.mark.parametrize("tofino", ["1", "2"])
def test_tna_group_modes_are_the_v1model_ones(tofino: str, tmp_path: Path) -> None:
    """Every shared load-balancing mode exists on TNA with v1model's parameter names
    and widths (the live-member mask included), in the core profile too."""
    v1 = _actions_of(_shape(_p4test([str(V1MODEL)], tmp_path / "v1.txtpb")[0]), GROUP)
    for defines in ([], ["-DWITH_CORE_ONLY"]):
        tna = _actions_of(_shape(_tna(tofino, defines, tmp_path)[0]), GROUP)
        for mode in SHARED_GROUP_MODES:
            assert mode in tna, f"tofino{tofino} {defines}: {mode} missing"
            assert tna[mode] == v1[mode], mode
            assert ("live_members", 32) in tna[mode], mode  # type: ignore[operator]


def test_encoder_writes_the_same_messages_for_both_targets(tmp_path: Path) -> None:
    """The encoder's forwarding, group, ECN, CNP, trim, INT report, drop and queue report
    intents, encoded against each P4Info,
    are the same P4Runtime messages (ids included: p4c derives them from the names),
    every load-balancing mode included."""
    from controller.codec import encode_entity
    from controller.lb import FabricEncoder
    from controller.lb.intent import NextHop
    from controller.lb.policy import Cnp, EcnStep, GroupMode, IntCollector, Trim
    from controller.p4info import P4Schema

    v1 = P4Schema(_p4test([str(V1MODEL)], tmp_path / "v1model.p4info.txtpb")[0])
    tna = P4Schema(_tna("2", [], tmp_path)[0])
    encoders = {"v1model": FabricEncoder(v1), "tna": FabricEncoder(tna)}
    schemas = {"v1model": v1, "tna": tna}
    messages: dict[str, list[bytes]] = {}
    for target, enc in encoders.items():
        entities = [
            enc.my_station("00:00:00:00:01:01"),
            enc.route("10.0.1.0/24", 7),
            enc.route("2001:db8::/32", 7),
            enc.route_drop("10.9.0.0/16"),
            enc.group(7, GroupMode("ecmp"), size=3),
            enc.group(8, GroupMode("flowlet", gap_us=50), size=2, live=0b01),
            enc.group(10, GroupMode("spray", spray="random"), size=4, live=0b1011),
            enc.group(11, GroupMode("spray", spray="round_robin"), size=32),
            enc.group(12, GroupMode("adaptive"), size=5, live=0b10111),
            enc.member(7, 2, NextHop(port=3, dmac="00:00:00:00:02:02"), "00:00:00:00:01:01"),
            enc.ecn(4, EcnStep(threshold=20)),
            enc.cnp(5, Cnp(queue_threshold=40, interval_us=50, dscp=48)),
            enc.trim(6, Trim(queue_threshold=30, dscp=46, priority=1)),
            enc.int_report(
                9,
                "00:00:00:00:01:01",
                "00:00:00:00:09:09",
                "10.0.0.1",
                IntCollector(ip="10.0.0.100", mac="00:00:00:00:09:09"),
            ),
            enc.drop_report(1, 1000),
            enc.drop_report(1, 50, reason=2),
            enc.queue_report(4, 1, threshold=64, min_gap_us=100),
        ]
        messages[target] = [
            encode_entity(schemas[target], e).SerializeToString(deterministic=True)
            for e in entities
        ]
    assert messages["tna"] == messages["v1model"]
    # every mode the encoder knows exists on TNA now
    for label in ("ecmp", "flowlet", "spray_random", "spray_round_robin", "adaptive"):
        assert encoders["tna"].mode_action(GroupMode.parse(label)) == encoders[
            "v1model"
        ].mode_action(GroupMode.parse(label))
