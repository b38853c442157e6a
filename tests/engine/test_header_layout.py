"""Headers read and written through their byte layout (struct items of 1-8 bytes): every
kind of field group gives the same bits as a plain big-endian reading."""

from __future__ import annotations

import random

from softswitch.codegen.layout import Group, header_layout
from tests.p4util import program, switch


def test_layouts_of_common_and_odd_headers() -> None:
    ipv4 = header_layout([4, 4, 6, 2, 16, 16, 3, 13, 8, 8, 16, 32, 32])
    assert ipv4 is not None and ipv4.fmt == ">BBHHHBBHII"
    eth = header_layout([48, 48, 16])
    assert eth is not None and eth.fmt == ">IHIHH"
    assert eth.groups[0] == Group(0, (48,), (4, 2))
    odd = header_layout([3, 21, 8])  # 24 bits of narrow fields: two items, one value
    assert odd is not None and odd.fmt == ">HBB" and odd.groups[0].items == (2, 1)
    assert header_layout([3, 5, 4, 4]) is not None
    assert header_layout([4, 70, 6]) is None  # a narrow run wider than 64 bits


# every field kind: narrow runs across items, signed, bool, 24/48/128-bit fields
HDR = """header x_t {
    bit<3> a; int<5> b; bit<24> c; bit<4> d; bool e; bit<3> f; bit<48> g; bit<128> h;
    int<16> s; bit<7> p; bit<17> q;
}
header h_t { bit<8> op; }"""
FIELDS = [
    ("a", 3),
    ("b", 5),
    ("c", 24),
    ("d", 4),
    ("e", 1),
    ("f", 3),
    ("g", 48),
    ("h", 128),
    ("s", 16),
    ("p", 7),
    ("q", 17),
]


def test_extract_and_emit_through_the_layout_keep_every_bit() -> None:
    # egress copies each field, as read, into a second header that is emitted after it
    copy = " ".join(f"hdr.y.{n} = hdr.x.{n};" for n, _ in FIELDS)
    src = program(
        decls=HDR,
        headers="h_t h; x_t x; x_t y;",
        parser="state start { pkt.extract(hdr.h); pkt.extract(hdr.x); transition accept; }",
        ingress=f"apply {{ hdr.y.setValid(); {copy} hdr.h.op = (bit<8>)(bit<1>)(hdr.x.b < 0); }}",
    )
    sw = switch(src)
    rng = random.Random(5)
    nbytes = sum(w for _, w in FIELDS) // 8
    for _ in range(50):
        body = rng.getrandbits(8 * nbytes).to_bytes(nbytes, "big")
        ((port, out),) = sw.process(0, b"\x00" + body + b"tail")
        b_field = body[0] & 0x1F
        assert out == bytes([int(b_field >= 16)]) + body + body + b"tail"
