// Clones asked for twice in one pipeline: the last call's session and field list win,
// and the list's values are copied when the pipeline ends (I2E at the end of ingress,
// E2E at the end of egress), so writes after the call, such as the ingress port read
// in the same action, are what the clone sees. A field only in the earlier list is 0.
#include <core.p4>
#include <v1model.p4>
header probe_t { bit<8> port_seen; bit<8> instance; bit<8> x; bit<8> y; }
struct meta_t { @field_list(1) bit<9> x; @field_list(2) bit<8> y; }
struct hdrs_t { probe_t probe; }
parser P(packet_in pkt, out hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.probe); transition accept; }
}
control VC(inout hdrs_t hdr, inout meta_t meta) { apply { } }
control I(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action do_clone() {
        clone_preserving_field_list(CloneType.I2E, 32w5, 2);
        clone_preserving_field_list(CloneType.I2E, 32w5, 1);
        meta.x = sm.ingress_port;
        meta.y = 8w7;
        sm.egress_spec = 1;
    }
    table t { actions = { do_clone; } default_action = do_clone(); }
    apply { t.apply(); }
}
control E(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            clone_preserving_field_list(CloneType.E2E, 32w6, 1);
            clone_preserving_field_list(CloneType.E2E, 32w6, 2);
            meta.x = 9w0x19;
            meta.y = 8w0x18;
        }
        hdr.probe.port_seen = (bit<8>)sm.ingress_port;
        hdr.probe.instance = (bit<8>)sm.instance_type;
        hdr.probe.x = (bit<8>)meta.x;
        hdr.probe.y = meta.y;
    }
}
control CC(inout hdrs_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in hdrs_t hdr) { apply { pkt.emit(hdr.probe); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
