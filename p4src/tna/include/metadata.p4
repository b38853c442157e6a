// metadata.p4 -- the TNA user metadata: the shared local_metadata_t (so the
// architecture-free controls of ../include run unchanged) and the bridged
// header ingress emits in front of the packet for egress.

#ifndef __FABRIC_TNA_METADATA__
#define __FABRIC_TNA_METADATA__

// TNA gives egress fresh user metadata, so what egress needs travels as a
// header. Byte-aligned, as bf-p4c packs it as written.
header bridged_md_t {
    bit<7>        _pad0;
    port_num_t    ingress_port;
    bit<7>        _pad1;
    bit<1>        to_cpu;
    drop_reason_t drop_reason;
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

struct tna_lb_metadata_t {
    bit<32>        now_us;
    bit<32>        candidate;
    bit<3>         mode;
    member_index_t last_slot;   // group_size - 1: the round-robin wrap point
}

struct tna_metadata_t {
    bridged_md_t      bridged;
    local_metadata_t  fab;
    tna_lb_metadata_t lb;
}

#endif  // __FABRIC_TNA_METADATA__
