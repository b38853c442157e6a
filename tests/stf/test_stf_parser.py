"""Tests for the STF parser (softswitch.stf.parser)."""

from __future__ import annotations

from pathlib import Path

import pytest

from softswitch.stf.parser import (
    Add,
    CheckCounter,
    CounterWrite,
    Expect,
    McMgrpCreate,
    McNodeAssociate,
    McNodeCreate,
    MeterSetRates,
    MirroringAdd,
    MirroringAddMc,
    Packet,
    RegisterRead,
    RegisterReset,
    RegisterWrite,
    SetDefault,
    StfError,
    Wait,
    parse_stf,
    parse_stf_file,
)


def one(text: str) -> object:
    cmds = parse_stf(text)
    assert len(cmds) == 1
    return cmds[0]


def test_add_full() -> None:
    c = one("add ingress.t 100 hdr.h.f:0x0a** x:7 ingress.a(p:0x1, q:2) = A\n")
    assert c == Add(
        "ingress.t", 100, (("hdr.h.f", "0x0a**"), ("x", "7")), "ingress.a",
        (("p", "0x1"), ("q", "2")), "A", 1,
    )  # fmt: skip


def test_add_minimal_and_case_insensitive_keyword() -> None:
    c = one("ADD t k:0b1*0 NoAction()")
    assert isinstance(c, Add)
    assert c.priority is None and c.keys == (("k", "0b1*0"),) and c.args == ()
    assert c.action == "NoAction"


def test_names_with_dollar_index_and_quotes() -> None:
    c = one('add t data.$valid$:1 extra$0.h:0x25 stack[2].f:3 "ingress.x[1].y":4 "a.b"("p":1)')
    assert isinstance(c, Add)
    assert [k for k, _ in c.keys] == ["data.$valid$", "extra$0.h", "stack[2].f", "ingress.x[1].y"]
    assert c.action == "a.b" and c.args == (("p", "1"),)


def test_lpm_with_explicit_length() -> None:
    c = one("add t k:0x0a000000/8 a()")
    assert isinstance(c, Add) and c.keys == (("k", "0x0a000000/8"),)


def test_continuation_lines() -> None:
    cmds = parse_stf("add t\n   k:1\n   a(p:2)\n# comment\nwait\n")
    assert cmds == [Add("t", None, (("k", "1"),), "a", (("p", "2"),), None, 1), Wait(5)]


def test_setdefault() -> None:
    assert one("setdefault t a(x:1)  # comment") == SetDefault("t", "a", (("x", "1"),), 1)


def test_packet_and_expect() -> None:
    cmds = parse_stf(
        "packet 2 0102 03 04\nexpect 3 01** 0304 $\nexpect 4 ab\nExpect 5\nexpect 6 $\n"
    )
    assert cmds == [
        Packet(2, "01020304", 1),
        Expect(3, "01**0304", True, 2),
        Expect(4, "AB", False, 3),
        Expect(5, None, False, 4),
        Expect(6, "", True, 5),
    ]


def test_packet_data_may_be_odd_length() -> None:
    assert one("packet 0 abc") == Packet(0, "abc", 1)


def test_bmv2_commands() -> None:
    cmds = parse_stf(
        "mirroring_add 5 4\n"
        "mirroring_add_mc 6 1113\n"
        "mc_mgrp_create 1113\n"
        "mc_node_create 400 6 7\n"
        "mc_node_associate 1113 0\n"
        "register_write ingress.r 3 0x10\n"
        "register_read r 3\n"
        "register_reset r\n"
        "counter_write c 1 2 3\n"
        "meter_set_rates m 0 0.5:10 1:20\n"
        "check_counter cnt($A) packets == 3\n"
        "check_counter cnt(10)\n"
    )
    assert cmds == [
        MirroringAdd(5, 4, 1),
        MirroringAddMc(6, 1113, 2),
        McMgrpCreate(1113, 3),
        McNodeCreate(400, (6, 7), 4),
        McNodeAssociate(1113, 0, 5),
        RegisterWrite("ingress.r", 3, 16, 6),
        RegisterRead("r", 3, 7),
        RegisterReset("r", 8),
        CounterWrite("c", 1, 2, 3, 9),
        MeterSetRates("m", 0, ((0.5, 10), (1.0, 20)), 10),
        CheckCounter("cnt", "$A", "packets", "==", 3, 11),
        CheckCounter("cnt", "10", None, "==", 0, 12),
    ]


def test_commands_are_frozen() -> None:
    c = one("wait")
    with pytest.raises(AttributeError):
        c.line = 3  # type: ignore[misc, attr-defined]


@pytest.mark.parametrize(
    ("text", "line", "msg"),
    [
        ("wait\nfrobnicate 1\n", 2, "unknown STF command"),
        ("packet 0 01 # comment\n", 1, "comments"),
        ("packet 0 0*\n", 1, "only allowed in expect"),
        ("expect 0 01 $ 02\n", 1, "'$' must be the last"),
        ("packet x 01\n", 1, "port"),
        ("add t a()\n", 1, "at least one"),
        ("add t k:1\n", 1, "a key field or an action"),
        ("add t k:1 a(p:1\n", 1, "expected ')'"),
        ("add t k:-1 a()\n", 1, "illegal character"),
        ("add t 0x10 k:1 a()\n", 1, "priority must be a decimal"),
        ("mc_node_create 1\n", 1, "a port"),
        ("wait 3\n", 1, "unexpected '3'"),
        ("remove 3\n", 1, "'all'"),
    ],
)
def test_errors(text: str, line: int, msg: str) -> None:
    with pytest.raises(StfError) as ei:
        parse_stf(text, "t.stf")
    assert ei.value.line == line
    assert str(ei.value).startswith(f"t.stf:{line}: ")
    assert msg in str(ei.value)


def test_parse_file(tmp_path: Path) -> None:
    p = tmp_path / "x.stf"
    p.write_text("# only a comment\n\npacket 1 00\r\nexpect 1 00\n")
    assert parse_stf_file(p) == [Packet(1, "00", 3), Expect(1, "00", False, 4)]
