"""A switch reuses a finished packet's header and metadata structs for the next packets:
nothing of one packet may show in the next, and nothing a packet leaves behind (digests,
register values, queued packets) may change when its structs are reused. The switches
running one compiled program share one pool of such structs."""

from __future__ import annotations

from softswitch.clock import SimClock
from softswitch.compiler import compile_text
from softswitch.v1model.switch import CloneSession, Switch
from tests.p4util import program, switch

HDR = """
header h_t { bit<8> op; bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
header x_t { bit<8> v; }
struct s_t { bit<8> p; bit<8> q; }
"""
HEADERS = "h_t h; x_t x; x_t y;"
META = "bit<8> m; s_t s;"
PARSER = """
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.op) { 1: parse_x; default: accept; }
    }
    state parse_x { pkt.extract(hdr.x); transition accept; }
"""


def reuse_program(ingress: str, decls: str = "", **more: str) -> str:
    """The test program (headers h, x, y; metadata m, s; op 1 also extracts x) with
    `ingress` and any other block given."""
    return program(
        decls=HDR + decls, headers=HEADERS, meta=META, parser=PARSER, ingress=ingress, **more
    )


def pkt(op: int, *rest: int) -> bytes:
    return bytes([op, *rest, *([0] * (4 - len(rest)))])


def test_a_packet_sees_none_of_the_previous_packets_values() -> None:
    # op 1 extracts x and leaves bits behind everywhere: x (then invalid), y's field
    # written while y is invalid, metadata, a struct in the metadata; op 0 reports them
    src = reuse_program(
        ingress="""apply {
            if (hdr.h.op == 1) {
                meta.m = 0x11; meta.s.p = 0x22;
                hdr.y.v = 0x33;
                hdr.x.setInvalid();
                sm.egress_spec = 2;
            } else {
                hdr.h.a = hdr.x.v; hdr.h.b = hdr.y.v; hdr.h.c = meta.m; hdr.h.d = meta.s.p;
                sm.egress_spec = (bit<9>)sm.mcast_grp + 1;
                sm.mcast_grp = 0;
            }
        }""",
    )
    sw = switch(src)
    for _ in range(3):
        assert sw.process(0, bytes([1, 0, 0, 0, 0, 0x44])) == [(2, bytes([1, 0, 0, 0, 0]))]
        assert sw.process(0, pkt(0)) == [(1, pkt(0, 0, 0, 0, 0))]


def test_dropped_packets_leave_nothing_behind() -> None:
    src = reuse_program(
        ingress="""apply {
            if (hdr.h.op == 1) {
                hdr.y.setValid(); hdr.y.v = 9; meta.m = 9;
                hdr.x.setValid();  // valid with every field zero
                mark_to_drop(sm);
            } else {
                hdr.h.a = meta.m;
                hdr.h.b = (bit<8>)(bit<1>)hdr.y.isValid();
                hdr.h.c = (bit<8>)(bit<1>)hdr.x.isValid();
            }
        }""",
    )
    sw = switch(src)
    assert sw.process(0, pkt(1)) == []
    assert sw.process(0, pkt(0)) == [(0, pkt(0, 0, 0, 0))]


def test_digests_and_register_values_outlive_the_packet() -> None:
    src = reuse_program(
        ingress="""
        register<bit<8>>(4) r;
        apply {
            meta.s.p = hdr.h.a;
            meta.s.q = hdr.h.b;
            digest<s_t>(1, meta.s);
            r.write((bit<32>)hdr.h.op, hdr.h.a);
        }""",
    )
    sw = switch(src)
    sw.process(0, pkt(0, 5, 6))
    sw.process(0, pkt(2, 7, 8))
    sw.process(0, pkt(3, 9, 10))
    assert [(d.data.p, d.data.q) for d in sw.digests] == [(5, 6), (7, 8), (9, 10)]
    assert sw.externs["I.r"].values[:4] == [5, 0, 7, 9]


