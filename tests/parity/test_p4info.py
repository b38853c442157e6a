"""P4Info as p4c-bm2-ss writes it, for the programs in `programs/`.

Without p4c: what p4c leaves out (tables no live code applies, actions only they or dead
branches use) and what it keeps (every extern instance, annotation text). With
p4c-bm2-ss on PATH: the whole P4Info equals p4c's (documentation strings aside, and
`initial_default_action`, which p4c writes only since 1.2.4.15).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from google.protobuf import text_format

from bench.p4c_conformance import comparable
from p4rt_proto import p4info_pb2
from softswitch.compiler import compile_file
from softswitch.p4info import p4info_for

PROGRAMS = sorted((Path(__file__).parent / "programs").glob("*.p4"))


def _names(entries: object) -> list[str]:
    return [e.preamble.name for e in entries]  # type: ignore[attr-defined]


def test_dead_code_and_unapplied_tables_leave_p4info() -> None:
    info = p4info_for(compile_file(Path(__file__).parent / "programs" / "p4info_pruned.p4"))
    assert _names(info.tables) == ["Pick.ports"]
    assert _names(info.actions) == ["NoAction", "Pick.mark_live", "Pick.set_port"]
    assert _names(info.counters) == ["Pick.spare_count", "Pick.dead_count"]
    assert _names(info.registers) == ["Pick.spare_reg"]
    assert not info.direct_counters


def test_annotations_reach_p4info_as_p4c_writes_them() -> None:
    info = p4info_for(compile_file(Path(__file__).parent / "programs" / "p4info_annotations.p4"))
    [table] = info.tables
    assert list(table.preamble.annotations) == [
        '@entry_restriction("\n        // a wide kind is never classified here\n'
        '        kind != 0x0800;\n        /* keep   spacing */ val::mask == 0;\n    ")'
    ]
    port = info.type_info.new_types["port_id_t"]
    assert list(port.annotations) == ['@port_hint("front panel")']
    assert port.translated_type.uri == "example.org/port_id"
    assert port.translated_type.HasField("sdn_string")
    # a translated value has the controller's width: a string has none
    [punt] = info.controller_packet_metadata
    assert [(m.name, m.bitwidth) for m in punt.metadata] == [("ingress_port", 0), ("reason", 9)]
    assert [h.preamble.name for h in info.controller_packet_metadata] == ["packet_in"]


@pytest.mark.skipif(
    shutil.which("p4c-bm2-ss") is None,
    reason="p4c-bm2-ss (the p4lang compiler) is not on PATH",
)
@pytest.mark.parametrize("p4", PROGRAMS, ids=lambda p: p.stem)
def test_p4info_is_p4cs(p4: Path, tmp_path: Path) -> None:
    out = subprocess.run(
        [
            "p4c-bm2-ss",
            "-o",
            str(tmp_path / "p.json"),
            "--p4runtime-files",
            str(tmp_path / "p.txtpb"),
            str(p4),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    theirs = text_format.Parse((tmp_path / "p.txtpb").read_text(), p4info_pb2.P4Info())
    ours = comparable(p4info_for(compile_file(p4)), theirs)
    assert text_format.MessageToString(ours) == text_format.MessageToString(
        comparable(theirs, theirs)
    )
