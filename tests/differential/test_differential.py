"""The differential runner (bench/differential): STF -> simple_switch_CLI translation,
output comparison, the packet fuzzer, and (with BMv2 installed) whole runs on both
targets."""

from __future__ import annotations

import json
import random
import struct
from pathlib import Path

import pytest

from bench.differential import (
    AGREE,
    DIFFER,
    EXCLUDED,
    Bmv2Tools,
    Case,
    CliTranslator,
    Differ,
    Untranslatable,
    compare_outputs,
    compile_bmv2,
    fuzz_commands,
    mutate,
    run_on_bmv2,
)
from bench.differential.__main__ import main
from softswitch.stf import parse_stf
from softswitch.stf import parser as P

BMV2 = Bmv2Tools.find()
needs_bmv2 = pytest.mark.skipif(
    BMV2 is None, reason="p4c-bm2-ss, simple_switch and simple_switch_CLI are not on PATH"
)

# the table layout p4c-bm2-ss writes for a program with these tables
JSON = {
    "actions": [
        {"name": "ingress.fwd", "runtime_data": [{"name": "port", "bitwidth": 9}]},
        {"name": "ingress.set2", "runtime_data": [{"name": "a", "bitwidth": 8},
                                                  {"name": "b", "bitwidth": 8}]},
        {"name": "NoAction", "runtime_data": []},
    ],
    "pipelines": [
        {"name": "ingress", "tables": [
            {"name": "ingress.route", "key": [
                {"match_type": "exact", "name": "hdr.h.kind"},
                {"match_type": "lpm", "name": "hdr.h.dst"},
            ], "actions": ["ingress.fwd", "NoAction"]},
            {"name": "ingress.acl", "key": [
                {"match_type": "ternary", "name": "hdr.h.dst"},
                {"match_type": "exact", "name": "hdr.stack[1].x"},
                {"match_type": "exact", "name": "hdr.opt.$valid$"},
            ], "actions": ["ingress.set2", "NoAction"]},
            {"name": "ingress.ranges", "key": [
                {"match_type": "range", "name": "hdr.h.dst"},
            ], "actions": ["NoAction"]},
        ]},
        {"name": "egress", "tables": []},
    ],
}  # fmt: skip


@pytest.fixture
def translator(tmp_path: Path) -> CliTranslator:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(JSON))
    return CliTranslator(path)


def lines(t: CliTranslator, stf: str) -> list[str | None]:
    return [t.line(c) for c in parse_stf(stf)]


def test_add_fills_missing_keys_and_converts_lpm(translator: CliTranslator) -> None:
    assert lines(translator, "add route dst:0x0a01**** fwd(port:3)") == [
        "table_add ingress.route ingress.fwd 0 0x0a010000/16 => 3"
    ]
    assert lines(translator, "add route kind:7 dst:0b1* ingress.fwd(port:0x1)") == [
        "table_add ingress.route ingress.fwd 7 0b10/1 => 0x1"
    ]


def test_ternary_mask_priority_and_key_aliases(translator: CliTranslator) -> None:
    got = lines(translator, "add acl 5 dst:0x**01 stack$1.x:4 hdr.opt.valid:1 set2(b:2, a:1)")
    # STF's larger-wins priority 5 becomes the CLI's smaller-wins 9995; args in JSON order
    assert got == ["table_add ingress.acl ingress.set2 0x0001&&&0x00ff 4 1 => 1 2 9995"]


def test_setdefault_keeps_names_as_written(translator: CliTranslator) -> None:
    assert lines(translator, "setdefault acl set2(a:1, b:9)") == ["table_set_default acl set2 1 9"]


def test_pass_through_and_silent_commands(translator: CliTranslator) -> None:
    stf = """
mirroring_add 5 3
mc_mgrp_create 1
mc_node_create 0 1 2
mc_node_associate 1 0
register_write r 2 7
counter_read c 0
expect 1 00
packet 1 00
"""
    assert lines(translator, stf) == [
        "mirroring_add 5 3",
        "mc_mgrp_create 1",
        "mc_node_create 0 1 2",
        "mc_node_associate 1 0",
        "register_write r 2 7",
        None,
        None,
        None,
    ]


@pytest.mark.parametrize(
    ("stf", "why"),
    [
        ("add ranges dst:1 NoAction()", "range key"),
        ("add acl 1 dst:7 NoAction()", "decimal value"),
        ("add route nosuch:1 NoAction()", "unexpected key field nosuch"),
        ("add route kind:1 fwd()", "missing argument"),
        ("add nosuch k:1 NoAction()", "unknown table nosuch"),
    ],
)
def test_untranslatable(translator: CliTranslator, stf: str, why: str) -> None:
    with pytest.raises(Untranslatable, match=why):
        lines(translator, stf)


