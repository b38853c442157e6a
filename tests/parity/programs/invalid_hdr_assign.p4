/* Assigning an invalid header to a header marks the destination invalid and leaves its
 * fields' bits as they were; reading them afterwards sees those bits. */
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> x; bit<8> y; }

struct headers_t { h_t a; h_t b; h_t c; h_t d; }
struct meta_t { }

parser P(packet_in pk, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.a);
        pk.extract(hdr.b);
        pk.extract(hdr.d);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t m) { apply { } }

control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    @noWarn("uninitialized_use") action none(@noWarn("unused") out h_t r) { }
    apply {
        sm.egress_spec = 1;
        if (hdr.a.x == 1) {
            hdr.b = hdr.c;      // c was never extracted: invalid
        } else if (hdr.a.x == 2) {
            none(hdr.b);        // the action's unwritten out header is copied out
        } else if (hdr.a.x == 3) {
            hdr.b = hdr.c;
            hdr.b.setValid();   // made valid again: its fields are zeroed
        }
        // b's bits, valid or not
        @noWarn("invalid_header") {
            hdr.d.x = hdr.b.x;
            hdr.d.y = hdr.b.y;
        }
    }
}

control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }

control CC(inout headers_t hdr, inout meta_t m) { apply { } }

control D(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.a);
        pk.emit(hdr.b);
        pk.emit(hdr.d);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
