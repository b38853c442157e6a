"""p4src/fabric.p4 must stay valid for the real compiler: compile every profile with
p4c-bm2-ss when it is installed (it is not on the project's own machines)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FABRIC = ROOT / "p4src" / "fabric.p4"
PROFILES = [
    [],
    ["-DWITH_INT"],
    ["-DWITH_ECN"],
    ["-DWITH_CONGESTION"],
    ["-DWITH_INT", "-DWITH_ECN"],
    ["-DWITH_INT", "-DWITH_CONGESTION"],
    ["-DWITH_ECN", "-DWITH_CONGESTION"],
    ["-DWITH_CORE_ONLY"],
]

needs_p4c = pytest.mark.skipif(
    shutil.which("p4c-bm2-ss") is None,
    reason="p4c-bm2-ss is not on PATH (the p4lang toolchain is not installable here)",
)


@needs_p4c
@pytest.mark.parametrize("defines", PROFILES, ids=lambda d: " ".join(d) or "full")
def test_p4c_bm2_ss_compiles_fabric(defines: list[str], tmp_path: Path) -> None:
    out = subprocess.run(
        [
            "p4c-bm2-ss",
            "--std",
            "p4-16",
            *defines,
            "--p4runtime-files",
            str(tmp_path / "fabric.p4info.txtpb"),
            "-o",
            str(tmp_path / "fabric.json"),
            str(FABRIC),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "fabric.json").stat().st_size > 0
    # clean: every local initialised on every path, every header access guarded
    warnings = [ln for ln in out.stderr.splitlines() if "warning" in ln]
    assert warnings == [], "\n".join(warnings)


@needs_p4c
@pytest.mark.parametrize("defines", PROFILES, ids=lambda d: " ".join(d) or "full")
def test_p4info_matches_softswitch(defines: list[str], tmp_path: Path) -> None:
    """The P4Info p4c writes and the one softswitch writes are the same message, but for
    documentation strings (p4c copies comments) and, from a p4c older than 1.2.4.15,
    `initial_default_action` (softswitch writes it as newer p4c releases do)."""
    from bench.p4c_conformance import comparable
    from softswitch.compiler import compile_file
    from softswitch.p4info import p4info_for, read_p4info

    subprocess.run(
        [
            "p4c-bm2-ss",
            *defines,
            "--p4runtime-files",
            str(tmp_path / "p.txtpb"),
            "-o",
            str(tmp_path / "f.json"),
            str(FABRIC),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    theirs = read_p4info(tmp_path / "p.txtpb")
    ours = p4info_for(compile_file(FABRIC, defines={d[2:]: "1" for d in defines}))
    assert comparable(ours, theirs) == comparable(theirs, theirs)
