"""Golden P4Info files for the programs in data/ (checked by hand against p4c's rules).

Regenerate after an intended change with `SOFTSWITCH_REGEN_GOLDEN=1 pytest tests/p4info`
and review the diff.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from softswitch.compiler import compile_file
from softswitch.p4info import p4info_for, p4info_text, read_p4info, write_p4info

HERE = Path(__file__).parent
PROGRAMS = sorted((HERE / "data").glob("*.p4"))
REGEN = os.environ.get("SOFTSWITCH_REGEN_GOLDEN") == "1"


def golden_path(program: Path) -> Path:
    return HERE / "golden" / (program.stem + ".p4info.txtpb")


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_golden_p4info(program: Path) -> None:
    text = p4info_text(p4info_for(compile_file(program)))
    golden = golden_path(program)
    if REGEN:
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"no golden for {program.name}: run with SOFTSWITCH_REGEN_GOLDEN=1"
    expected = golden.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                text.splitlines(keepends=True),
                str(golden),
                "generated",
            )
        )
        pytest.fail(f"P4Info of {program.name} differs from its golden file:\n{diff}")


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_write_and_read_back(program: Path, tmp_path: Path) -> None:
    p4info = p4info_for(compile_file(program))
    for name in ("out.txtpb", "out.bin"):
        write_p4info(p4info, tmp_path / name)
        assert read_p4info(tmp_path / name) == p4info
    assert read_p4info(golden_path(program)) == p4info
