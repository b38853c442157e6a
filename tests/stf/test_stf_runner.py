"""Tests for the STF runner (softswitch.stf.runner) and the `softswitch stf` command."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from softswitch.cli import main
from softswitch.stf import run_stf
from softswitch.stf import runner as R

DATA = Path(__file__).parent / "data"
FWD = DATA / "fwd.p4"


def fwd_test(tmp_path: Path, stf: str, name: str = "fwd") -> tuple[Path, Path]:
    """A copy of the forwarding program with its own STF text."""
    p4 = tmp_path / f"{name}.p4"
    shutil.copy(FWD, p4)
    s = tmp_path / f"{name}.stf"
    s.write_text(stf)
    return p4, s


# ------------------------------------------------------------------ passing tests


def test_data_program_passes() -> None:
    r = run_stf(FWD)
    assert r.status == "pass", (r.reason, r.diff)
    assert r.exit_code == 0


def test_cli_single_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stf", str(FWD)]) == 0
    assert capsys.readouterr().out.strip() == "PASS fwd"


def test_exact_key_defaults_to_zero(tmp_path: Path) -> None:
    p4, stf = fwd_test(
        tmp_path,
        "add t_exact t:0x0800 set_out(port:2, val:1)\n"
        "packet 0 01 00000000 0800 00\n"
        "expect 2 01 00000000 0800 01\n",
    )
    r = run_stf(p4, stf)
    assert r.status == "fail"
    assert "expected 1 packets on port 2 got 0" in r.reason


def test_lpm_prefix_from_digits(tmp_path: Path) -> None:
    # the value is right-aligned as the BMv2 CLI reads it: 0x0a01 on 32 bits is 0.0.10.1/16
    p4, stf = fwd_test(
        tmp_path,
        "add t_lpm addr:0x0a01 set_out(port:2, val:1)\n"
        "add t_lpm addr:0x0a01**** set_out(port:2, val:2)\n"
        "packet 0 02 0000ffff 0000 00\n"
        "packet 0 02 0a01ffff 0000 00\n"
        "expect 2 02 0000ffff 0000 01\n"
        "expect 2 02 0a01ffff 0000 02\n",
    )
    r = run_stf(p4, stf)
    assert r.passed, (r.reason, r.diff)


def test_ternary_equal_priority_first_added_wins(tmp_path: Path) -> None:
    p4, stf = fwd_test(
        tmp_path,
        "add t_tern 7 addr:0x0a****** set_out(port:2, val:1)\n"
        "add t_tern 7 addr:0x**00**** set_out(port:2, val:2)\n"
        "add t_tern 6 addr:0x0a00**** set_out(port:2, val:3)\n"
        "packet 0 03 0a000000 0000 00\n"
        "expect 2 03 0a000000 0000 01\n",
    )
    r = run_stf(p4, stf)
    assert r.passed, (r.reason, r.diff)


def test_ternary_without_priority_fails(tmp_path: Path) -> None:
    p4, stf = fwd_test(tmp_path, "add t_tern addr:0x0a****** set_out(port:2, val:1)\n")
    r = run_stf(p4, stf)
    assert r.status == "fail" and "priority" in r.reason


def test_expect_without_data_and_dollar(tmp_path: Path) -> None:
    p4, stf = fwd_test(
        tmp_path,
        "setdefault t_lpm set_out(port:2, val:7)\n"
        "packet 0 02 00000000 0000 00 aabb\n"
        "packet 0 02 00000000 0000 00 aabb\n"
        "expect 2\n"
        "expect 2 02 00000000 0000 07 aa\n",
    )
    assert run_stf(p4, stf).passed
    p4, stf = fwd_test(
        tmp_path,
        "setdefault t_lpm set_out(port:2, val:7)\n"
        "packet 0 02 00000000 0000 00 aabb\n"
        "expect 2 02 00000000 0000 07 aa $\n",
    )
    r = run_stf(p4, stf)
    assert r.status == "fail" and "too long" in r.reason


def test_observed_port_without_expect_must_stay_silent(tmp_path: Path) -> None:
    p4, stf = fwd_test(
        tmp_path,
        "add t_exact t:0x0900 kind:1 set_out(port:0, val:9)\npacket 0 01 00000000 0900 00\n",
    )
    r = run_stf(p4, stf)
    assert r.status == "fail"
    assert "expected 0 packets on port 0 got 1" in r.reason


def test_unobserved_port_is_ignored(tmp_path: Path) -> None:
    p4, stf = fwd_test(
        tmp_path,
        "add t_exact t:0x0900 kind:1 set_out(port:9, val:9)\npacket 0 01 00000000 0900 00\n",
    )
    assert run_stf(p4, stf).passed


def test_multicast(tmp_path: Path) -> None:
    p4, stf = fwd_test(
        tmp_path,
        "mc_mgrp_create 5\n"
        "mc_node_create 10 3 2\n"  # handle 0: ports 2 and 3, rid 10
        "mc_node_create 11 4\n"  # handle 1: port 4, rid 11
        "mc_node_associate 5 1\n"
        "mc_node_associate 5 0\n"
        "add t_exact t:0x0a00 kind:1 set_mcast(grp:5)\n"
        "packet 1 01 00000000 0a00 00\n"
        "expect 2 01 00000000 0a00 0a $\n"
        "expect 3 01 00000000 0a00 0a $\n"
        "expect 4 01 00000000 0a00 0b $\n",
    )
    r = run_stf(p4, stf)
    assert r.passed, (r.reason, r.diff)


def test_mirroring_add_and_clone(tmp_path: Path) -> None:
    p4, stf = fwd_test(
        tmp_path,
        "mirroring_add 7 6\n"
        "add t_exact t:0x0b00 kind:1 do_clone(session:7, port:1)\n"
        "packet 0 01 00000000 0b00 00 99\n"
        "expect 1 01 00000000 0b00 00 99 $\n"
        "expect 6 01 00000000 0b00 cc 99 $\n",
    )
    r = run_stf(p4, stf)
    assert r.passed, (r.reason, r.diff)


def test_bad_names_fail(tmp_path: Path) -> None:
    cases = {
        "add nosuch t:1 kind:1 drop()\n": "no table nosuch",
        "add t_exact nokey:1 drop()\n": "unexpected key field nokey",
        "add t_exact t:1 nosuch()\n": "no action nosuch",
        "add t_exact t:1 set_out(port:1)\n": "missing argument val",
        "add t_exact t:1 set_out(port:1, val:2, x:3)\n": "unexpected argument x",
        "add t_tern 1 t:12 drop()\n": "decimal value 12",
        "add t_exact t:1 t()\n": "ambiguous",
    }
    for text, msg in cases.items():
        p4, stf = fwd_test(tmp_path, text)
        r = run_stf(p4, stf)
        assert r.status == "fail", text
        assert msg in r.reason, (text, r.reason)
        assert "line 1" in r.reason


def test_cli_rejections_are_warnings(tmp_path: Path) -> None:
    p4, stf = fwd_test(
        tmp_path,
        "add t_exact t:0x0c00 kind:1 set_out(port:2, val:1)\n"
        "add t_exact t:0x0c00 kind:1 set_out(port:2, val:2)\n"  # duplicate: first stays
        "add t_exact t:0x10000 kind:1 set_out(port:2, val:3)\n"  # too wide for 2 bytes
        "packet 0 01 00000000 0c00 00\n"
        "expect 2 01 00000000 0c00 01\n",
    )
    r = run_stf(p4, stf)
    assert r.passed, (r.reason, r.diff)
    assert len(r.warnings) == 2
    assert "line 2" in r.warnings[0] and "line 3" in r.warnings[1]


def test_check_counter_and_registers(tmp_path: Path) -> None:
    p4 = tmp_path / "cnt.p4"
    p4.write_text(
        """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct H { h_t h; }
