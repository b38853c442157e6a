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
struct tna_lb_metadata_t {
    bit<32> now_us;
    bit<32> candidate;
    bit<1>  flowlet;
}

struct tna_metadata_t {
    bridged_md_t      bridged;
    local_metadata_t  fab;
    tna_lb_metadata_t lb;
}

#endif  // __FABRIC_TNA_METADATA__