def test_decimal_lpm_sends_nothing(translator: CliTranslator) -> None:
    # p4c's runner turns it into "0x0x..", which the CLI rejects: no entry on either side
    assert lines(translator, "add route dst:10 fwd(port:1)") == [None]


def test_compare_outputs_names_count_and_first_byte() -> None:
    same = {1: [b"\x01\x02"], 2: []}
    assert compare_outputs(same, dict(same)) == []
    diffs = compare_outputs({1: [b"\x01\x02"], 2: [b"x"]}, {1: [b"\x01\x03"], 2: []})
    assert diffs[0].startswith("port 1 packet 0: differ at byte 1")
    assert diffs[1] == "port 2: softswitch sent 1 packets, BMv2 0"
    assert "length 1 vs 2" in compare_outputs({1: [b"a"]}, {1: [b"ab"]})[0]


def test_fuzz_is_seeded_and_keeps_control_commands() -> None:
    cmds = parse_stf("add t k:1 a()\nexpect 1 0102\npacket 1 0102 0304\nregister_reset r\n")
    a = fuzz_commands(cmds, 5, random.Random(3))
    assert a == fuzz_commands(cmds, 5, random.Random(3))
    assert [type(c).__name__ for c in a] == ["Add", "Expect", *["Packet"] * 6, "RegisterReset"]
    mutants = [c for c in a if isinstance(c, P.Packet)][1:]
    assert all(m.port == 1 and m.data for m in mutants)
    assert any(m.data != "01020304" for m in mutants)
    rng = random.Random(0)
    assert all(mutate(b"\x01", rng) for _ in range(200))  # never an empty packet


def test_probe_packets_are_seeded_and_reach_every_port() -> None:
    from bench.differential.probes import PORTS, probe_commands, uses_random

    a = probe_commands("prog", 3)
    assert a == probe_commands("prog", 3) and a != probe_commands("other", 3)
    assert all(isinstance(c, P.Packet) and c.data for c in a)
    assert {c.port for c in a} == set(PORTS)
    assert len([c for c in a if c.port == 0]) == 8  # every frame on the first port
    assert uses_random("apply { random<bit<8>>(x, 0, 7); }")
    assert uses_random("apply { random(x, 8w0, 8w7); }")
    assert not uses_random("// random(x, 0, 1)\napply { x = random_seed; }")


def test_pcap_input_becomes_packets_in_order(tmp_path: Path) -> None:
    from bench.differential.__main__ import _pcap_packets
    from softswitch.ports import PcapWriter

    w = PcapWriter(tmp_path / "us.pcap")
    w.write(b"\x01\x02", ts_ns=5_000)
    w.write(b"\x03", ts_ns=6_000)
    w.close()
    # a little-endian nanosecond capture (tcpdump --time-stamp-precision=nano)
    ns = struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1)
    ns += struct.pack("<IIII", 1, 7, 3, 3) + b"\xaa\xbb\xcc"
    ns += struct.pack("<IIII", 1, 9, 1, 1) + b"\xdd"
    (tmp_path / "ns.pcap").write_bytes(ns)
    got = _pcap_packets([f"2={tmp_path / 'us.pcap'}", f"4={tmp_path / 'ns.pcap'}"])
    assert [(c.port, c.data) for c in got] == [(2, "0102"), (2, "03"), (4, "aabbcc"), (4, "dd")]
    with pytest.raises(ValueError, match="expected PORT=FILE"):
        _pcap_packets(["us.pcap"])
    (tmp_path / "bad.pcap").write_bytes(b"not a capture, twenty-four+ bytes long")
    with pytest.raises(ValueError, match="not a pcap file"):
        _pcap_packets([f"1={tmp_path / 'bad.pcap'}"])


