"""The BMv2 compile cache: the same sources compile once; a changed include compiles again.
A stand-in `p4c-bm2-ss` on PATH records each run and writes its two outputs."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from controller.targets import compile_program

FAKE_P4C = """#!/bin/sh
# --version, or: [flags] --p4runtime-files P4INFO -o JSON SOURCE
if [ "$1" = "--version" ]; then echo "p4c 0.0.1 (stand-in)"; exit 0; fi
echo run >> "{log}"
while [ $# -gt 1 ]; do
  case "$1" in
    --p4runtime-files) p4info="$2"; shift ;;
    -o) json="$2"; shift ;;
  esac
  shift
done
echo "p4info of $1" > "$p4info"
cat "$1" > "$json"
"""


@pytest.fixture
def fake_p4c(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "runs.log"
    exe = bin_dir / "p4c-bm2-ss"
    exe.write_text(FAKE_P4C.format(log=log))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return log


def runs(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_same_content_compiles_once(tmp_path: Path, fake_p4c: Path) -> None:
    src = tmp_path / "p4" / "prog.p4"
    (src.parent / "include").mkdir(parents=True)
    src.write_text('#include "include/h.p4"\n')
    header = src.parent / "include" / "h.p4"
    header.write_text("// v1\n")
    cache = tmp_path / "cache"

    first = compile_program(src, tmp_path / "out1", "bmv2", cache_dir=cache)
    assert runs(fake_p4c) == 1 and first.device_config.read_text() == src.read_text()
    second = compile_program(src, tmp_path / "out2", "bmv2", cache_dir=cache)
    assert runs(fake_p4c) == 1  # copied from the cache
    assert second.device_config.read_bytes() == first.device_config.read_bytes()
    assert second.p4info.read_bytes() == first.p4info.read_bytes()

    header.write_text("// v2\n")  # an included file changed: compiled again
    compile_program(src, tmp_path / "out3", "bmv2", cache_dir=cache)
    assert runs(fake_p4c) == 2
    compile_program(src, tmp_path / "out4", "bmv2", defines=["WITH_X"], cache_dir=cache)
    assert runs(fake_p4c) == 3  # other flags, another entry
    compile_program(src, tmp_path / "out5", "bmv2")  # no cache asked for
    assert runs(fake_p4c) == 4
    assert len([p for p in cache.iterdir() if p.is_dir()]) == 3
