"""bench.p4c_errors: every program of a p4_16_errors-like folder is refused with a
position, compiled (listed) or crashes the compiler (listed, exit status 1)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench import p4c_errors
from tests.p4util import program

GOOD = program(decls="header h_t { bit<8> a; }")
REFUSED = program(decls="header h_t { bit<8> a; }", ingress="apply { hdr.h.a = nosuch; }")


def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> int:
    monkeypatch.setattr(sys, "argv", ["p4c_errors", "--errors", str(tmp_path), *extra])
    return p4c_errors.main()


def test_counts_refused_and_compiled_programs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.p4").write_text(REFUSED)
    (tmp_path / "fine.p4").write_text(GOOD)
    assert run(tmp_path, monkeypatch) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "COMPILED fine.p4",
        "p4_16_errors: 2 programs: 1 refused with a position, 0 without one, 1 compiled, 0 crashed",
    ]


def test_a_crash_is_listed_and_fails_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "boom.p4").write_text(GOOD)

    def explode(*_a: object, **_k: object) -> None:
        raise ValueError("negative shift count")

    monkeypatch.setattr(p4c_errors, "compile_file", explode)
    assert run(tmp_path, monkeypatch) == 1
    out = capsys.readouterr().out
    assert "CRASH boom.p4: ValueError: negative shift count" in out
    assert "0 compiled, 1 crashed" in out
