"""The softswitch device config and the `softswitch compile` command."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from softswitch.compile_cli import add_compile_command
from softswitch.compiler import compile_file
from softswitch.device_config import (
    DeviceConfigError,
    load_device_config,
    make_device_config,
    parse_device_config,
)
from softswitch.frontend.errors import P4Error
from softswitch.p4info import p4info_for, p4info_text, read_p4info

DATA = Path(__file__).parent / "data"
PROGRAM = DATA / "externs.p4"

INCLUDING = """\
#include <core.p4>
#include <v1model.p4>
#include "defs.p4"
struct m_t { bit<8> x; }
parser P(packet_in p, out h_t h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.e); transition accept; }
}
control C(inout h_t h, inout m_t m) { apply { } }
control I(inout h_t h, inout m_t m, inout standard_metadata_t sm) {
    action a(bit<9> p) { sm.egress_spec = p; }
    table t { key = { h.e.f: exact; } actions = { a; } }
    apply { t.apply(); }
}
control E(inout h_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control D(packet_out p, in h_t h) { apply { p.emit(h.e); } }
V1Switch(P(), C(), I(), E(), C(), D()) main;
"""


def write_program_with_include(tmp_path: Path, bad: str = "") -> Path:
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "defs.p4").write_text(f"header e_t {{ bit<WIDTH> f; }}\nstruct h_t {{ e_t e; }}\n{bad}")
    prog = tmp_path / "prog.p4"
    prog.write_text(INCLUDING)
    return prog


def test_round_trip_needs_no_include_paths(tmp_path: Path) -> None:
    prog = write_program_with_include(tmp_path)
    data = make_device_config(prog, [tmp_path / "inc"], {"WIDTH": "16"})
    doc = json.loads(data)
    assert doc["format"] == "softswitch-device-config" and doc["version"] == 1
    assert doc["program"] == "prog"
    assert len(doc["origins"]) == len(doc["source"].splitlines())
    assert [str(tmp_path / "inc" / "defs.p4"), 1] in doc["origins"]
    (tmp_path / "inc" / "defs.p4").unlink()  # the config is self-contained
    compiled = load_device_config(data)
    assert compiled.name == "prog"
    assert compiled.info.tables["I.t"].keys[0].width == 16


def test_same_p4info_as_compiling_the_file() -> None:
    compiled = load_device_config(make_device_config(PROGRAM))
    expected = p4info_text(p4info_for(compile_file(PROGRAM)))
    assert p4info_text(p4info_for(compiled)) == expected


def test_errors_point_into_the_original_files(tmp_path: Path) -> None:
    prog = write_program_with_include(tmp_path, bad="\n\nstruct broken { bit<8> }\n")
    data = make_device_config(prog, [tmp_path / "inc"], {"WIDTH": "16"})
    with pytest.raises(P4Error) as e:
        load_device_config(data)
    assert e.value.file == str(tmp_path / "inc" / "defs.p4")
    assert e.value.line == 5


def test_preprocessor_errors_are_p4_errors(tmp_path: Path) -> None:
    prog = tmp_path / "p.p4"
    prog.write_text('#include "missing.p4"\n')
    with pytest.raises(P4Error) as e:
        make_device_config(prog)
    assert e.value.file == str(prog) and e.value.line == 1


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\xff\xfe", "not a softswitch device config"),
        (b"[1, 2]", "no 'format'"),
        (b'{"format": "softswitch-device-config", "version": 9}', "version 9"),
        (
            b'{"format": "softswitch-device-config", "version": 1, "program": "p",'
            b' "source": "a\\nb", "origins": [["f", 1]]}',
            "1 origins for 2 source lines",
        ),
        (
            b'{"format": "softswitch-device-config", "version": 1, "program": "p",'
            b' "source": "a", "origins": [[1, "f"]]}',
            "list of",
        ),
    ],
)
def test_bad_device_configs(data: bytes, message: str) -> None:
    with pytest.raises(DeviceConfigError, match=message):
        parse_device_config(data)


# ---------------------------------------------------------------- softswitch compile


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="softswitch")
    add_compile_command(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return int(args.handler(args))


def test_compile_command_writes_both_files(tmp_path: Path) -> None:
    prog = write_program_with_include(tmp_path)
    p4info, config = tmp_path / "out.p4info.txtpb", tmp_path / "out.json"
    rc = run(
        ["compile", str(prog), "--p4info", str(p4info), "-o", str(config),
         "-I", str(tmp_path / "inc"), "-D", "WIDTH=24"]
    )  # fmt: skip
    assert rc == 0
    assert p4info.read_text().startswith("# proto-file: p4/config/v1/p4info.proto\n")
    info = read_p4info(p4info)
    assert [t.preamble.name for t in info.tables] == ["I.t"]
    assert info.tables[0].match_fields[0].bitwidth == 24
    assert load_device_config(config.read_bytes()).info.tables["I.t"].keys[0].width == 24


def test_compile_command_p4info_formats(tmp_path: Path) -> None:
    assert run(["compile", str(PROGRAM), "--p4info", str(tmp_path / "p.bin")]) == 0
    assert run(["compile", str(PROGRAM), "--p4info", str(tmp_path / "p.json")]) == 0
    from_bin = read_p4info(tmp_path / "p.bin")
    assert from_bin == p4info_for(compile_file(PROGRAM))
    assert json.loads((tmp_path / "p.json").read_text())["pkgInfo"]["arch"] == "v1model"


def test_compile_command_reports_positioned_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.p4"
    bad.write_text("#include <core.p4>\ncontrol c() {\n  apply { x = ; }\n}\n")
    out = tmp_path / "out.txtpb"
    assert run(["compile", str(bad), "--p4info", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:3:") and ": error: " in err
    assert "Traceback" not in err and not out.exists()


def test_compile_command_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["compile", str(tmp_path / "nope.p4")]) == 1
    assert f"{tmp_path / 'nope.p4'}:" in capsys.readouterr().err


def test_compile_command_unwritable_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["compile", str(PROGRAM), "-o", "/nonexistent/dir/cfg.json"]) == 1
    assert "cannot write" in capsys.readouterr().err
