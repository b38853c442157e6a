// Ingress-to-egress clone: the clone is the packet as received, parsed again, then all
// metadata (standard metadata too, and what the parser wrote) is zeroed except the
// preserved field list, whose values are those at the end of ingress, not at the call.
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8> port_seen;
    bit<8> instance;
    bit<8> kept;
    bit<8> dropped;
    bit<8> parsed;
    bit<8> stamp;
    bit<8> length;
}

struct meta_t {
    @field_list(2) bit<8> kept;
    bit<8> dropped;
    bit<8> parsed;
}

struct hdrs_t {
    probe_t probe;
}

parser ProbeParser(packet_in pkt, out hdrs_t hdr, inout meta_t meta,
                   inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.probe);
        meta.parsed = (bit<8>)sm.ingress_port + 8w0x40;
        transition accept;
    }
}

control NoVerify(inout hdrs_t hdr, inout meta_t meta) {
    apply { }
}

control CloneLate(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        meta.kept = 8w0x01;
        meta.dropped = 8w0x02;
        clone_preserving_field_list(CloneType.I2E, 32w5, 2);
        // written after the call: the clone sees these
        meta.kept = 8w0x5A;
        meta.dropped = 8w0x5B;
        hdr.probe.stamp = 8w0xAB;  // only the original carries this
        sm.egress_spec = 1;
    }
}

control RecordClone(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 1) {
            hdr.probe.port_seen = (bit<8>)sm.ingress_port;
            hdr.probe.instance = (bit<8>)sm.instance_type;
            hdr.probe.kept = meta.kept;
            hdr.probe.dropped = meta.dropped;
            hdr.probe.parsed = meta.parsed;
            hdr.probe.length = (bit<8>)sm.packet_length;
        } else {
            hdr.probe.parsed = meta.parsed;
        }
    }
}

control NoCompute(inout hdrs_t hdr, inout meta_t meta) {
    apply { }
}

control ProbeDeparser(packet_out pkt, in hdrs_t hdr) {
    apply { pkt.emit(hdr.probe); }
}

V1Switch(ProbeParser(), NoVerify(), CloneLate(), RecordClone(), NoCompute(),
         ProbeDeparser()) main;
