"""The P4 program of the client tests and its packet format."""

from __future__ import annotations

CPU_PORT = 64

PROGRAM = """\
#include <core.p4>
#include <v1model.p4>

const bit<9> CPU_PORT = 64;

@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    bit<7> _pad;
}

@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

header h_t {
    bit<8>  sel;
    bit<8>  a;
    bit<16> b;
    bit<32> c;
    bit<48> mac;
    bit<8>  d;
}

struct learn_t {
    bit<48> mac;
    bit<9>  port;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t  packet_in;
    h_t          h;
}

struct meta_t {
    bit<8> unused;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_h;
        }
    }
    state parse_packet_out {
        pkt.extract(hdr.packet_out);
        transition parse_h;
    }
    state parse_h {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) tern_counter;
    direct_meter<bit<2>>(MeterType.packets) tern_meter;
    counter(8, CounterType.packets_and_bytes) by_d;
    meter(4, MeterType.packets) by_a;
    register<bit<16>>(16) store;
    action_selector(HashAlgorithm.crc16, 64, 16) lb;
    bit<2> color;

    action fwd(bit<9> port) { sm.egress_spec = port; }
    action set_b(bit<16> b, bit<9> port) { hdr.h.b = b; sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    action metered(bit<9> port) {
        tern_meter.read(color);
        sm.egress_spec = port;
        hdr.h.d = (bit<8>)color;
    }

    table host {
        key = { hdr.h.a: exact @name("a"); hdr.h.mac: exact @name("mac"); }
        actions = { fwd; drop; }
        default_action = drop();
    }
    table route {
        key = { hdr.h.c: lpm @name("c"); }
        actions = { fwd; drop; NoAction; }
        default_action = NoAction();
    }
    table acl {
        key = {
            hdr.h.a: ternary @name("a");
            hdr.h.b: range @name("b");
            hdr.h.d: optional @name("d");
        }
        actions = { fwd; metered; }
        counters = tern_counter;
        meters = tern_meter;
    }
    table balance {
        key = { hdr.h.a: exact @name("a"); hdr.h.c: selector @name("c"); }
        actions = { set_b; fwd; }
        implementation = lb;
    }

    apply {
        if (hdr.packet_out.isValid()) {
            sm.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            exit;
        }
        if (hdr.h.sel == 1) { host.apply(); }
        else if (hdr.h.sel == 2) { route.apply(); }
        else if (hdr.h.sel == 3) { acl.apply(); }
        else if (hdr.h.sel == 4) { balance.apply(); }
        else if (hdr.h.sel == 5) {
            by_a.execute_meter((bit<32>)hdr.h.a, color);
            sm.egress_spec = (bit<9>)color + 1;
        }
        else if (hdr.h.sel == 6) {
            bit<16> r;
            store.read(r, (bit<32>)hdr.h.a);
            hdr.h.b = r;
            store.write((bit<32>)hdr.h.a, r + 1);
            sm.egress_spec = 1;
        }
        else if (hdr.h.sel == 7) {
            digest<learn_t>(1, {hdr.h.mac, sm.ingress_port});
            mark_to_drop(sm);
        }
        else if (hdr.h.sel == 8) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = sm.ingress_port;
            sm.egress_spec = CPU_PORT;
        }
        else if (hdr.h.sel == 9) { sm.mcast_grp = hdr.h.b; }
        else if (hdr.h.sel == 10) {
            clone(CloneType.I2E, (bit<32>)hdr.h.b);
            mark_to_drop(sm);
        }
        by_d.count((bit<32>)hdr.h.d);
    }
}

control Egr(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.h);
    }
}

V1Switch(P(), VC(), Ing(), Egr(), CC(), D()) main;
"""


def packet(sel: int, a: int = 0, b: int = 0, c: int = 0, mac: int = 0, d: int = 0) -> bytes:
    """A frame of the test program: sel, a, b(16), c(32), mac(48), d."""
    return (
        bytes([sel, a])
        + b.to_bytes(2, "big")
        + c.to_bytes(4, "big")
        + mac.to_bytes(6, "big")
        + bytes([d])
    )
