// softswitch STF runner tests: exact, lpm and ternary tables, multicast and I2E clones.
#include <core.p4>
#include <v1model.p4>

// kind selects the table; res is written by the actions (and by egress for copies)
header h_t {
    bit<8>  kind;
    bit<32> addr;
    bit<16> t;
    bit<8>  res;
}

struct H { h_t h; }
struct M {}

parser P(packet_in pk, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}

control VC(inout H hdr, inout M m) { apply {} }

control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    action drop() { mark_to_drop(sm); }
    action set_out(bit<9> port, bit<8> val) { sm.egress_spec = port; hdr.h.res = val; }
    action set_mcast(bit<16> grp) { sm.mcast_grp = grp; }
    action do_clone(bit<32> session, bit<9> port) {
        clone(CloneType.I2E, session);
        sm.egress_spec = port;
    }
    table t_exact {
        key = { hdr.h.t : exact; hdr.h.kind : exact; }
        actions = { set_out; set_mcast; do_clone; drop; }
        default_action = drop();
    }
    table t_lpm {
        key = { hdr.h.addr : lpm; }
        actions = { set_out; drop; }
        default_action = drop();
    }
    table t_tern {
        key = { hdr.h.addr : ternary; hdr.h.t : ternary; }
        actions = { set_out; drop; }
        default_action = drop();
    }
    apply {
        if (hdr.h.kind == 1) {
            t_exact.apply();
        } else if (hdr.h.kind == 2) {
            t_lpm.apply();
        } else {
            t_tern.apply();
        }
    }
}

control E(inout H hdr, inout M m, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 1) {
            hdr.h.res = 0xCC;  // an ingress clone
        } else if (sm.egress_rid != 0) {
            hdr.h.res = (bit<8>)sm.egress_rid;  // a multicast copy
        }
    }
}

control CC(inout H hdr, inout M m) { apply {} }

control D(packet_out pk, in H hdr) { apply { pk.emit(hdr.h); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
