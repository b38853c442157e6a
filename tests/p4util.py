"""Helpers for tests that compile small P4 programs and push packets through them."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

from softswitch.compiler import compile_text
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