def test_queued_packets_keep_their_own_headers() -> None:
    # packets wait in a throttled queue while later ones arrive: each leaves as it was
    src = reuse_program(
        ingress="apply { meta.m = hdr.h.a + 1; sm.egress_spec = 1; }",
        egress="apply { hdr.h.b = meta.m; hdr.h.c = (bit<8>)sm.enq_qdepth; }",
    )
    sw = switch(src, clock=SimClock())
    sw.tm.set_rate(port=1, pps=1000)
    for i in range(5):
        sw.inject(0, pkt(0, 10 * i))
    outs = sw.run_until(1_000_000)
    assert [o.data for o in outs] == [pkt(0, 10 * i, 10 * i + 1, max(i - 1, 0)) for i in range(5)]
    # and the next packets, once the queue has drained, see fresh structs
    assert sw.process(0, pkt(0, 3)) == [(1, pkt(0, 3, 4, 0))]


def test_every_way_of_leaving_bits_in_an_invalid_header_is_cleared() -> None:
    # op 1..4 each leave y invalid but holding 0x5A (a function's inout copy-back, a
    # header assignment, setInvalid after a write, a write while invalid); op 0 reads y
    src = reuse_program(
        decls=" void put(inout x_t h) { h.v = 0x5A; }",
        ingress="""apply {
            if (hdr.h.op == 1) { put(hdr.y); }
            else if (hdr.h.op == 2) { hdr.y.setValid(); hdr.y.v = 0x5A; hdr.y = hdr.x; }
            else if (hdr.h.op == 3) { hdr.y.setValid(); hdr.y.v = 0x5A; hdr.y.setInvalid(); }
            else if (hdr.h.op == 4) { hdr.y.v = 0x5A; }
            else { hdr.h.a = hdr.y.v; hdr.h.b = (bit<8>)(bit<1>)hdr.y.isValid(); }
        }""",
    )
    sw = switch(src)
    for op in (1, 2, 3, 4):
        assert sw.process(0, pkt(op)) == [(0, pkt(op))]
        assert sw.process(0, pkt(0)) == [(0, pkt(0, 0, 0))], f"after op {op}"


def test_a_varbit_header_is_zeroed_for_the_next_packet() -> None:
    # op 2 extracts a varbit of a.b bytes; the next packets, whatever they extract, emit
    # only what they extracted themselves
    src = program(
        decls="""
        header h_t { bit<8> op; bit<8> n; }
        header v_t { varbit<64> data; }
        """,
        headers="h_t h; v_t v;",
        parser="""
        state start {
            pkt.extract(hdr.h);
            transition select(hdr.h.op) { 2: parse_v; default: accept; }
        }
        state parse_v { pkt.extract(hdr.v, (bit<32>)hdr.h.n * 8); transition accept; }
        """,
        ingress="apply { sm.egress_spec = 1; }",
    )
    sw = switch(src)
    long = bytes([2, 4, 0xA1, 0xA2, 0xA3, 0xA4])
    short = bytes([2, 1, 0xB1])
    plain = bytes([0, 0])
    for _ in range(3):
        assert sw.process(0, long + b"\xee") == [(1, long + b"\xee")]
        assert sw.process(0, plain + b"\xee") == [(1, plain + b"\xee")]
        assert sw.process(0, short) == [(1, short)]
        assert sw.process(0, long) == [(1, long)]


def test_an_ingress_clone_on_reused_structs_sees_only_its_own_packet() -> None:
    # op 1 packets leave bits behind (metadata, y written while invalid, x valid) and its
    # parser writes metadata; the ingress clone of each packet, built on a finished
    # packet's structs, must see the packet as received, parsed again, with all metadata
    # zero (also what its own parse wrote) except the field list
    src = program(
        decls=HDR,
        headers=HEADERS,
        meta="@field_list(1) bit<8> kept; bit<8> m; s_t s;",
        parser="""
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.op) { 1: parse_x; default: accept; }
    }
    state parse_x { pkt.extract(hdr.x); meta.m = 0x44; transition accept; }
""",
        ingress="""apply {
            if (hdr.h.op == 1) { meta.s.p = 0x22; hdr.y.v = 0x33; hdr.h.a = 0x99; }
            meta.kept = hdr.h.b + 1;
            clone_preserving_field_list(CloneType.I2E, 5, 1);
            sm.egress_spec = 1;
        }""",
        egress="""apply {
            if (sm.instance_type == 1) {
                hdr.h.a = meta.m | meta.s.p | hdr.y.v | (bit<8>)sm.ingress_port;
                hdr.h.c = meta.kept;
                hdr.h.d = (bit<8>)(bit<1>)hdr.x.isValid();
            }
        }""",
    )
    sw = switch(src)
    sw.clone_session_set(5, CloneSession([(9, 0)]))
    for _ in range(3):
        # op 1 (x follows): the original carries ingress's writes, the clone none of them
        assert sw.process(3, bytes([1, 0, 6, 0, 0, 0x55])) == [
            (9, bytes([1, 0, 6, 7, 1, 0x55])),
            (1, bytes([1, 0x99, 6, 0, 0, 0x55])),
        ]
        assert sw.process(3, pkt(0, 0, 8)) == [(9, pkt(0, 0, 8, 9, 0)), (1, pkt(0, 0, 8))]


