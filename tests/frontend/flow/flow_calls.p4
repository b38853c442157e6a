#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h1; h_t h2; h_t h3; }
struct meta_t { bit<8> m1; bit<8> m2; }
struct pair_t { bit<8> p; bit<8> q; }
bit<8> f1(in bit<8> v, out bit<8> o) { o = v; return v + 1; }
bit<8> f2(in h_t h) { return h.a; }
parser P(packet_in pk, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    bit<8> pv;
    state start {
        pk.extract(hdr.h1);
        transition select(hdr.h1.a) {
            1: s2;
            2: s4;
            default: accept;
        }
    }
    state s2 {
        pk.extract(hdr.h2);
        pv = hdr.h2.b;
        transition s3;
    }
    state s4 {
        transition s3;
    }
    state s3 {
        meta.m2 = pv;  // warn: pv may be uninitialized
        transition select(pv) {  // warn: pv may be uninitialized
            1: accept;
            default: s5;
        }
    }
    state s5 {
        pk.extract(hdr.h3);
        meta.m1 = hdr.h3.a;
        transition accept;
    }
}
control V(inout headers_t hdr, inout meta_t meta) { apply {} }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(4) r;
    action inval() { hdr.h2.setInvalid(); }
    action outp(out bit<8> o, in bit<8> i) { o = i; }
    action rd(out bit<8> o) { meta.m1 = o; o = 1; }  // warn: o may be uninitialized
    table t { key = { sm.ingress_port: exact; } actions = { inval; NoAction; } default_action = NoAction(); }
    apply {
        bit<8> a;
        bit<8> b;
        bit<8> c;
        bit<8> d;
        pair_t ps;
        h_t lh;
        bool vv;
        inval();
        meta.m1 = hdr.h2.a;  // warn: accessing a field of an invalid header hdr.h2
        outp(a, meta.m2);
        meta.m1 = a;
        r.read(b, 0);
        meta.m1 = b;
        meta.m1 = f1(meta.m2, c);
        meta.m2 = c;
        ps.p = 1;
        meta.m1 = f2(hdr.h1);
        hash(d, HashAlgorithm.crc16, 8w0, { ps }, 8w4);  // warn: ps may not be completely initialized
        meta.m1 = d;
        lh.setValid();
        lh.a = 1;
        meta.m1 = lh.a;
        vv = hdr.h1.isValid();
        if (sm.ingress_port == 3) { hdr.h1.setInvalid(); }
        meta.m1 = hdr.h1.a;
        switch (t.apply().action_run) {
            inval: { hdr.h3.setInvalid(); }
            NoAction: { hdr.h3.setInvalid(); }
        }
        meta.m2 = hdr.h3.a;  // warn: accessing a field of a potentially invalid header hdr.h3
        if (sm.ingress_port == 4) { hdr.h1.setInvalid(); }
        meta.m1 = sm.ingress_port == 5 ? hdr.h1.a : 8w0;
        if (sm.ingress_port == 6) { exit; }
        hdr.h1 = hdr.h2;
        meta.m1 = hdr.h1.b;  // warn: accessing a field of an invalid header hdr.h1
        rd(meta.m2); if (vv) { meta.m2 = 1; }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.h1.isValid() && hdr.h1.a == 1) { hdr.h2.setInvalid(); }
        hdr.h2.b = 3;  // warn: accessing a field of a potentially invalid header hdr.h2
        if (sm.egress_port == 1) { hdr.h1.setInvalid(); } else { hdr.h1.setInvalid(); }
        hdr.h1.b = 3;  // warn: accessing a field of an invalid header hdr.h1
    }
}
control C(inout headers_t hdr, inout meta_t meta) { apply {} }
control D(packet_out pk, in headers_t hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
