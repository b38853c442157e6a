/* Port 1 <-> port 2 whatever the frame holds: the packet path without parsing. */
#include <core.p4>
#include <v1model.p4>
struct H {}
struct M {}
parser P(packet_in pk, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { transition accept; }
}
control VC(inout H hdr, inout M m) { apply {} }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    apply {
        if (sm.ingress_port == 1) { sm.egress_spec = 2; } else { sm.egress_spec = 1; }
    }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply {} }
control CC(inout H hdr, inout M m) { apply {} }
control D(packet_out pk, in H hdr) { apply {} }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
