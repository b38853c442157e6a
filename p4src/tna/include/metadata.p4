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
const bit<8> ALERT_KIND = 5;

// eg_dprsr_md.mirror_type of the two egress mirrors (adaptive.p4, cnp.p4)
const MirrorType_t MIRROR_TYPE_DEPTH_REPORT = 1;
const MirrorType_t MIRROR_TYPE_CNP = 2;
// ... of a queue report (queue_report.p4)
const MirrorType_t MIRROR_TYPE_QUEUE_REPORT = 3;
// ig_dprsr_md.mirror_type of the INT sink's report copy (int_ingress.p4)
const MirrorType_t MIRROR_TYPE_INT_REPORT = 1;
// ... and of a packet trimmed on Tofino 1 (trim.p4)
const MirrorType_t MIRROR_TYPE_TRIM = 2;
// ... and of a drop report (drop_report.p4)
const MirrorType_t MIRROR_TYPE_DROP_REPORT = 3;

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

// The mirror header of a drop report (an I2E copy of a packet ingress drops,
// drop_report.p4) or a queue report (an E2E copy of a packet that left a
// congested queue, queue_report.p4): what the report built from it in egress
// says (int_egress.p4). 19 bytes.
header int_alert_h {
    bit<8>        kind;             // ALERT_KIND
    bit<7>        _pad0;
    bit<1>        queue;            // 1: a queue report, 0: a drop report
    bit<7>        _pad1;
    port_num_t    ingress_port;
    bit<7>        _pad2;
    port_num_t    egress_port;      // queue reports: the congested port
    drop_reason_t drop_reason;      // drop reports
    bit<8>        queue_id;         // queue reports: egress_qid
    bit<5>        _pad3;
    qdepth_t      queue_depth;      // queue reports: enq_qdepth (cells)
    bit<32>       latency_ns;       // queue reports: the time the packet queued
    bit<32>       node_id;          // the switch id of the table entry that asked
}

const bit<16> ALERT_MIRROR_BYTES = 19;
// Drop and queue reports go to their own session (both chips), which the
// controller points at the collector's port like INT_REPORT_SESSION and sets
// to keep ALERT_MIRROR_BYTES + DROP_REPORT_INNER_BYTES of the copy: Tofino 1
// cannot cut a packet in egress, the session cuts it.
const MirrorId_t INT_ALERT_SESSION_TNA = 3;

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

// Operands and result of the drop and queue report rate limiters and of the
// tx byte counter's stateful ALUs (drop_report.p4, queue_report.p4, tx_bytes.p4).
struct tna_alert_metadata_t {
    bit<32> now_us;
    bit<32> gap_us;
    bit<32> tx_len;     // the bytes this packet adds to its port's count
    bit<32> tx_sent;    // the port's count before this packet
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
    int_alert_h       int_alert;      // a drop or queue report: built, mirrored, parsed
    MirrorId_t        mirror_session;
    tna_cnp_metadata_t cnp;
    tna_alert_metadata_t alert;
    local_metadata_t  fab;
    tna_lb_metadata_t lb;
}

#endif  // __FABRIC_TNA_METADATA__
