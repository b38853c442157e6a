// Egress-to-egress clone: the clone carries the headers as egress left them and zeroed
// metadata except the preserved field list, copied at the end of egress.
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
    @field_list(4) bit<8> kept;
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

control ToPortOne(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        meta.dropped = 8w0x0D;
        sm.egress_spec = 1;
    }
}

control CloneLate(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            meta.kept = 8w0x01;
            clone_preserving_field_list(CloneType.E2E, 32w6, 4);
            // written after the call: the clone sees these
            meta.kept = 8w0x6B;
            hdr.probe.stamp = 8w0xCD;
        } else {
            hdr.probe.port_seen = (bit<8>)sm.ingress_port;
            hdr.probe.instance = (bit<8>)sm.instance_type;
            hdr.probe.kept = meta.kept;
            hdr.probe.dropped = meta.dropped;
            hdr.probe.length = (bit<8>)sm.packet_length;
        }
    }
}

control NoCompute(inout hdrs_t hdr, inout meta_t meta) {
    apply { }
}

control ProbeDeparser(packet_out pkt, in hdrs_t hdr) {
    apply { pkt.emit(hdr.probe); }
}

V1Switch(ProbeParser(), NoVerify(), ToPortOne(), CloneLate(), NoCompute(),
         ProbeDeparser()) main;
