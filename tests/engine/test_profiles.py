"""Action profiles and selectors: members, groups, BMv2's member choice by hash."""

from __future__ import annotations

from softswitch.engine.matches import Exact
from softswitch.v1model.hashes import crc16, pack_fields
from tests.p4util import program, switch

SRC = program(
    decls="header h_t { bit<8> k; bit<16> flow; bit<8> res; }",
    ingress="""
    action set_out(bit<8> v) { hdr.h.res = v; }
    table t {
        key = { hdr.h.k: exact; hdr.h.flow: selector; }
        actions = { set_out; NoAction; }
        implementation = action_selector(HashAlgorithm.crc16, 64, 16);
    }
    apply { t.apply(); }
    """,
)


def test_selector_picks_member_by_crc16_of_selector_fields() -> None:
    sw = switch(SRC)
    t = sw.tables["I.t"]
    prof = sw.externs[t.spec.implementation]
    for m in range(3):
        prof.add_member(m, "I.set_out", (10 + m,))
    prof.set_group(5, [0, 1, 2], {}, create=True)
    t.add([Exact(1)], "", group=5)
    for flow in (0, 1, 77, 4096, 65535):
        out = sw.process(0, bytes([1]) + flow.to_bytes(2, "big") + b"\0")[0][1][3]
        expect = 10 + crc16(pack_fields([(flow, 16)])) % 3
        assert out == expect


def test_member_entry_and_missing_group() -> None:
    sw = switch(SRC)
    t = sw.tables["I.t"]
    prof = sw.externs[t.spec.implementation]
    prof.add_member(7, "I.set_out", (42,))
    t.add([Exact(2)], "", member=7)
    assert sw.process(0, bytes([2, 0, 0, 0]))[0][1][3] == 42
    prof.set_group(9, [], {}, create=True)  # an empty group behaves as a miss
    t.add([Exact(3)], "", group=9)
    assert sw.process(0, bytes([3, 0, 0, 0]))[0][1][3] == 0
