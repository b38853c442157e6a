"""The opt-in per-packet trace: parser states, extracted headers, tables, actions, drops."""

from __future__ import annotations

from softswitch.compiler import compile_text
from softswitch.engine.matches import Exact
from softswitch.v1model.switch import Switch
from tests.p4util import program

SRC = program(
    decls="header h_t { bit<8> k; bit<8> r; }",
    ingress="""
    action set_r(bit<8> v) { hdr.h.r = v; }
    action drop() { mark_to_drop(sm); }
    table t { key = { hdr.h.k: exact; } actions = { set_r; drop; } default_action = drop(); }
    apply { t.apply(); }
    """,
)


def test_trace_records_the_packet_walk() -> None:
    sw = Switch(compile_text(SRC, "t.p4", trace=True), trace=True)
    sw.tables["I.t"].add([Exact(1)], "I.set_r", (9,))
    sw.process(0, bytes([1, 0]))
    kinds = [(e.kind, e.name) for e in sw.trace_log]
    assert ("state", "start") in kinds
    assert ("extract", "hdr.h") in kinds
    assert ("action", "I.set_r") in kinds
    table = next(e for e in sw.trace_log if e.kind == "table")
    assert table.name == "I.t" and table.detail == "hit -> I.set_r(9,)"
    assert sw.trace_log[-1].kind == "output"
    sw.trace_log.clear()
    sw.process(0, bytes([2, 0]))
    assert [e.kind for e in sw.trace_log][-1] == "drop"


def test_no_trace_code_when_off() -> None:
    prog = compile_text(SRC, "t.p4")
    assert "_trace(" not in prog.source
    sw = Switch(prog)
    sw.process(0, bytes([1, 0]))
    assert sw.trace_log == []
