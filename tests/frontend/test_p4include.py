"""The bundled core.p4 / v1model.p4 preprocess cleanly and map back to their files."""

from __future__ import annotations

import re

from softswitch.frontend.preprocess import preprocess_text, system_include_dir

PROGRAM = "#include <core.p4>\n#include <v1model.p4>\n"


def test_v1model_include_resolves_to_bundled_file() -> None:
    r = preprocess_text(PROGRAM, "prog.p4")
    out = r.text.splitlines()
    assert len(out) == len(r.origins)
    idx = next(i for i, ln in enumerate(out) if "package V1Switch" in ln)
    origin = r.locate(idx + 1)
    assert origin.file == str(system_include_dir() / "v1model.p4")
    source = (system_include_dir() / "v1model.p4").read_text().splitlines()
    assert "V1Switch" in source[origin.line - 1]
    # core.p4 is included once only (include guard)
    assert sum("extern packet_in" in ln for ln in out) == 1
    assert "#" not in r.text.replace("#include", "")


def test_default_version_is_20180101() -> None:
    text = preprocess_text(PROGRAM, "prog.p4").text
    assert "const bit<32> __v1model_version = 20180101;" in text
    assert "extern register<T>" in text
    assert "PortId_t" not in text
    assert re.search(r"void count\(in bit<32> index\);", text)


def test_version_20200408_interface() -> None:
    src = "#include <core.p4>\n#define V1MODEL_VERSION 20200408\n#include <v1model.p4>\n"
    text = preprocess_text(src, "prog.p4").text
    assert "const bit<32> __v1model_version = 20200408;" in text
    assert "extern register<T, I>" in text
    assert "typedef bit<9>  PortId_t;" in text
    assert re.search(r"void count\(in I index\);", text)


def test_core_declarations_present() -> None:
    text = preprocess_text("#include <core.p4>\n", "prog.p4").text
    flat = " ".join(text.split())
    assert (
        "error { NoError, PacketTooShort, NoMatch, StackOutOfBounds, HeaderTooShort,"
        " ParserTimeout, ParserInvalidArgument }" in flat
    )
    assert "match_kind { exact, ternary, lpm }" in flat
    assert "action NoAction() {}" in flat
    assert "extern bool static_assert(bool check, string message);" in flat
