// metadata.p4 -- the TNA user metadata: the shared local_metadata_t (so the
// architecture-free controls of ../include run unchanged) and the bridged
// header ingress emits in front of the packet for egress.

#ifndef __FABRIC_TNA_METADATA__
#define __FABRIC_TNA_METADATA__

// TNA gives egress fresh user metadata, so what egress needs travels as a
// header. Byte-aligned, as bf-p4c packs it as written.
// The first byte of what the egress parser sees tells a bridged packet from a
// mirrored copy (whose mirror header comes first).
const bit<8> BRIDGED_KIND = 0;
const bit<8> DEPTH_REPORT_KIND = 1;
const bit<8> CNP_KIND = 2;
const bit<8> INT_REPORT_KIND = 3;
const bit<8> TRIM_KIND = 4;

// eg_dprsr_md.mirror_type of the two egress mirrors (adaptive.p4, cnp.p4)
const MirrorType_t MIRROR_TYPE_DEPTH_REPORT = 1;
const MirrorType_t MIRROR_TYPE_CNP = 2;
// ig_dprsr_md.mirror_type of the INT sink's report copy (int_ingress.p4)
const MirrorType_t MIRROR_TYPE_INT_REPORT = 1;
// ... and of a packet trimmed on Tofino 1 (trim.p4)
const MirrorType_t MIRROR_TYPE_TRIM = 2;

header bridged_md_t {
    bit<8>         kind;            // BRIDGED_KIND
    bit<6>         _pad0;
    bit<1>         has_int;         // an int_bridged_h follows (int_ingress.p4)
    port_num_t     ingress_port;
    bit<6>         _pad1;
    bit<1>         adaptive;        // forwarded by use_adaptive: report its depth
    bit<1>         to_cpu;
    drop_reason_t  drop_reason;
    group_id_t     group_id;
    member_index_t member_index;
    bit<4>         _pad2;
    bit<CNP_INDEX_BITS> flow_slot;  // flow hash bits: CNP rate-limit slot
}

// The mirror header of a CNP copy (cnp.p4).
header cnp_mirror_h {
    bit<8> kind;                    // CNP_KIND
    bit<2> _pad;
    bit<6> dscp;
}

const bit<16> BRIDGED_BYTES = 10;

// The mirror header of a packet trimmed on Tofino 1 (trim.p4): egress sends
// the copy on as it is.
header trim_mirror_h {
    bit<8> kind;                    // TRIM_KIND
}

// What INT egress needs from ingress (int_ingress.p4): behind the bridged
// header of a packet that is an INT source or carries INT, and as the mirror
// header (kind INT_REPORT_KIND) of the sink's report copy. 14 bytes.
header int_bridged_h {
    bit<8>     kind;                // INT_REPORT_KIND on the report copy, else 0
    bit<6>     _pad0;
    bit<1>     source;              // int_watchlist hit: egress adds INT
    bit<1>     sink;                // int_sink_ports hit: egress strips INT
    port_num_t ingress_port;
    port_num_t egress_port;         // the data packet's port (also on the copy)
    bit<6>     _pad1;
    bit<8>     max_hops;
    bit<16>    instructions;
    bit<48>    ingress_tstamp;      // ig_prsr_md.global_tstamp, ns
}

// Earlier hops' INT metadata, a word at a time (no varbit on Tofino): the
// parsers take at most INT_TNA_STACK_WORDS words (int_parser.p4), and a
// transit hop does not push beyond it (int_egress.p4). 16 words: 4 hops of
// the controller's default instructions (switch id, ports, latency, queue).
#ifndef INT_TNA_STACK_WORDS
#define INT_TNA_STACK_WORDS 16
#endif
header int_word_h {
    bit<32> data;
}

// A queue-depth report (adaptive.p4): the egress mirror header and, after
// recirculation, what the ingress parser reads on DEPTH_REPORT_PORT.
header depth_report_h {
    bit<8>         kind;            // DEPTH_REPORT_KIND
    bit<6>         _pad;
    bit<1>         adaptive;        // group and slot are an adaptive group's
    port_num_t     port;            // the egress port it was measured on
    group_id_t     group_id;
    member_index_t member_index;
    bit<32>        depth;           // deq_qdepth, cells
}

// Operands of TNA's stateful ALUs: a RegisterAction reads metadata, so the
// flowlet clock and candidate live here rather than in control locals.
// How next_hop_group's action picks the slot (load_balance.p4).
const bit<3> LB_MODE_HASH        = 0;
const bit<3> LB_MODE_FLOWLET     = 1;
const bit<3> LB_MODE_RANDOM      = 2;
const bit<3> LB_MODE_ROUND_ROBIN = 3;
const bit<3> LB_MODE_ADAPTIVE    = 4;

// index width of the per-group registers (LB_MAX_GROUPS = 2^10)
#define LB_GROUP_INDEX_BITS 10
// index width of the per-(group, slot) registers (LB_MEMBER_SLOTS = 2^15)
#define LB_SLOT_INDEX_BITS 15

struct tna_lb_metadata_t {
    bit<32>        now_us;
    bit<32>        candidate;
    bit<3>         mode;
    member_index_t last_slot;   // group_size - 1: the round-robin wrap point
    bit<1>         report;      // this packet is a depth report (adaptive.p4)
    bit<1>         report_slot; // ... for an adaptive group's slot
    port_num_t     report_port;
    bit<32>        report_depth;
}

// Egress operands of the CNP rate limiter's stateful ALU.
struct tna_cnp_metadata_t {
    bit<32> now_us;
    bit<32> interval_us;
}

struct tna_metadata_t {
    bridged_md_t      bridged;
    depth_report_h    depth_report;   // parsed: a recirculated report
    depth_report_h    depth_mirror;   // built in egress: the mirror header
    cnp_mirror_h      cnp_mirror;     // parsed on a CNP copy, built on its original
    int_bridged_h     int_bridged;    // INT state from ingress (bridged or mirrored)
    int_bridged_h     int_mirror;     // built in ingress: the sink's mirror header
    int_word_h[INT_TNA_STACK_WORDS] int_words;  // the parsed INT metadata stack
    trim_mirror_h     trim_mirror;    // Tofino 1: built in ingress, parsed in egress
    MirrorId_t        mirror_session;
    tna_cnp_metadata_t cnp;
    local_metadata_t  fab;
    tna_lb_metadata_t lb;
}

#endif  // __FABRIC_TNA_METADATA__