struct M {}
parser P(packet_in pk, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M m) { apply {} }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    counter(4, CounterType.packets_and_bytes) cnt;
    register<bit<8>>(4) reg;
    apply {
        cnt.count((bit<32>)hdr.h.a);
        reg.read(hdr.h.b, (bit<32>)hdr.h.a);
    }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply {} }
control CC(inout H hdr, inout M m) { apply {} }
control D(packet_out pk, in H hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
    )
    stf = tmp_path / "cnt.stf"
    stf.write_text(
        "register_write reg 1 0x42\n"
        "packet 0 01 00 aa\n"
        "packet 0 01 00\n"
        "expect 0 01 42 aa $\n"
        "expect 0 01 42 $\n"
        "check_counter cnt(1) packets == 2\n"
        "check_counter cnt(1) bytes == 5\n"
        "register_reset reg\n"
        "packet 0 01 00\n"
        "expect 0 01 00 $\n"
    )
    r = run_stf(p4, stf)
    assert r.passed, (r.reason, r.diff)
    stf.write_text("packet 0 01 00\nexpect 0\ncheck_counter cnt(1) packets > 1\n")
    r = run_stf(p4, stf)
    assert r.status == "fail" and "check_counter" in r.reason


# ------------------------------------------------------------------ failures, exit codes


