"""v1model externs: registers, counters, meters, hash, random, checksums, digests, log_msg."""

from __future__ import annotations

import logging
import random as random_module
import zlib

import pytest

from softswitch.clock import SimClock
from softswitch.engine.matches import Exact
from softswitch.frontend.errors import P4TypeError
from softswitch.v1model.context import KEPT_MESSAGES, PacketContext
from softswitch.v1model.hashes import crc16, crc32, hash_result
from tests.p4util import one, program, switch

HDR = "header h_t { bit<8> k; bit<32> v; bit<16> c; }"


def pkt(k: int, v: int = 0, c: int = 0) -> bytes:
    return bytes([k]) + v.to_bytes(4, "big") + c.to_bytes(2, "big")


def test_register_read_write_and_out_of_range(caplog: pytest.LogCaptureFixture) -> None:
    src = program(
        decls=HDR,
        ingress="""
        register<bit<32>>(4) r;
        apply {
            bit<32> old = 0xFFFF;
            r.read(old, (bit<32>)hdr.h.k);   // out of range (k >= 4): old stays 0xFFFF
            r.write((bit<32>)hdr.h.k, hdr.h.v);
            hdr.h.v = old;
        }
        """,
    )
    sw = switch(src)
    assert sw.process(0, pkt(1, 77)) == [(0, pkt(1, 0))]
    assert sw.process(0, pkt(1, 88)) == [(0, pkt(1, 77))]
    assert sw.externs["I.r"].values == [0, 88, 0, 0]
    with caplog.at_level(logging.ERROR, logger="softswitch.dataplane"):
        assert sw.process(0, pkt(9, 5)) == [(0, pkt(9, 0xFFFF))]  # write out of range ignored
    assert sw.externs["I.r"].values == [0, 88, 0, 0]
    # the read logs an error, as BMv2 does, through logging and with the device name
    (rec,) = caplog.records
    assert rec.levelno == logging.ERROR
    assert rec.getMessage() == f"{sw.log.device}: register I.r: read index 9 out of range (size 4)"


def test_extern_sizes_given_by_serializable_enum_members() -> None:
    """`counter(sizes.N, CounterType.packets)`: a serializable enum member gives its value
    (p4c's issue2844-enum.p4 crashed the switch), a plain enum member its name."""
    src = program(
        decls=HDR + " enum bit<32> sizes { N = 3, M = 5 }",
        ingress="""
        counter(sizes.N, CounterType.packets) c;
        register<bit<8>>(sizes.M) r;
        apply { c.count((bit<32>)hdr.h.k); r.write((bit<32>)hdr.h.k, hdr.h.k); }
        """,
    )
    sw = switch(src)
    for k in (0, 2, 2, 3, 4):
        sw.process(0, pkt(k))
    assert sw.externs["I.c"].packets == [1, 0, 2]
    assert sw.externs["I.r"].values == [0, 0, 2, 3, 4]


def test_a_control_uses_the_register_and_counter_it_is_given() -> None:
    """Extern instances as parameters of a control (`control bump(..., register<..> r,
    counter c)`, p4c's issue1958.p4): each apply uses the instances its caller passed
    (checked against BMv2 with issue1958.p4 and table entries)."""
    src = program(
        decls=HDR
        + """
        control bump(inout h_t h, register<bit<8>> r, counter c) {
            bit<8> v;
            action step() { r.read(v, 1); v = v + h.k; r.write(1, v); c.count(0); }
            apply { step(); h.c = (bit<16>)v; }
        }
        """,
        ingress="""
        register<bit<8>>(2) ra;
        register<bit<8>>(2) rb;
        counter(1, CounterType.packets) ca;
        counter(1, CounterType.packets) cb;
        bump() first;
        bump() second;
        apply {
            if (hdr.h.v == 0) { first.apply(hdr.h, ra, ca); } else { second.apply(hdr.h, rb, cb); }
        }
        """,
    )
    sw = switch(src)
    outs = [sw.process(0, pkt(k, v))[0][1] for k, v in ((3, 0), (4, 0), (10, 1))]
    assert [int.from_bytes(o[5:7], "big") for o in outs] == [3, 7, 10]
    assert sw.externs["I.ra"].values == [0, 7] and sw.externs["I.rb"].values == [0, 10]
    assert sw.externs["I.ca"].packets == [2] and sw.externs["I.cb"].packets == [1]


def test_counter_counts_packets_and_bytes() -> None:
    src = program(
        decls=HDR,
        ingress="counter(8, CounterType.packets_and_bytes) cnt; apply { cnt.count((bit<32>)hdr.h.k); }",
    )
    sw = switch(src)
    for _ in range(3):
        sw.process(0, pkt(2) + b"xyz")
    c = sw.externs["I.cnt"]
    assert c.packets[2] == 3 and c.bytes[2] == 3 * 10