def test_switches_running_one_program_share_the_finished_structs() -> None:
    # a fabric of switches running one program: the structs a packet leaves at one switch
    # are the next packet's at another, zero again, with nothing of either switch's packets
    # showing in the other's
    src = reuse_program(
        ingress="""
        register<bit<8>>(1) seen;
        apply {
            bit<8> before;
            seen.read(before, 0);
            if (hdr.h.op == 1) {
                meta.m = 0x11; meta.s.p = 0x22; hdr.y.v = 0x33; hdr.x.setInvalid();
                seen.write(0, hdr.h.a);
            } else {
                hdr.h.a = hdr.x.v | hdr.y.v; hdr.h.b = meta.m | meta.s.p; hdr.h.c = before;
            }
            sm.egress_spec = 1;
        }""",
    )
    compiled = compile_text(src, "test.p4")
    a, b = Switch(compiled), Switch(compiled)
    for i in range(3):
        # op 1 at a (x follows, extracted then made invalid); op 0 at b, then at a
        assert a.process(0, bytes([1, 7 + i, 0, 0, 0, 0x44])) == [(1, bytes([1, 7 + i, 0, 0, 0]))]
        assert len(compiled.spare_structs) == 1  # a's structs, back in the program's pool
        left = compiled.spare_structs[0]
        assert b.process(0, pkt(0)) == [(1, pkt(0, 0, 0, 0))]  # b's register: never written
        assert compiled.spare_structs == [left]  # b took a's structs and gave them back
        assert a.process(0, pkt(0)) == [(1, pkt(0, 0, 0, 7 + i))]


def fields_of(h: object) -> list[tuple[str, object]]:
    """Every slot of a header or struct object, inner ones by their own slots."""
    slots = type(h).__slots__  # type: ignore[attr-defined]
    out: list[tuple[str, object]] = []
    for s in slots:
        v = getattr(h, s)
        if hasattr(v, "__slots__"):
            out.extend((f"{s}.{n}", w) for n, w in fields_of(v))
        else:
            out.append((s, v))
    return out


def test_the_deparser_that_resets_emits_what_the_deparser_emits() -> None:
    # a deparser of emits only has a twin that also resets each header it emits: the same
    # bytes, and the headers left as the reset of the valid ones leaves them
    sw = switch(reuse_program(ingress="apply { }"))
    pipe = sw.pipe
    for valid in ((True, True, False), (False, True, True), (True, False, True)):
        a, b = pipe["H"](), pipe["H"]()
        for hdr in (a, b):
            for h, v, bits in zip((hdr.h, hdr.x, hdr.y), valid, (1, 2, 3), strict=True):
                h._sv()
                for f in type(h)._fields:
                    setattr(h, f, bits)
                h._v = v
        buf_a, buf_b = bytearray(), bytearray()
        pipe["deparser"](buf_a, a)
        a._reset_valid()
        pipe["deparse_reset"](buf_b, b)
        assert buf_b == buf_a
        assert fields_of(b) == fields_of(a)


def test_a_deparser_with_more_than_emits_has_no_resetting_twin() -> None:
    deparser = "apply { pkt.emit(hdr); }"
    for other in (
        "apply { if (hdr.x.isValid()) { pkt.emit(hdr.x); } pkt.emit(hdr.h); }",
        "apply { pkt.emit(hdr.h); pkt.emit(hdr.h); }",
        "apply { pkt.emit(hdr.h); pkt.emit(hdr); }",
    ):
        src = reuse_program(ingress="apply { }")
        assert deparser in src
        sw = switch(src.replace(deparser, other))
        assert "deparse_reset" not in sw.pipe
        assert sw.process(0, pkt(1, 2, 3, 4, 5, 6)) == sw.process(0, pkt(1, 2, 3, 4, 5, 6))
