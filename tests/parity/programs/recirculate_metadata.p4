// Recirculate: the packet re-enters ingress as egress deparsed it, with zeroed metadata
// (ingress_port reads 0) except the preserved field list, copied at the end of egress.
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8> port_seen;
    bit<8> instance;
    bit<8> kept;
    bit<8> dropped;
    bit<8> stamp;
    bit<8> length;
}

struct meta_t {
    @field_list(3) bit<8> kept;
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

control RecordPass(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 4) {
            hdr.probe.port_seen = (bit<8>)sm.ingress_port;
            hdr.probe.instance = (bit<8>)sm.instance_type;
            hdr.probe.kept = meta.kept;
            hdr.probe.dropped = meta.dropped;
            hdr.probe.length = (bit<8>)sm.packet_length;
            sm.egress_spec = 5;
        } else {
            meta.dropped = 8w0x66;
            sm.egress_spec = 1;
        }
    }
}

control RecirculateOnce(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        // unicast packets always reach egress as instance type 0: recirculate only
        // packets whose first pass did not mark them
        if (hdr.probe.instance == 0) {
            meta.kept = 8w0x10;
            recirculate_preserving_field_list(3);
            // written after the call: the recirculated pass sees these
            meta.kept = 8w0x20;
            hdr.probe.stamp = 8w0xEE;
            hdr.probe.length = 8w0xFF;
        }
    }
}

control NoCompute(inout hdrs_t hdr, inout meta_t meta) {
    apply { }
}

control ProbeDeparser(packet_out pkt, in hdrs_t hdr) {
    apply { pkt.emit(hdr.probe); }
}

V1Switch(ProbeParser(), NoVerify(), RecordPass(), RecirculateOnce(), NoCompute(),
         ProbeDeparser()) main;
