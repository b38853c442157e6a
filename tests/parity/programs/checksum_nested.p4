// Checksum blocks that apply other controls: p4c inlines them, then checks that the
// block holds only checksum calls, so this compiles for BMv2 and both checksums run.
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
    bit<8> unused;
}

struct hdrs_t {
    report_t report;
    sum_t    s;
}

parser SumParser(packet_in pkt, out hdrs_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.s);
        transition accept;
    }
}

control CheckSum(inout hdrs_t hdr) {
    apply {
        verify_checksum(hdr.s.isValid(), { hdr.s.a, hdr.s.b }, hdr.s.csum,
                        HashAlgorithm.csum16);
    }
}

control VerifyAll(inout hdrs_t hdr, inout meta_t meta) {
    CheckSum() check_sum;
    apply {
        check_sum.apply(hdr);
    }
}

control Report(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.report.setValid();
        hdr.report.bad_checksum = (bit<8>)sm.checksum_error;
        sm.egress_spec = 1;
    }
}

control NoEgress(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control FixSum(inout hdrs_t hdr) {
    apply {
        update_checksum(hdr.s.isValid(), { hdr.s.a, hdr.s.b }, hdr.s.csum,
                        HashAlgorithm.csum16);
    }
}

control FixTwice(inout hdrs_t hdr) {
    FixSum() fix_sum;
    apply {
        fix_sum.apply(hdr);
    }
}

control ComputeAll(inout hdrs_t hdr, inout meta_t meta) {
    FixTwice() fix;
    apply {
        fix.apply(hdr);
    }
}

control InOrder(packet_out pkt, in hdrs_t hdr) {
    apply {
        pkt.emit(hdr.report);
        pkt.emit(hdr.s);
    }
}

V1Switch(SumParser(), VerifyAll(), Report(), NoEgress(), ComputeAll(), InOrder()) main;
