"""Helpers for tests that compile small P4 programs and push packets through them."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from softswitch.compiler import compile_text
from softswitch.frontend.errors import P4Error
from softswitch.v1model.switch import Switch

SKELETON = """
#include <core.p4>
#include <v1model.p4>

{decls}

struct metadata_t {{
{meta}
}}

struct headers_t {{
{headers}
}}

parser P(packet_in pkt, out headers_t hdr, inout metadata_t meta,
         inout standard_metadata_t sm) {{
{parser}
}}

control VC(inout headers_t hdr, inout metadata_t meta) {{
{verify}
}}

control I(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {{
{ingress}
}}

control E(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {{
{egress}
}}

control CC(inout headers_t hdr, inout metadata_t meta) {{
{compute}
}}

control D(packet_out pkt, in headers_t hdr) {{
    apply {{ pkt.emit(hdr); }}
}}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""

DEFAULT_PARSER = "state start { pkt.extract(hdr.h); transition accept; }"


def program(
    *,
    decls: str = "",
    meta: str = "bit<8> unused;",
    headers: str = "h_t h;",
    parser: str = DEFAULT_PARSER,
    verify: str = "apply { }",
    ingress: str = "apply { }",
    egress: str = "apply { }",
    compute: str = "apply { }",
) -> str:
    return SKELETON.format(
        decls=textwrap.dedent(decls),
        meta=meta,
        headers=headers,
        parser=parser,
        verify=verify,
        ingress=ingress,
        egress=egress,
        compute=compute,
    )


def switch(source: str, **kw: object) -> Switch:
    return Switch(compile_text(source, "test.p4"), **kw)  # type: ignore[arg-type]


def run(source: str, data: bytes, port: int = 0) -> list[tuple[int, bytes]]:
    return switch(source).process(port, data)


def one(source: str, data: bytes, port: int = 0) -> bytes:
    """Process one packet and return the single packet that comes out."""
    out = run(source, data, port)
    assert len(out) == 1, f"expected one packet out, got {out}"
    return out[0][1]


def fail_ingress_when(sw: Switch, fails: Callable[[Any, Any, Any], bool]) -> None:
    """Make `sw`'s ingress raise RuntimeError("boom") for the packets `fails(hdr, meta,
    std)` picks; the others run the program's ingress as before."""
    block = sw._ingress_block

    def failing(hdr: Any, meta: Any, std: Any) -> None:
        if fails(hdr, meta, std):
            raise RuntimeError("boom")
        block(hdr, meta, std)

    sw._ingress_block = failing


def error_of(src: str, filename: str = "bad.p4") -> str:
    """The one message compiling `src` (as `filename`) fails with."""
    with pytest.raises(P4Error) as exc:
        compile_text(src, filename)
    return str(exc.value)


def line_of(src: str, needle: str, last: bool = False) -> int:
    """The number of the first (or `last`) line of `src` holding `needle`."""
    lines = [i for i, ln in enumerate(src.splitlines(), 1) if needle in ln]
    return lines[-1] if last else lines[0]


# the declarations the type-rule tests' statements use: each kind of value a cast or an
# operator treats apart (bit, int, bool, bit<1>, a serializable enum, a `type`)
RULE_DECLS = """
header h_t { bit<8> a; int<8> b; bit<16> c; }
enum bit<8> E8 { A = 1, B = 2 }
type bit<8> T8;
"""
RULE_META = "T8 n; bit<32> r; int<32> s; bool t; bit<1> u; bit<4> w; E8 e;"


def statement_program(stmt: str) -> str:
    """A program whose ingress runs `stmt` (on its own line) over RULE_DECLS/RULE_META."""
    return program(decls=RULE_DECLS, meta=RULE_META, ingress=f"apply {{\n{stmt}\n}}")
