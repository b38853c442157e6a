// softswitch P4Info test: tables of every match kind, names, ids, hidden objects,
// default actions and table entries.
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header ip_t {
    bit<8>  proto;
    bit<8>  ttl;
    bit<32> src;
    bit<32> dst;
    bit<16> port;
}

struct headers_t {
    eth_t eth;
    ip_t  ip;
}

struct meta_t {
    bit<8>  class;
    bit<16> tag;
    bool    seen;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            0x0800: parse_ip;
            default: accept;
        }
    }
    state parse_ip {
        pkt.extract(hdr.ip);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

// a top-level action: every control using it gets its own copy, named "drop_it"
action drop_it(inout standard_metadata_t sm) {
    mark_to_drop(sm);
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_port(bit<9> port) {
        sm.egress_spec = port;
    }
    @name("classify") action set_class(bit<8> class, @id(7) bit<16> tag) {
        meta.class = class;
        meta.tag = tag;
    }
    @id(0x01000042) action count_only() {
    }
    @hidden action hidden_act() {
        meta.seen = true;
    }

    table exact_t {
        key = {
            hdr.eth.dst: exact;
            hdr.eth.type: exact @name("ethertype");
        }
        actions = {
            set_port;
            drop_it(sm);
        }
        default_action = drop_it(sm);
        size = 256;
    }

    @name("routes") table lpm_t {
        key = {
            hdr.ip.dst: lpm;
        }
        actions = {
            set_port;
            @defaultonly NoAction;
        }
        const default_action = set_port(9w3);
        support_timeout = true;
    }

    @id(0x0200abcd) table acl {
        key = {
            hdr.ip.src: ternary;
            hdr.ip.proto: ternary @id(5);
            hdr.ip.port: range;
            meta.class: optional;
        }
        actions = {
            @tableonly set_class;
            count_only;
        }
        size = 64;
        entries = {
            (32w0x0a000000 &&& 32w0xff000000, 8w6, 16w0 .. 16w1023, 8w1): set_class(8w2, 16w10);
            (_, _, _, _): count_only();
        }
    }

    table const_t {
        key = {
            meta.tag: exact;
        }
        actions = {
            set_port;
            NoAction;
        }
        const entries = {
            16w1: set_port(9w1);
            16w2: set_port(9w2);
        }
    }

    @hidden table hidden_t {
        actions = {
            hidden_act;
        }
        default_action = hidden_act();
    }

    apply {
        exact_t.apply();
        if (hdr.ip.isValid()) {
            lpm_t.apply();
            acl.apply();
        }
        const_t.apply();
        hidden_t.apply();
    }
}

control Egr(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    table egress_filter {
        key = {
            sm.egress_port: exact;
        }
        actions = {
            drop_it(sm);
            NoAction;
        }
        default_action = NoAction();
    }
    apply {
        egress_filter.apply();
    }
}

control CC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.ip);
    }
}

V1Switch(P(), VC(), Ing(), Egr(), CC(), D()) main;
