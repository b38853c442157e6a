#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h1; h_t h2; h_t h3; }
struct meta_t { bit<8> m1; bit<8> m2; }
struct pair_t { bit<8> p; bit<8> q; }
struct wrap_t { pair_t w; bit<8> z; }
parser P(packet_in pk, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            1: s1;
            default: s2;
        }
    }
    state s1 {
        pk.extract(hdr.h1);
        transition s2;
    }
    state s2 {
        transition select(hdr.h1.isValid()) {
            true: s3;
            default: accept;
        }
    }
    state s3 {
        meta.m1 = hdr.h1.a;  // warn: hdr.h1.a may be uninitialized
        transition accept;
    }
}
control V(inout headers_t hdr, inout meta_t meta) { apply {} }
control Sub(inout pair_t pp, in bit<8> x) { apply { pp.p = x; } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Sub() sub;
    action withh(in h_t hh) { meta.m1 = hh.a; }  // warn: accessing a field of an invalid header hh
    apply {
        pair_t pr;
        pair_t pr2;
        wrap_t wr;
        h_t lh;
        h_t lh2;
        bit<8> k;
        pr.p = 1;
        pr2 = pr;  // warn: pr may not be completely initialized
        wr.z = 1;
        meta.m1 = wr.z;
        wr.w.p = 2;
        pair_t pw = wr.w;
        lh.setValid();
        meta.m1 = lh.b;  // warn: lh.b may be uninitialized
        sub.apply(pr, k);  // warn: k may be uninitialized | pr may not be completely initialized
        if (false) { hdr.h1.setInvalid(); }
        meta.m1 = hdr.h1.a;
        hdr.h2.setInvalid();
        withh(hdr.h2);
        lh2 = hdr.h2;
        lh2.setValid();
        meta.m1 = lh2.a;
        hdr.h3.setInvalid();
        if (sm.ingress_port == 1) { hdr.h3.setValid(); }
        hdr.h3.a = 1;  // warn: accessing a field of a potentially invalid header hdr.h3
        if (hdr.h3.isValid()) { meta.m1 = 1; } else { meta.m1 = hdr.h3.b; }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
control C(inout headers_t hdr, inout meta_t meta) { apply {} }
control D(packet_out pk, in headers_t hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