def test_cli_without_bmv2_says_so(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    assert main(["prog.p4"]) == 2
    assert "BMv2 not found" in capsys.readouterr().out


# ------------------------------------------------------------------ on BMv2

PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> kind; bit<16> dst; bit<8> n; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    register<bit<8>>(4) seen;
    action fwd(bit<9> port, bit<8> n) { sm.egress_spec = port; hdr.h.n = n; }
    action drop() { mark_to_drop(sm); }
    table route {
        key = { hdr.h.kind : exact; hdr.h.dst : ternary; }
        actions = { fwd; drop; }
        default_action = drop();
    }
    apply {
        route.apply();
        bit<8> c;
        seen.read(c, 0);
        seen.write(0, c + 1);
        hdr.h.kind = hdr.h.kind + c;
    }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""

STF = """
add route 10 kind:1 dst:0x12** fwd(port:2, n:0xaa)
add route 20 kind:1 dst:0x1234 fwd(port:3, n:0xbb)
expect 2 01 1299 aa ff
packet 1 01 1299 00 ff
expect 3 02 1234 bb
packet 1 01 1234 00
packet 1 02 1234 00
expect 2 04 12ff aa
packet 1 01 12ff 00
"""


@needs_bmv2
def test_bmv2_outputs_of_an_stf_run(tmp_path: Path) -> None:
    """The BMv2 side alone: entries through the CLI, packets one at a time, the register
    counting packets in order (the dropped third one included)."""
    assert BMV2 is not None
    src = tmp_path / "prog.p4"
    src.write_text(PROGRAM)
    config = compile_bmv2(BMV2, src, tmp_path / "prog.json")
    run = run_on_bmv2(BMV2, config, parse_stf(STF), tmp_path / "run")
    assert run.aborted == "" and run.cli_errors == []
    assert run.outputs == {
        1: [],
        2: [bytes.fromhex("011299aaff"), bytes.fromhex("0412ffaa")],
        3: [bytes.fromhex("021234bb")],
    }


@needs_bmv2
def test_differ_agrees_and_catches_a_difference(tmp_path: Path) -> None:
    assert BMV2 is not None
    src = tmp_path / "prog.p4"
    src.write_text(PROGRAM)
    differ = Differ(BMV2, tmp_path / "work")
    case = Case("prog", src, tuple(parse_stf(STF)))
    assert differ.run(case).verdict == AGREE
    fuzzed = Case("prog", src, fuzz_commands(case.commands, 3, random.Random(1)))
    assert differ.run(fuzzed).verdict == AGREE
    # the same program with another constant: softswitch and BMv2 now run different code
    other = tmp_path / "other.p4"
    other.write_text(PROGRAM.replace("c + 1", "c + 2"))
    differ._configs[other] = differ._configs[src]  # BMv2 keeps the original program
    got = differ.run(Case("other", other, case.commands))
    assert got.verdict == DIFFER
    assert "port 2 packet 1: differ at byte 0" in got.detail


STALE = """
#include <core.p4>
#include <v1model.p4>
header a_t { bit<8> more; bit<8> x; }
header b_t { bit<8> y; }
struct headers_t { a_t a; b_t b; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.a);
        transition select(hdr.a.more) { 1: parse_b; default: accept; }
    }
    state parse_b { pkt.extract(hdr.b); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { hdr.a.x = hdr.b.y; sm.egress_spec = 2; }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


@needs_bmv2
def test_stale_invalid_header_bits_are_excluded_with_the_reason(tmp_path: Path) -> None:
    """The second packet reads hdr.b while it is invalid: BMv2 returns what the first
    packet left there, softswitch 0. Alone, the second packet gives 0 on both."""
    assert BMV2 is not None
    src = tmp_path / "stale.p4"
    src.write_text(STALE)
    cmds = parse_stf("packet 1 01 00 07\nexpect 2 01 07 07\npacket 1 00 00\nexpect 2 00 00\n")
    differ = Differ(BMV2, tmp_path / "work")
    ours, theirs = differ.outputs(Case("stale", src, tuple(cmds)))
    assert ours[2] == [bytes.fromhex("010707"), bytes.fromhex("0000")]
    assert theirs.outputs[2] == [bytes.fromhex("010707"), bytes.fromhex("0007")]
    assert theirs.sources[2] == [0, 1]
    got = differ.run(Case("stale", src, tuple(cmds)))
    assert got.verdict == EXCLUDED
    assert "input packet 1 depends on the packets before it" in got.detail


def test_conformance_program_lists(tmp_path: Path) -> None:
    from bench.p4c_conformance import v1model_programs

    # which programs: v1model ones, with or without an STF test of their own
    for name, text in (("a", "#include <v1model.p4>"), ("b", "#include <v1model.p4>"), ("c", "")):
        (tmp_path / f"{name}.p4").write_text(text)
    (tmp_path / "a.stf").write_text("packet 0 00\n")
    (tmp_path / "gone.p4").symlink_to(tmp_path / "missing.p4")
    assert [p.name for p in v1model_programs(tmp_path, with_stf=True)] == ["a.p4"]
    assert [p.name for p in v1model_programs(tmp_path, with_stf=False)] == ["b.p4"]
    assert [p.name for p in v1model_programs(tmp_path)] == ["a.p4", "b.p4"]
