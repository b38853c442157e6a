"""verify_checksum / update_checksum (and *_with_payload) as BMv2 runs them, through the
code generated for v1model programs: the field list packed MSB first and zero-padded, the
payload appended after it, verify comparing the untruncated value, update truncating."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from softswitch.compiler import compile_text
from softswitch.v1model.field_lists import Part, _summed_terms, csum16_code
from softswitch.v1model.hashes import UnknownHashAlgorithm, crc32, csum16, csum16_sum, pack_fields
from tests.p4util import one, program, switch

IPV4 = """
header r_t { bit<8> bad; bit<16> sum; }
header c_t { bit<8> cond; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
"""
FIELDS = """{ hdr.ip.version, hdr.ip.ihl, hdr.ip.diffserv, hdr.ip.totalLen,
    hdr.ip.identification, hdr.ip.flags, hdr.ip.fragOffset, hdr.ip.ttl, hdr.ip.protocol,
    hdr.ip.srcAddr, hdr.ip.dstAddr }"""
WITH_CHECKSUM = FIELDS.replace("hdr.ip.protocol,", "hdr.ip.protocol, hdr.ip.hdrChecksum,")
# the IPv4 header of the Wikipedia checksum example: its checksum is 0xB861
IP = bytes.fromhex("45000073000040004011" + "0000" + "c0a80001" + "c0a800c7")

# c.cond: 0 = condition false, 1 = verify, 2 = ip left unparsed (its header invalid);
# the compute block writes the checksums of the fields into ip (cond 1) and, with the
# checksum field included, into r.sum (cond 3)
IPV4_PROGRAM = program(
    decls=IPV4,
    headers="r_t r; c_t c; ipv4_t ip;",
    parser="""
    state start {
        pkt.extract(hdr.c);
        transition select(hdr.c.cond) { 2: accept; default: parse_ip; }
    }
    state parse_ip { pkt.extract(hdr.ip); transition accept; }""",
    verify=f"""apply {{
        verify_checksum(hdr.c.cond != 0, {FIELDS}, hdr.ip.hdrChecksum, HashAlgorithm.csum16);
    }}""",
    ingress="apply { hdr.r.setValid(); hdr.r.bad = (bit<8>)sm.checksum_error; }",
    compute=f"""apply {{
        update_checksum(hdr.c.cond == 1, {FIELDS}, hdr.ip.hdrChecksum, HashAlgorithm.csum16);
        update_checksum(hdr.c.cond == 3, {WITH_CHECKSUM}, hdr.r.sum, HashAlgorithm.csum16);
    }}""",
)


def ipv4_run(cond: int, checksum: int) -> tuple[int, int, int]:
    """(checksum_error, r.sum, the ip checksum sent) for `IP` with `checksum` in it."""
    ip = IP[:10] + checksum.to_bytes(2, "big") + IP[12:]
    out = one(IPV4_PROGRAM, bytes([cond]) + ip)
    sent = int.from_bytes(out[14:16], "big") if cond != 2 else -1
    return out[0], int.from_bytes(out[1:3], "big"), sent


def test_ipv4_update() -> None:
    assert ipv4_run(1, 0xB861)[2] == 0xB861
    assert ipv4_run(1, 0x0000)[2] == 0xB861  # rewritten
    assert ipv4_run(0, 0x1234)[2] == 0x1234  # condition false: left alone


def test_ipv4_verify() -> None:
    assert ipv4_run(1, 0xB861)[0] == 0
    assert ipv4_run(1, 0xB862)[0] == 1


def test_verify_skipped_when_invalid_or_condition_false() -> None:
    assert ipv4_run(0, 0x1234)[0] == 0  # condition false
    # the condition holds but the checksum's header is invalid (over no fields, csum16
    # would be 0xFFFF, not the field's 0): nothing is checked
    ip_invalid = one(IPV4_PROGRAM, bytes([2]))
    assert ip_invalid[0] == 0


def test_checksum_field_included_sums_to_zero() -> None:
    assert ipv4_run(3, 0xB861)[1] == 0
    assert ipv4_run(3, 0xB862)[1] != 0


H = "header h_t { bit<12> x; bit<4> p; bit<32> v; bit<16> c16; bit<32> c32; bit<16> s16; }"


def h_packet(p: int, v: int = 0, c16: int = 0, c32: int = 0, payload: bytes = b"") -> bytes:
    return (
        (0xABC << 4 | p).to_bytes(2, "big")
        + v.to_bytes(4, "big")
        + c16.to_bytes(2, "big")
        + c32.to_bytes(4, "big")
        + bytes(2)
        + payload
    )


def test_with_payload_appended_after_padding() -> None:
    src = program(
        decls=H,
        compute="""apply {
            update_checksum_with_payload(true, { hdr.h.x }, hdr.h.c32, HashAlgorithm.crc32);
            update_checksum_with_payload(true, { hdr.h.x }, hdr.h.s16, HashAlgorithm.csum16);
        }""",
    )
    out = one(src, h_packet(0, payload=b"\x01\x02\x03"))
    data = b"\xab\xc0\x01\x02\x03"  # 12 bits padded with zeros to 2 bytes, then the payload
    assert int.from_bytes(out[8:12], "big") == crc32(data)
    assert int.from_bytes(out[12:14], "big") == csum16(data)
    assert out[14:] == b"\x01\x02\x03"


def test_update_truncates_verify_does_not() -> None:
    full = crc32(b"1234")
    assert full >> 16  # upper bits non-zero for this input
    src = program(
        decls=H + " header r_t { bit<8> bad; }",
        headers="r_t r; h_t h;",
        verify="""apply {
            verify_checksum(hdr.h.p == 1, { hdr.h.v }, hdr.h.c16, HashAlgorithm.crc32);
            verify_checksum(hdr.h.p == 2, { hdr.h.v }, hdr.h.c32, HashAlgorithm.crc32);
        }""",
        ingress="apply { hdr.r.setValid(); hdr.r.bad = (bit<8>)sm.checksum_error; }",
        compute="""apply {
            update_checksum(hdr.h.p == 0, { hdr.h.v }, hdr.h.c16, HashAlgorithm.crc32);
        }""",
        parser="state start { pkt.extract(hdr.h); transition accept; }",
    )
    v = 0x31323334  # "1234"
    out = one(src, h_packet(0, v))
    assert int.from_bytes(out[7:9], "big") == full & 0xFFFF
    # BMv2 compares the untruncated value with the field value
    assert one(src, h_packet(1, v, c16=full & 0xFFFF))[0] == 1
    assert one(src, h_packet(2, v, c32=full))[0] == 0
    assert one(src, h_packet(2, v, c32=full ^ 1))[0] == 1


def test_random_rejected() -> None:
    src = program(
        decls=H,
        verify="""apply {
            verify_checksum(hdr.h.p == 1, { hdr.h.v }, hdr.h.c16, HashAlgorithm.random);
        }""",
    )
    sw = switch(src)
    assert len(sw.process(0, h_packet(0))) == 1  # not run: nothing to refuse
    with pytest.raises(UnknownHashAlgorithm):
        sw.process(0, h_packet(1))


def test_csum16_packed_as_int_odd_bytes_and_invalid_header() -> None:
    """csum16 over one header's fields is computed from the fields themselves (shifted by
    their bit positions modulo 16 and summed, no bytes made): the same value as over the bytes for a list of an odd number of bytes (36 bits, padded
    to 5), and 0xFFFF (the sum of no bytes) for the fields of an invalid header."""
    src = program(
        decls=H + " header r_t { bit<8> a; bit<16> b; }",
        headers="h_t h; r_t r;",
        parser="state start { pkt.extract(hdr.h); transition accept; }",
        compute="""apply {
            update_checksum(true, { hdr.h.v, hdr.h.p }, hdr.h.c16, HashAlgorithm.csum16);
            update_checksum(true, { hdr.r.a, hdr.r.b }, hdr.h.s16, HashAlgorithm.csum16);
        }""",
    )
    source = compile_text(src, "test.p4").source
    assert "_cs := " in source and "_HASHES[" not in source  # folded in place, no bytes
    out = one(src, h_packet(0x5, 0xDEADBEEF))
    data = bytes.fromhex("deadbeef50")  # 36 bits padded with zeros to 5 bytes
    assert int.from_bytes(out[6:8], "big") == csum16(data)
    assert int.from_bytes(out[12:14], "big") == 0xFFFF


def test_csum16_from_the_shifted_field_sum_equals_csum16_of_the_bytes() -> None:
    # the generated csum16 adds each field shifted by its bit position modulo 16
    rng = random.Random(3)
    for _ in range(500):
        widths = [
            rng.choice([1, 3, 4, 8, 13, 16, 24, 32, 48, 128]) for _ in range(rng.randint(1, 8))
        ]
        values = [rng.getrandbits(w) if rng.random() < 0.8 else 0 for w in widths]
        parts = [Part(f"f{i}", w, "True", True) for i, w in enumerate(widths)]
        terms = _summed_terms(parts)
        got = csum16_sum(eval(" + ".join(terms), {f"f{i}": v for i, v in enumerate(values)}))
        assert got == csum16(pack_fields(list(zip(values, widths, strict=True))))
        # the same fields read from one header object (which the code takes in a local
        # in its first term)
        hdr = SimpleNamespace(h=SimpleNamespace(**{f"f{i}": v for i, v in enumerate(values)}))
        parts = [Part(f"hdr.h.f{i}", w, "hdr.h._v", True) for i, w in enumerate(widths)]
        assert csum16_sum(eval(" + ".join(_summed_terms(parts)), {"hdr": hdr})) == got
        # the fold the generated code writes out gives what csum16_sum gives, also for
        # an invalid header (0xFFFF: the checksum of no bytes)
        hdr.h._v = True
        assert eval(csum16_code(parts), {"hdr": hdr}) == got
        hdr.h._v = False
        assert eval(csum16_code(parts), {"hdr": hdr}) == 0xFFFF
        assert eval(csum16_code(parts, known_valid="hdr.h._v"), {"hdr": hdr}) == got


def test_verify_with_the_field_list_of_an_invalid_header() -> None:
    """The checksum field's header is valid, the field list's is not: the list is empty
    (csum16 0xFFFF), so only a field holding 0xFFFF verifies."""
    src = program(
        decls="header a_t { bit<16> x; bit<16> y; } header b_t { bit<16> ck; bit<8> err; }",
        headers="b_t b; a_t a;",
        parser="state start { pkt.extract(hdr.b); transition accept; }",
        verify="""apply {
            verify_checksum(true, { hdr.a.x, hdr.a.y }, hdr.b.ck, HashAlgorithm.csum16);
        }""",
        ingress="apply { hdr.b.err = (bit<8>)sm.checksum_error; }",
    )
    assert one(src, bytes([0xFF, 0xFF, 0]))[2] == 0
    assert one(src, bytes([0x12, 0x34, 0]))[2] == 1


@pytest.mark.parametrize(
    ("cond", "ip_tests"),
    [
        ("hdr.ip.isValid()", 1),  # the condition is the test
        ("hdr.c.cond != 0 && hdr.ip.isValid()", 1),
        ("hdr.ip.isValid() || hdr.c.cond != 0", 2),  # may hold with ip invalid
        ("hdr.c.isValid()", 1),  # another header's: ip's validity tested besides
    ],
)
def test_verify_tests_the_headers_validity_once_and_always(cond: str, ip_tests: int) -> None:
    """A condition that already requires the checksum's header to be valid is not joined
    by a second test of it; any other condition is. Either way a packet whose header is
    invalid is never checked (cond 2: ip left unparsed) and a wrong checksum is found."""
    src = IPV4_PROGRAM.replace("hdr.c.cond != 0, {", f"{cond}, {{", 1)
    assert src != IPV4_PROGRAM
    lines = compile_text(src, "cond.p4").source.splitlines()
    flagged = next(i for i, ln in enumerate(lines) if "checksum_error = 1" in ln)
    verify_if = lines[flagged - 2]  # if <validity and condition>: / if <sum> != field:
    assert verify_if.strip().startswith("if ") and verify_if.count("ip._v") == ip_tests
    sw = switch(src)
    assert sw.process(0, bytes([2]))[0][1][0] == 0
    assert sw.process(0, bytes([1]) + IP[:10] + b"\xb8\x62" + IP[12:])[0][1][0] == 1