def test_counter_index_out_of_range_counts_nothing() -> None:
    src = program(
        decls=HDR,
        ingress="counter(8, CounterType.packets_and_bytes) cnt; apply { cnt.count((bit<32>)hdr.h.k); }",
    )
    sw = switch(src)
    for k in (7, 8, 200):
        sw.process(0, pkt(k))
    c = sw.externs["I.cnt"]
    assert c.packets == [0] * 7 + [1] and sum(c.bytes) == 7


def test_register_sizes_of_two_instances_of_one_control() -> None:
    """The bounds of each instance's register come from that instance's constructor
    argument (the generated code compares an index with the size as a constant)."""
    src = program(
        decls=HDR
        + """
        control Sub(inout h_t h)(bit<32> n) {
            register<bit<32>>(n) r;
            apply { r.write((bit<32>)h.k, h.v); }
        }""",
        ingress="""
        Sub(2) small;
        Sub(6) large;
        apply { small.apply(hdr.h); large.apply(hdr.h); }
        """,
    )
    sw = switch(src)
    for k in range(8):
        sw.process(0, pkt(k, 10 + k))
    registers = [r for name, r in sw.externs.items() if name.endswith(".r")]
    assert {r.size: r.values for r in registers} == {2: [10, 11], 6: [10, 11, 12, 13, 14, 15]}


def test_direct_counter_counts_on_hit() -> None:
    src = program(
        decls=HDR,
        ingress="""
        direct_counter(CounterType.packets) dc;
        action a() { dc.count(); }
        table t { key = { hdr.h.k: exact; } actions = { a; NoAction; } counters = dc; }
        apply { t.apply(); }
        """,
    )
    sw = switch(src)
    e = sw.tables["I.t"].add([Exact(1)], "I.a")
    for k in (1, 1, 2):
        sw.process(0, pkt(k))
    assert e.packets == 2


def test_meter_colours_follow_rates() -> None:
    clock = SimClock()
    src = program(
        decls=HDR,
        ingress="""
        meter(1, MeterType.packets) m;
        apply { bit<2> colour; m.execute_meter(0, colour); hdr.h.k = (bit<8>)colour; }
        """,
    )
    sw = switch(src, clock=clock)
    assert one(src, pkt(0))[0] == 0  # unconfigured: GREEN
    # 1 packet/s committed with burst 1, 2 packets/s peak with burst 2
    sw.externs["I.m"].configure(0, 1, 1, 2, 2)
    colours = [sw.process(0, pkt(9))[0][1][0] for _ in range(3)]
    assert colours == [0, 1, 2]  # GREEN, then YELLOW (CIR used up), then RED
    clock.advance(1_000_000)
    assert sw.process(0, pkt(9))[0][1][0] == 0  # buckets refilled


def test_hash_crc16_crc32_with_base_and_max() -> None:
    src = program(
        decls=HDR,
        ingress="""apply {
            hash(hdr.h.c, HashAlgorithm.crc16, 16w0, { hdr.h.v }, 32w65536);
            hash(hdr.h.v, HashAlgorithm.crc32, 32w10, { hdr.h.k }, 32w100);
        }""",
    )
    out = one(src, pkt(7, 0x01020304))
    assert int.from_bytes(out[5:7], "big") == crc16(bytes([1, 2, 3, 4]))
    assert int.from_bytes(out[1:5], "big") == 10 + zlib.crc32(bytes([7])) % 100


def test_a_program_type_named_like_an_extern_type_parameter_does_not_replace_it() -> None:
    """v1model declares `hash<O, T, D, M>(..., in M max)`; a program's own `struct M` (or
    `header T`) is another type, and the extern's M still takes the argument's type (p4c's
    hash-bmv2.p4 names its metadata struct M)."""
    src = program(
        decls=HDR + " struct M { bit<8> x; } header T { bit<8> y; }",
        ingress="""apply {
            M m = { 3 };
            hash(hdr.h.c, HashAlgorithm.crc16, 16w0, { hdr.h.v }, 32w65536);
            hash(hdr.h.k, HashAlgorithm.identity, 8w0, { hdr.h.v[7:0] + m.x }, 16w256);
        }""",
    )
    out = one(src, pkt(7, 0x01020304))
    assert int.from_bytes(out[5:7], "big") == crc16(bytes([1, 2, 3, 4]))
    assert out[0] == 4 + 3


