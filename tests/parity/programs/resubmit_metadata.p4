// Resubmit: the second ingress pass starts from zeroed metadata (ingress_port and
// ingress_global_timestamp read 0) except the preserved field list, whose values are
// the ones at the end of the first ingress pass, not at the call.
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8> port_seen;
    bit<8> instance;
    bit<8> kept;
    bit<8> dropped;
    bit<8> ts_zero;
    bit<8> pass_count;
}

struct meta_t {
    @field_list(1) bit<8> kept;
    @field_list(1) bit<8> pass_count;
    bit<8> dropped;
}

struct hdrs_t {
    probe_t probe;
}

parser ProbeParser(packet_in pkt, out hdrs_t hdr, inout meta_t meta,
                   inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.probe);
        transition accept;
    }
}

control NoVerify(inout hdrs_t hdr, inout meta_t meta) {
    apply { }
}

control FirstThenSecond(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            meta.kept = 8w0x11;
            meta.dropped = 8w0x22;
            meta.pass_count = meta.pass_count + 1;
            resubmit_preserving_field_list(1);
            // written after the call: the resubmitted pass must see these
            meta.kept = 8w0x33;
            meta.dropped = 8w0x44;
        } else {
            hdr.probe.port_seen = (bit<8>)sm.ingress_port;
            hdr.probe.instance = (bit<8>)sm.instance_type;
            hdr.probe.kept = meta.kept;
            hdr.probe.dropped = meta.dropped;
            hdr.probe.ts_zero = sm.ingress_global_timestamp == 0 ? 8w1 : 8w0;
            hdr.probe.pass_count = meta.pass_count;
            sm.egress_spec = 2;
        }
    }
}

control NoEgress(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control NoCompute(inout hdrs_t hdr, inout meta_t meta) {
    apply { }
}

control ProbeDeparser(packet_out pkt, in hdrs_t hdr) {
    apply { pkt.emit(hdr.probe); }
}

V1Switch(ProbeParser(), NoVerify(), FirstThenSecond(), NoEgress(), NoCompute(),
         ProbeDeparser()) main;
