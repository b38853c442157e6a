// The error a bad run-time length gives, in BMv2's check order: a length that is not
// whole bytes is ParserInvalidArgument before anything else, then too little packet is
// PacketTooShort, then more than the varbit field holds is HeaderTooShort. advance()
// checks whole bytes, then PacketTooShort.
#include <core.p4>
#include <v1model.p4>

header status_t {
    bit<8> code;
}

header len_t {
    bit<8> mode;
    bit<8> n;
}

header options_t {
    varbit<16> v;
}

header byte_t {
    bit<8> v;
}

struct meta_t {
    bit<8> unused;
}

struct hdrs_t {
    status_t  status;
    len_t     len;
    options_t options;
    byte_t    after;
}

parser LengthParser(packet_in pkt, out hdrs_t hdr, inout meta_t meta,
                    inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.len);
        transition select(hdr.len.mode) {
            0: variable;
            default: skip;
        }
    }
    state variable {
        pkt.extract(hdr.options, (bit<32>)hdr.len.n);
        transition accept;
    }
    state skip {
        pkt.advance((bit<32>)hdr.len.n);
        pkt.extract(hdr.after);
        transition accept;
    }
}

control NoVerify(inout hdrs_t hdr, inout meta_t meta) {
    apply { }
}

control ReportError(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.status.setValid();
        if (sm.parser_error == error.NoError) {
            hdr.status.code = 0;
        } else if (sm.parser_error == error.PacketTooShort) {
            hdr.status.code = 1;
        } else if (sm.parser_error == error.HeaderTooShort) {
            hdr.status.code = 2;
        } else if (sm.parser_error == error.ParserInvalidArgument) {
            hdr.status.code = 3;
        } else {
            hdr.status.code = 0xFF;
        }
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
        pkt.emit(hdr.len);
        pkt.emit(hdr.options);
        pkt.emit(hdr.after);
    }
}

V1Switch(LengthParser(), NoVerify(), ReportError(), NoEgress(), NoCompute(), InOrder()) main;
