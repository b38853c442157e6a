// resubmit and recirculate asked for twice in one pipeline: the last call's field list
// wins, copied at the end of the pipeline (values written after the call are kept); a
// field in two lists (@field_list(1, 3)) is preserved by either.
#include <core.p4>
#include <v1model.p4>
header probe_t { bit<8> pass_no; bit<8> x; bit<8> y; bit<8> z; bit<8> rx; bit<8> ry; }
struct meta_t { @field_list(1, 3) bit<8> x; @field_list(2) bit<8> y; @field_list(3) bit<8> z; @field_list(4) bit<8> rx; @field_list(5) bit<8> ry; }
struct hdrs_t { probe_t probe; }
parser P(packet_in pkt, out hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.probe); transition accept; }
}
control VC(inout hdrs_t hdr, inout meta_t meta) { apply { } }
control I(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.instance_type == 4) {
            hdr.probe.rx = meta.rx;
            hdr.probe.ry = meta.ry;
        } else if (sm.instance_type == 0) {
            resubmit_preserving_field_list(2);
            resubmit_preserving_field_list(3);
            meta.x = (bit<8>)sm.ingress_port;
            meta.y = 8w0x22;
            meta.z = 8w0x33;
        } else {
            hdr.probe.pass_no = (bit<8>)sm.instance_type;
            hdr.probe.x = meta.x;
            hdr.probe.y = meta.y;
            hdr.probe.z = meta.z;
        }
    }
}
control E(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.probe.rx == 0) {
            recirculate_preserving_field_list(5);
            recirculate_preserving_field_list(4);
            meta.rx = 8w0x44;
            meta.ry = 8w0x55;
        }
    }
}
control CC(inout hdrs_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in hdrs_t hdr) { apply { pkt.emit(hdr.probe); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