def test_failing_expectation_reports_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p4, stf = fwd_test(
        tmp_path,
        "setdefault t_lpm set_out(port:2, val:7)\n"
        "packet 0 02 00000000 0000 00\n"
        "expect 2 02 00000000 0000 08 $\n",
    )
    r = run_stf(p4, stf)
    assert r.status == "fail"
    assert "port 2 packet 0 differs at byte 7" in r.reason
    assert "expect: 02 00 00 00 00 00 00 08" in r.diff
    assert "got:    02 00 00 00 00 00 00 07" in r.diff
    assert main(["stf", str(p4), str(stf)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL fwd: port 2 packet 0 differs")
    assert "^" in out


def test_unsupported_program_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    r = run_stf(DATA / "unsupported.p4")
    assert r.status == "unsupported"
    assert "my_extern" in r.reason
    assert main(["stf", str(DATA / "unsupported.p4")]) == 2
    assert "unsupported" in capsys.readouterr().out


def test_compile_error_is_a_positioned_failure(tmp_path: Path) -> None:
    p4 = tmp_path / "bad.p4"
    text = FWD.read_text()
    line = text[: text.index("hdr.h.res = val")].count("\n") + 1
    p4.write_text(text.replace("hdr.h.res = val", "hdr.h.nosuch = val"))
    (tmp_path / "bad.stf").write_text("")
    r = run_stf(p4)
    assert r.status == "fail"
    assert r.reason.startswith(f"{p4}:{line}:"), r.reason


def test_stf_syntax_error_fails(tmp_path: Path) -> None:
    p4, stf = fwd_test(tmp_path, "packet 0 01 # no comments here\n")
    r = run_stf(p4, stf)
    assert r.status == "fail" and f"{stf}:1:" in r.reason


def test_unsupported_command(tmp_path: Path) -> None:
    p4, stf = fwd_test(tmp_path, "no_packet\n")
    r = run_stf(p4, stf)
    assert r.status == "unsupported" and "no_packet" in r.reason


def test_internal_error_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(self: object, c: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(R._Run, "packet", boom)
    p4, stf = fwd_test(tmp_path, "packet 0 01 00000000 0000 00\n")
    r = run_stf(p4, stf)
    assert r.status == "fail"
    assert r.reason == "internal error: RuntimeError: boom"
    assert "Traceback" in r.traceback


# ------------------------------------------------------------------ --dir


def make_dir(tmp_path: Path) -> Path:
    d = tmp_path / "suite"
    d.mkdir()
    fwd_test(d, (DATA / "fwd.stf").read_text(), "a_pass")
    fwd_test(d, "packet 0 02 00000000 0000 00\nexpect 0 02\n", "b_fail")
    shutil.copy(DATA / "unsupported.p4", d / "c_unsup.p4")
    shutil.copy(DATA / "unsupported.stf", d / "c_unsup.stf")
    shutil.copy(FWD, d / "d_no_stf.p4")  # no .stf: not a test
    return d


def test_dir_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = make_dir(tmp_path)
    assert main(["stf", "--dir", str(d)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "PASS a_pass"
    assert lines[1] == "FAIL b_fail: expected 1 packets on port 0 got 0"
    assert lines[2].startswith("FAIL c_unsup: unsupported: ")
    assert lines[-1] == "1 passed, 2 failed"
    assert len(lines) == 4


def test_dir_select_and_jobs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = make_dir(tmp_path)
    assert main(["stf", "--dir", str(d), "-k", "pass"]) == 0
    assert capsys.readouterr().out.splitlines() == ["PASS a_pass", "1 passed, 0 failed"]
    assert main(["stf", "--dir", str(d), "--jobs", "2"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines[:-1])[0] == "FAIL b_fail: expected 1 packets on port 0 got 0"
    assert lines[-1] == "1 passed, 2 failed"


def test_defines_and_include_dirs(tmp_path: Path) -> None:
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "port.p4").write_text("#define OUT_PORT 3\n")
    p4 = tmp_path / "d.p4"
    p4.write_text(
        FWD.read_text()
        .replace("#include <v1model.p4>", "#include <v1model.p4>\n#include <port.p4>")
        .replace(
            "apply {\n        if (hdr.h.kind == 1)",
            "apply {\n#ifdef FORCE\n"
            "        sm.egress_spec = OUT_PORT; exit;\n#endif\n        if (hdr.h.kind == 1)",
        )
    )
    (tmp_path / "d.stf").write_text("packet 0 01 00000000 0000 00\nexpect 3 01\n")
    assert run_stf(p4, include_dirs=[inc], defines={"FORCE": "1"}).passed
    assert main(["stf", str(p4), "-I", str(inc), "-D", "FORCE"]) == 0
    assert run_stf(p4, include_dirs=[inc]).status == "fail"
