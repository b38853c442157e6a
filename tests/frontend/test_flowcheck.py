"""softswitch's uninitialised-use and invalid-header warnings (frontend/flowcheck.py).

Each program under flow/ marks the warnings expected on a line with `// warn: A | B`.
Those marks are what p4c-bm2-ss 1.2.4.8 prints for the program (the p4c test below checks
them whenever p4c-bm2-ss is on PATH); softswitch must print the same, with positions.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from softswitch.cli import main
from softswitch.compiler import compile_file, compile_text
from softswitch.frontend.flowcheck import check_flow
from softswitch.frontend.parse import parse_text
from softswitch.frontend.preprocess import preprocess

from ..fabric.test_p4c import FABRIC, PROFILES

HERE = Path(__file__).parent / "flow"
PROGRAMS = sorted(HERE.glob("*.p4"))
KINDS = ("may be uninitialized", "may not be completely initialized", "invalid header")
P4C_LINE = re.compile(
    r"^(.*?)\((\d+)\): \[--Wwarn=(uninitialized_use|invalid_header)\] warning: (.*)$"
)

Expected = set[tuple[int, str]]


def expected(path: Path) -> Expected:
    out: Expected = set()
    for n, line in enumerate(path.read_text().splitlines(), 1):
        _, mark, msgs = line.partition("// warn: ")
        if mark:
            out.update((n, m.strip()) for m in msgs.split("|"))
    return out


def softswitch_warnings(path: Path) -> Expected:
    """The flow warnings a full softswitch compile reports, as (line, message)."""
    compiled = compile_file(path)
    out: Expected = set()
    for w in compiled.warnings:
        where, _, msg = w.partition(": warning: ")
        if any(k in msg for k in KINDS):
            file, line, col = where.rsplit(":", 2)
            assert Path(file).name == path.name and int(col) > 0, w
            out.add((int(line), msg))
    return out


def test_every_program_expects_both_kinds() -> None:
    marks = set().union(*(expected(p) for p in PROGRAMS))
    assert any("uninitialized" in m for _, m in marks)
    assert any("invalid header" in m for _, m in marks)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_softswitch_warns_as_marked(path: Path) -> None:
    assert softswitch_warnings(path) == expected(path)


@pytest.mark.skipif(shutil.which("p4c-bm2-ss") is None, reason="p4c-bm2-ss is not on PATH")
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_p4c_warns_as_marked(path: Path, tmp_path: Path) -> None:
    out = subprocess.run(
        ["p4c-bm2-ss", "-o", str(tmp_path / "p.json"), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    theirs: Expected = set()
    for line in out.stderr.splitlines():
        m = P4C_LINE.match(line)
        if m:
            theirs.add((int(m.group(2)), m.group(4)))
    assert theirs == expected(path)


def test_warning_is_positioned_and_printed_by_compile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = (HERE / "flow_control.p4").read_text()
    compiled = compile_text(src, "prog.p4", include_dirs=[HERE])
    assert "prog.p4:42:19: warning: x may be uninitialized" in compiled.warnings
    prog = tmp_path / "prog.p4"
    prog.write_text(src)
    assert main(["compile", str(prog), "-o", str(tmp_path / "p.json")]) == 0
    err = capsys.readouterr().err
    assert f"{prog}:58:19: warning: accessing a field of an invalid header hdr.st[0]" in err


def test_initialised_and_guarded_program_is_clean() -> None:
    src = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
parser P(packet_in pk, out hs_t hdr, inout m_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); m.x = hdr.h.a; transition accept; }
}
control V(inout hs_t hdr, inout m_t m) { apply {} }
control I(inout hs_t hdr, inout m_t m, inout standard_metadata_t sm) {
    apply {
        bit<8> v = 0;
        if (sm.ingress_port == 1) { v = 2; hdr.h.setInvalid(); }
        if (hdr.h.isValid()) { hdr.h.a = v; }
    }
}
control E(inout hs_t hdr, inout m_t m, inout standard_metadata_t sm) { apply {} }
control C(inout hs_t hdr, inout m_t m) { apply {} }
control D(packet_out pk, in hs_t hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
    assert [w for w in compile_text(src).warnings if "warning" in w] == []


@pytest.mark.parametrize("defines", PROFILES, ids=lambda d: " ".join(d) or "full")
def test_fabric_has_no_flow_warnings(defines: list[str]) -> None:
    pre = preprocess(FABRIC, [], {"__TARGET_BMV2__": "1", **{d[2:]: "1" for d in defines}})
    program = parse_text(pre.text, str(FABRIC), lambda n: (pre.locate(n).file, pre.locate(n).line))
    assert [str(w) for w in check_flow(program)] == []