def test_identity_hash_of_field_lists() -> None:
    """identity is the serialised list's first 8 bytes as an int: the whole list when it
    is shorter (k ++ v ++ c: 7 bytes), the leading 8 bytes of a longer one (v ++ v ++ c:
    10 bytes), 0 for the fields of an invalid header (no bytes)."""
    src = program(
        decls=HDR + " header o_t { bit<64> a; bit<64> b; bit<64> d; }",
        headers="h_t h; h_t g; o_t o;",
        ingress="""apply {
            hdr.o.setValid();
            hash(hdr.o.a, HashAlgorithm.identity, 64w0, { hdr.h.k, hdr.h.v, hdr.h.c }, 64w0xFFFFFFFFFFFFFFFF);
            hash(hdr.o.b, HashAlgorithm.identity, 64w0, { hdr.h.v, hdr.h.v, hdr.h.c }, 64w0xFFFFFFFFFFFFFFFF);
            hash(hdr.o.d, HashAlgorithm.identity, 64w3, { hdr.g.k, hdr.g.v }, 64w1000);
        }""",
    )
    data = pkt(0x9A, 0x01020304, 0xBEEF)
    out = one(src, data)
    assert out[7:15] == bytes(1) + data  # 7 bytes, as an 8-byte int
    assert out[15:23] == bytes([1, 2, 3, 4, 1, 2, 3, 4])
    assert int.from_bytes(out[23:31], "big") == 3  # g invalid: identity of nothing is 0
    assert int.from_bytes(out[23:31], "big") == hash_result("identity", 3, b"", 1000, 64)


def test_crc32_hash_of_several_fields_matches_the_reference() -> None:
    src = program(
        decls=HDR,
        ingress="apply { hash(hdr.h.v, HashAlgorithm.crc32, 32w0, { hdr.h.k, hdr.h.c, 4w0xa }, 33w1 << 32); }",
    )
    out = one(src, pkt(0x12, 0, 0x3456))
    assert int.from_bytes(out[1:5], "big") == crc32(bytes([0x12, 0x34, 0x56, 0xA0]))


def test_hash_with_a_run_time_max() -> None:
    """max read from the packet: base + crc32 mod max, and base alone when max is 0."""
    src = program(
        decls=HDR,
        ingress="apply { hash(hdr.h.c, HashAlgorithm.crc32, 16w7, { hdr.h.k }, hdr.h.v); }",
    )
    out = one(src, pkt(9, 1000))
    assert int.from_bytes(out[5:7], "big") == 7 + zlib.crc32(bytes([9])) % 1000
    assert int.from_bytes(one(src, pkt(9, 0))[5:7], "big") == 7


def test_hash_max_zero_yields_base() -> None:
    src = program(
        decls=HDR,
        ingress="apply { hash(hdr.h.c, HashAlgorithm.crc16, 16w5, { hdr.h.v }, 32w0); }",
    )
    assert one(src, pkt(0, 1234))[5:7] == (5).to_bytes(2, "big")


def test_random_is_deterministic_for_a_seed_and_in_range() -> None:
    src = program(decls=HDR, ingress="apply { random(hdr.h.k, 8w10, 8w20); }")
    a = switch(src, seed=1)
    b = switch(src, seed=1)
    va = [a.process(0, pkt(0))[0][1][0] for _ in range(50)]
    vb = [b.process(0, pkt(0))[0][1][0] for _ in range(50)]
    assert va == vb and all(10 <= x <= 20 for x in va) and len(set(va)) > 3


IPV4 = """
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
header e_t { bit<8> bad; }
"""
FIELDS = """{ hdr.ip.version, hdr.ip.ihl, hdr.ip.diffserv, hdr.ip.totalLen,
              hdr.ip.identification, hdr.ip.flags, hdr.ip.fragOffset, hdr.ip.ttl,
              hdr.ip.protocol, hdr.ip.srcAddr, hdr.ip.dstAddr }"""
GOOD = bytes.fromhex("450000730000400040 11 b861 c0a80001 c0a800c7".replace(" ", ""))


def test_verify_and_update_checksum() -> None:
    src = program(
        decls=IPV4,
        headers="e_t e; ipv4_t ip;",
        parser="state start { pkt.extract(hdr.ip); transition accept; }",
        verify=f"apply {{ verify_checksum(hdr.ip.isValid(), {FIELDS}, hdr.ip.hdrChecksum, HashAlgorithm.csum16); }}",
        ingress="apply { hdr.e.setValid(); hdr.e.bad = (bit<8>)sm.checksum_error; hdr.ip.ttl = hdr.ip.ttl - 1; }",
        compute=f"apply {{ update_checksum(hdr.ip.isValid(), {FIELDS}, hdr.ip.hdrChecksum, HashAlgorithm.csum16); }}",
    )
    out = one(src, GOOD)
    assert out[0] == 0  # checksum was right
    ip = out[1:]
    assert ip[8] == 0x3F and ip[10:12] == bytes.fromhex("b961")  # ttl-1: checksum +0x100
    bad = GOOD[:10] + b"\x00\x00" + GOOD[12:]
    assert one(src, bad)[0] == 1


