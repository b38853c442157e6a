// What p4c leaves out of P4Info: a table no live code applies (never applied, or applied
// only in a branch whose condition folds to false: enum members compared, a const bool)
// and the actions only such tables or dead branches use. Extern instances stay, used or
// not. The live part still forwards.
#include <core.p4>
#include <v1model.p4>

header op_t {
    bit<8> op;
    bit<8> val;
}

struct meta_t {
    bit<8> unused;
}

struct hdrs_t {
    op_t op;
}

enum Speed { FAST, SLOW }
enum bit<8> Level { LOW = 1, HIGH = 2 }
const bool TRACING = false;

parser OpParser(packet_in pkt, out hdrs_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.op);
        transition accept;
    }
}

control NoVerify(inout hdrs_t hdr, inout meta_t meta) {
    apply { }
}

control Pick(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(4) spare_reg;
    counter(4, CounterType.packets) spare_count;
    counter(4, CounterType.packets) dead_count;
    direct_counter(CounterType.packets) forgotten_hits;

    action set_in_forgotten(bit<8> v) { hdr.op.val = v; forgotten_hits.count(); }
    action set_in_dead(bit<8> v) { hdr.op.val = v; }
    action mark_dead() { hdr.op.val = 0xDD; dead_count.count(0); }
    action mark_live() { hdr.op.val = hdr.op.val + 1; }
    action set_port(bit<9> port) { sm.egress_spec = port; }

    table forgotten {
        key = { hdr.op.op: exact; }
        actions = { set_in_forgotten; NoAction; }
        counters = forgotten_hits;
    }
    table dead {
        key = { hdr.op.op: exact; }
        actions = { set_in_dead; NoAction; }
    }
    table ports {
        key = { hdr.op.op: exact; }
        actions = { set_port; NoAction; }
        const default_action = set_port(3);
    }

    apply {
        if (Speed.FAST == Speed.SLOW) {
            dead.apply();
            mark_dead();
        } else if (Level.LOW == Level.HIGH) {
            mark_dead();
        } else if (TRACING) {
            dead.apply();
        }
        hdr.op.val = TRACING ? (dead.apply().hit ? 8w1 : 8w2) : hdr.op.val;
        ports.apply();
        mark_live();
    }
}

control NoEgress(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control NoCompute(inout hdrs_t hdr, inout meta_t meta) {
    apply { }
}

control OpDeparser(packet_out pkt, in hdrs_t hdr) {
    apply { pkt.emit(hdr.op); }
}

V1Switch(OpParser(), NoVerify(), Pick(), NoEgress(), NoCompute(), OpDeparser()) main;
