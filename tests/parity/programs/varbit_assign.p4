/* Assigning a varbit field, or a header holding one, copies the value and its current
 * length: b and c are deparsed as long as the extracted a. */
#include <core.p4>
#include <v1model.p4>

header len_t { bit<8> n; }
header vb_t { varbit<32> v; }

struct headers_t { len_t l; vb_t a; vb_t b; vb_t c; }
struct meta_t { }

parser P(packet_in pk, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.l);
        pk.extract(hdr.a, (bit<32>)hdr.l.n * 8);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t m) { apply { } }

control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        hdr.b.setValid();
        hdr.b.v = hdr.a.v;
        hdr.c = hdr.a;
        sm.egress_spec = 1;
    }
}

control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }

control CC(inout headers_t hdr, inout meta_t m) { apply { } }

control D(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.l);
        pk.emit(hdr.a);
        pk.emit(hdr.b);
        pk.emit(hdr.c);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
