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

struct tna_metadata_t {
    bridged_md_t     bridged;
    local_metadata_t fab;
}

#endif  // __FABRIC_TNA_METADATA__
