#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
header_union u_t { h_t x; h_t y; }
struct headers_t { h_t h1; h_t h2; h_t h3; h_t[2] st; }
struct meta_t { bit<8> m1; bit<8> m2; }
struct pair_t { bit<8> p; bit<8> q; }
parser P(packet_in pk, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h1);
        transition select(hdr.h1.a) {
            1: s2;
            default: s3;
        }
    }
    state s2 {
        pk.extract(hdr.h2);
        transition s3;
    }
    state s3 {
        meta.m1 = hdr.h2.a;  // warn: accessing a field of a potentially invalid header hdr.h2 | hdr.h2.a may be uninitialized
        transition accept;
    }
}
control V(inout headers_t hdr, inout meta_t meta) { apply {} }
control Sub(inout headers_t hdr, inout meta_t meta) {
    apply { hdr.h3.setInvalid(); }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Sub() sub;
    bit<8> cl;
    action a1(bit<8> v) { meta.m1 = v; hdr.h2.setInvalid(); }
    action a2() { meta.m2 = cl; }  // warn: cl may be uninitialized
    table t { key = { hdr.h1.a: exact; } actions = { a1; a2; NoAction; } default_action = NoAction(); }  // warn: accessing a field of a potentially invalid header hdr.h1
    apply {
        bit<8> x;
        bit<8> y;
        bit<8> z = 3;
        pair_t pr;
        h_t lh;
        if (sm.ingress_port == 1) { x = 1; }
        meta.m1 = x;  // warn: x may be uninitialized
        meta.m2 = z;
        y[3:0] = 1;  // warn: y may be uninitialized
        meta.m1 = y;
        meta.m1 = pr.p;  // warn: pr.p may be uninitialized
        meta.m1 = lh.a;  // warn: accessing a field of an invalid header lh | lh.a may be uninitialized
        if (sm.ingress_port == 2) { hdr.h1.setInvalid(); }
        meta.m2 = hdr.h1.b;  // warn: accessing a field of a potentially invalid header hdr.h1
        if (hdr.h1.isValid()) { meta.m2 = hdr.h1.a; }
        if (!hdr.h1.isValid()) { return; }
        meta.m2 = hdr.h1.b;  // warn: accessing a field of a potentially invalid header hdr.h1
        t.apply();
        meta.m1 = hdr.h2.a;
        sub.apply(hdr, meta);
        meta.m1 = hdr.h3.a;
        hdr.st[0].setInvalid();
        meta.m1 = hdr.st[0].a;  // warn: accessing a field of an invalid header hdr.st[0]
        meta.m1 = hdr.st[1].a;
        x = 7;
        pr.q = x;
        pr.p = x;
        pair_t pr2 = pr;
        meta.m1 = pr2.p;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
control C(inout headers_t hdr, inout meta_t meta) { apply {} }
control D(packet_out pk, in headers_t hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
