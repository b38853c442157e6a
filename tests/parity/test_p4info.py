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


def _structured(msg: object) -> dict[str, object]:
    """name -> list of values, or dict of key -> value, or None (an empty body)."""
    out: dict[str, object] = {}
    for sa in msg.structured_annotations:  # type: ignore[attr-defined]
        kind = sa.WhichOneof("body")
        if kind == "expression_list":
            out[sa.name] = [
                getattr(e, e.WhichOneof("value")) for e in sa.expression_list.expressions
            ]
        elif kind == "kv_pair_list":
            out[sa.name] = {
                kv.key: getattr(kv.value, kv.value.WhichOneof("value"))
                for kv in sa.kv_pair_list.kv_pairs
            }
        else:
            out[sa.name] = None
    return out


def test_structured_annotations_reach_p4info_evaluated() -> None:
    """`@name[...]` bodies are evaluated at compile time (literals, operators, constants in
    scope; width-typed values may be computed with) and written as structured
    annotations, never as annotation text (the figures are p4c-bm2-ss 1.2.4.8's)."""
    info = p4info_for(
        compile_file(Path(__file__).parent / "programs" / "p4info_structured_annotations.p4")
    )
    [table] = info.tables
    assert not table.preamble.annotations
    assert _structured(table.preamble) == {
        "empty": None,
        "Str": ["ab", "c"],
        "Logic": [False, True, False, True, False, False, True],
        "Bits": [1, 7, 6, True, True],
        "Kv": {"x": 1, "y": "two", "z": False, "w": "many"},
    }
    assert _structured(table.match_fields[0]) == {"Field": [1]}
    assert [_structured(r) for r in table.action_refs] == [{"Ref": ["r"]}, {}]
    fwd = next(a for a in info.actions if a.preamble.name == "I.fwd")
    assert _structured(fwd.preamble) == {"Act": [-5, 16, 8, 20, 3, 1, -2]}
    assert _structured(fwd.params[0]) == {"Param": {"k": "v"}}
    assert _structured(info.registers[0].preamble) == {"Reg": [42, "r"]}
    assert _structured(info.counters[0].preamble) == {"Cnt": {"k": 'a\\"b'}}  # escapes kept
    assert _structured(info.value_sets[0].preamble) == {"Set": [7]}
    assert _structured(info.controller_packet_metadata[0].metadata[0]) == {"Meta": ["in port", 3]}
    assert _structured(info.type_info.new_types["delay_t"]) == {"Units": ["ns"]}
    assert _structured(info.pkg_info) == {"Pkg": ["yes"]}


@pytest.mark.parametrize(
    "annotation, message",
    [
        ("@A[8w1]", "@A: 8w1: illegal type for structured annotation"),
        ("@A[W]", "@A: 8w1: illegal type for structured annotation"),  # W is a bit<8>
        ("@A[NOPE]", "@A: NOPE: no such declaration"),
        ("@A[sm.ingress_port]", "@A: structured annotation must be compile-time constant values"),
        ("@A[k=1, 2]", "@A: either expressions or key=value pairs, not both"),
        ("@A[k=1, k=2]", "@A: duplicate key k"),
        ('@A[1 + "x"]', "@A: cannot convert int to string"),
        ("@A[~1]", "@A: ~ needs a value of known width"),
    ],
)
def test_structured_annotations_p4c_refuses_are_errors_at_their_place(
    annotation: str, message: str
) -> None:
    from softswitch.compiler import compile_text
    from softswitch.frontend.errors import P4TypeError
    from tests.p4util import program

    src = program(
        decls="header h_t { bit<8> a; }\nconst bit<8> W = 1;",
        ingress=f"{annotation}\n    action a() {{ }}\n    apply {{ a(); }}",
    )
    line = next(i for i, ln in enumerate(src.splitlines(), 1) if annotation in ln)
    with pytest.raises(P4TypeError) as e:
        compile_text(src, "s.p4")
    assert f"s.p4:{line}:" in str(e.value) and message in str(e.value)


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
