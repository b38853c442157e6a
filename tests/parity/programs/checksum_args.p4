// Checksum blocks that apply controls with arguments (a tunnel's outer and inner
// headers passed in, a direct type invocation, a constructor argument, nesting): p4c
// inlines them before it checks that the block holds only checksum calls, so BMv2
// runs each call on the headers the arguments name.
#include <core.p4>
#include <v1model.p4>

header sum_t {
    bit<16> a;
    bit<16> b;
    bit<16> csum;
}

header report_t {
    bit<8> bad_checksum;
}

struct meta_t {
    bit<8> mode;
}

struct hdrs_t {
    report_t report;
    sum_t    outer;
    sum_t    inner;
}

parser TunnelParser(packet_in pkt, out hdrs_t hdr, inout meta_t meta,
                    inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.outer);
        pkt.extract(hdr.inner);
        transition accept;
    }
}

control CheckOne(in sum_t s) {
    apply {
        verify_checksum(s.isValid(), { s.a, s.b }, s.csum, HashAlgorithm.csum16);
    }
}

control VerifyTunnel(inout hdrs_t hdr, inout meta_t meta) {
    apply {
        CheckOne.apply(hdr.inner);
    }
}

control Report(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.report.setValid();
        hdr.report.bad_checksum = (bit<8>)sm.checksum_error;
        meta.mode = hdr.outer.a[7:0];
        sm.egress_spec = 1;
    }
}

control NoEgress(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

// the outer sum covers a field of the inner header, read through an `in` parameter
control FixOuter(inout sum_t o, in sum_t i, in bit<8> mode)(bit<8> wanted) {
    apply {
        update_checksum(mode == wanted, { o.a, i.b }, o.csum, HashAlgorithm.csum16);
    }
}

control FixInner(inout sum_t s) {
    apply {
        update_checksum(s.isValid(), { s.a, s.b }, s.csum, HashAlgorithm.csum16);
    }
}

control FixTunnel(inout sum_t o, inout sum_t i, in bit<8> mode) {
    FixOuter(8w1) fix_outer;
    apply {
        FixInner.apply(i);
        fix_outer.apply(o, i, mode);
    }
}

control ComputeTunnel(inout hdrs_t hdr, inout meta_t meta) {
    FixTunnel() fix;
    apply {
        fix.apply(hdr.outer, hdr.inner, meta.mode);
    }
}

control InOrder(packet_out pkt, in hdrs_t hdr) {
    apply {
        pkt.emit(hdr.report);
        pkt.emit(hdr.outer);
        pkt.emit(hdr.inner);
    }
}

V1Switch(TunnelParser(), VerifyTunnel(), Report(), NoEgress(), ComputeTunnel(),
         InOrder()) main;
