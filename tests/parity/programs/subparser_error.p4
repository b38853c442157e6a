// A sub-parser that hits a parser error: the headers it extracted before the error stay
// valid and are deparsed (p4c inlines sub-parsers, so nothing is copied out or lost);
// ingress runs with parser_error set (PacketTooShort).
#include <core.p4>
#include <v1model.p4>

header byte_t {
    bit<8> v;
}

header word_t {
    bit<16> v;
}

header status_t {
    bit<8> err;
    bit<8> inner_valid;
    bit<8> tail_valid;
}

struct meta_t {
    bit<8> unused;
}

struct hdrs_t {
    status_t status;
    byte_t   outer;
    byte_t   inner;
    word_t   tail;
}

parser InnerParser(packet_in pkt, out byte_t inner, inout word_t tail) {
    state start {
        pkt.extract(inner);
        pkt.extract(tail);
        transition accept;
    }
}

parser OuterParser(packet_in pkt, out hdrs_t hdr, inout meta_t meta,
                   inout standard_metadata_t sm) {
    InnerParser() inner_parser;

    state start {
        pkt.extract(hdr.outer);
        inner_parser.apply(pkt, hdr.inner, hdr.tail);
        transition accept;
    }
}

control NoVerify(inout hdrs_t hdr, inout meta_t meta) {
    apply { }
}

control Report(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.status.setValid();
        hdr.status.err = sm.parser_error == error.PacketTooShort ? 8w1 : 8w0;
        hdr.status.inner_valid = hdr.inner.isValid() ? 8w1 : 8w0;
        hdr.status.tail_valid = hdr.tail.isValid() ? 8w1 : 8w0;
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
        pkt.emit(hdr.outer);
        pkt.emit(hdr.inner);
        pkt.emit(hdr.tail);
    }
}

V1Switch(OuterParser(), NoVerify(), Report(), NoEgress(), NoCompute(), InOrder()) main;
