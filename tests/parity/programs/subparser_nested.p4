// Sub-parsers two deep: when the innermost one stops parsing (no select case matches,
// or it rejects), every header extracted on the way, at every level, stays valid. On
// BMv2 neither sets parser_error: p4c-bm2-ss compiles both to "end of parsing".
#include <core.p4>
#include <v1model.p4>

header byte_t {
    bit<8> v;
}

header status_t {
    bit<8> err;
    bit<8> valid_bits;
}

struct meta_t {
    bit<8> depth;
}

struct hdrs_t {
    status_t status;
    byte_t   top;
    byte_t   mid;
    byte_t   low;
}

parser Low(packet_in pkt, out byte_t low, inout meta_t meta) {
    state start {
        pkt.extract(low);
        meta.depth = 3;
        transition select(low.v) {
            1: accept;
            2: reject;
        }
    }
}

parser Mid(packet_in pkt, out byte_t mid, out byte_t low, inout meta_t meta) {
    Low() low_parser;

    state start {
        pkt.extract(mid);
        meta.depth = 2;
        low_parser.apply(pkt, low, meta);
        transition accept;
    }
}

parser Top(packet_in pkt, out hdrs_t hdr, inout meta_t meta,
           inout standard_metadata_t sm) {
    Mid() mid_parser;

    state start {
        pkt.extract(hdr.top);
        meta.depth = 1;
        mid_parser.apply(pkt, hdr.mid, hdr.low, meta);
        transition accept;
    }
}

control NoVerify(inout hdrs_t hdr, inout meta_t meta) {
    apply { }
}

control Report(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.status.setValid();
        if (sm.parser_error == error.NoError) {
            hdr.status.err = 0;
        } else if (sm.parser_error == error.NoMatch) {
            hdr.status.err = 2;
        } else {
            hdr.status.err = 0xFF;
        }
        hdr.status.valid_bits = (hdr.top.isValid() ? 8w4 : 8w0)
                              | (hdr.mid.isValid() ? 8w2 : 8w0)
                              | (hdr.low.isValid() ? 8w1 : 8w0)
                              | (meta.depth << 4);
        sm.egress_spec = 1;
    }
}

control NoEgress(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control NoCompute(inout hdrs_t hdr, inout meta_t meta) {
    apply { }
}

control InOrder(packet_out pkt, in hdrs_t hdr) {
    apply {
        pkt.emit(hdr.status);
        pkt.emit(hdr.top);
        pkt.emit(hdr.mid);
        pkt.emit(hdr.low);
    }
}

V1Switch(Top(), NoVerify(), Report(), NoEgress(), NoCompute(), InOrder()) main;
