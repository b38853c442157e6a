// Annotations as p4c writes them into P4Info: a string spanning lines inside
// @entry_restriction (comment-like text and all, macros expanded as cpp -C does),
// user-defined types with @p4runtime_translation (P4Info gives their values the
// controller's width: none for a string) and other annotations, and a controller header
// type that is not whole bytes but never instantiated.
#include <core.p4>
#include <v1model.p4>

#define WIDE_KIND 0x0800

@p4runtime_translation("example.org/port_id", string)
@port_hint("front panel")
type bit<9> port_id_t;

@display_as(HEX) type bit<8> kind_t;

@controller_header("packet_in")
header punt_t {
    port_id_t ingress_port;
    bit<9> reason;
}

header op_t {
    kind_t kind;
    bit<8> val;
}

struct meta_t {
    bit<8> unused;
}

struct hdrs_t {
    op_t op;
}

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

control Classify(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_val(bit<8> v, bit<9> port) {
        hdr.op.val = v;
        sm.egress_spec = port;
    }
    @entry_restriction("
        // a wide kind is never classified here
        kind   !=   WIDE_KIND;
        /* keep   spacing */  val::mask == 0;
    ")
    table kinds {
        key = {
            hdr.op.kind: ternary @name("kind");
            hdr.op.val: ternary @name("val");
        }
        actions = { set_val; NoAction; }
    }
    apply {
        kinds.apply();
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

V1Switch(OpParser(), NoVerify(), Classify(), NoEgress(), NoCompute(), OpDeparser()) main;