def test_digest_and_log_msg() -> None:
    src = program(
        decls=HDR + " struct d_t { bit<8> k; bit<32> v; }",
        ingress="""apply {
            digest<d_t>(1, { hdr.h.k, hdr.h.v });
            log_msg("k={} v={}", { hdr.h.k, hdr.h.v });
        }""",
    )
    sw = switch(src)
    sw.process(0, pkt(3, 4))
    assert len(sw.digests) == 1 and sw.digests[0].name == "d_t"
    assert (sw.digests[0].data.k, sw.digests[0].data.v) == (3, 4)
    assert list(sw.ctx.logs) == ["k=3 v=4"]


def test_digests_of_a_list_of_values_are_named_as_p4c_names_them() -> None:
    """`digest(r, {a, b})` without a struct type: p4c-bm2-ss names such digests digest_0,
    digest_1, ... in program order, and P4Info describes them as tuples; the P4Runtime
    server encodes their data with that description."""
    from softswitch.compiler import compile_text
    from softswitch.p4info import p4info_for
    from softswitch.p4runtime.stream import encode_p4data
    from softswitch.v1model.switch import Switch

    src = program(
        decls=HDR + " struct d_t { bit<8> k; }",
        ingress="""apply {
            digest(5, { hdr.h.k });
            if (hdr.h.k == 1) { digest(6, { hdr.h.k, hdr.h.v }); }
            digest<d_t>(7, { hdr.h.k });
        }""",
    )
    compiled = compile_text(src, "d.p4")
    sw = Switch(compiled)
    sw.process(0, pkt(1, 9))
    assert [(d.receiver, d.name, d.data) for d in sw.digests[:2]] == [
        (5, "digest_0", (1,)),
        (6, "digest_1", (1, 9)),
    ]
    info = p4info_for(compiled)
    specs = {d.preamble.name: d.type_spec for d in info.digests}
    assert list(specs) == ["digest_0", "digest_1", "d_t"]
    widths = [m.bitstring.bit.bitwidth for m in specs["digest_1"].tuple.members]
    assert widths == [8, 32]
    data = encode_p4data(sw.digests[1].data, specs["digest_1"], info.type_info)
    assert [m.bitstring for m in data.tuple.members] == [b"\x01", b"\x09"]


def test_log_msg_with_a_message_alone_and_with_data() -> None:
    """v1model declares `log_msg(msg)` and `log_msg<T>(msg, data)`: a call takes the one
    that fits its arguments (p4c's logging-bmv2.p4 logs a message alone)."""
    src = program(
        decls=HDR,
        ingress='apply { log_msg("start"); log_msg("k={}", { hdr.h.k }); log_msg("end"); }',
    )
    sw = switch(src)
    sw.process(0, pkt(9))
    assert list(sw.ctx.logs) == ["start", "k=9", "end"]


@pytest.mark.parametrize(
    ("assertion", "error"),
    [
        ('static_assert(V1MODEL_VERSION >= 20160101, "old v1model")', None),
        ("static_assert(true)", None),
        ('static_assert(V1MODEL_VERSION < 20160101, "old v1model")', "failed: old v1model"),
        ("static_assert(1 == 2)", "static_assert failed"),
    ],
)
def test_static_assert_is_decided_when_compiling(assertion: str, error: str | None) -> None:
    src = program(decls=HDR + f" const bool checked = {assertion};")
    if error is None:
        assert one(src, pkt(1)) == pkt(1)
    else:
        with pytest.raises(P4TypeError, match=error):
            switch(src)


def test_log_msg_and_failed_asserts_keep_only_the_latest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    src = program(
        decls=HDR,
        ingress='apply { log_msg("k={}", { hdr.h.k }); assert(hdr.h.k == 255); }',
    )
    sw = switch(src)
    with caplog.at_level(logging.CRITICAL, logger="softswitch.dataplane"):
        for i in range(KEPT_MESSAGES + 5):
            sw.process(0, pkt(i & 0xFF))
    assert len(sw.ctx.logs) == KEPT_MESSAGES
    assert sw.ctx.logs[0] == f"k={5 & 0xFF}"
    assert sw.ctx.logs[-1] == f"k={(KEPT_MESSAGES + 4) & 0xFF}"
    # the assert holds for one packet in 256: more than KEPT_MESSAGES failed
    assert len(sw.ctx.errors) == KEPT_MESSAGES
    assert sw.ctx.errors[-1].startswith("assert failed at ")


def test_random_gives_the_values_randint_gives_for_the_seed() -> None:
    # runs seeded before the written-out sampling keep their numbers
    for seed in (0, 1, 7, 12345):
        ctx, ref = PacketContext(seed), random_module.Random(seed)
        for lo, hi in [(0, 1), (0, 3), (0, 2), (5, 5), (9, 3), (10, 20), (0, 2**32 - 1)] * 40:
            want = lo if hi <= lo else ref.randint(lo, hi)
            assert ctx.random(lo, hi) == want
