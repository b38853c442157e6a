// Uses an extern function softswitch does not implement: the STF runner says "unsupported".
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; }
struct H { h_t h; }
struct M {}

extern void my_extern(in bit<8> x);

parser P(packet_in pk, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M m) { apply {} }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    apply { my_extern(hdr.h.a); }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply {} }
control CC(inout H hdr, inout M m) { apply {} }
control D(packet_out pk, in H hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
