// load_balance.p4 -- LoadBalance on TNA: ECMP over the same two tables as
// v1model (next_hop_group picks the mode and size, next_hop_member maps
// (group, member index) to port and MACs), so the encoder's group intents are
// unchanged. Tofino has no run-time modulo: the member index is the 8-bit
// flow hash reduced by restoring division (compare and subtract group_size
// shifted by 7..0), one ALU step each. Not yet on TNA: flowlet, spray,
// adaptive and the live-member mask (docs/tna.md).

#ifndef __FABRIC_TNA_LOAD_BALANCE__
#define __FABRIC_TNA_LOAD_BALANCE__

control LoadBalance(inout headers_t hdr,
                    inout local_metadata_t meta,
                    inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    action use_ecmp(bit<8> group_size, member_mask_t live_members) {
        meta.lb.group_size = group_size;
        meta.lb.live_members = live_members;
    }

    action group_miss() {
        meta.fwd.drop_reason = DROP_GROUP_MISS;
    }

    table next_hop_group {
        key = {
            meta.fwd.group_id: exact @name("group_id");
        }
        actions = {
            use_ecmp;
            @defaultonly group_miss;
        }
        const default_action = group_miss();
        size = LB_MAX_GROUPS;
    }

    action set_next_hop(port_num_t port, mac_addr_t smac, mac_addr_t dmac) {
        ig_tm_md.ucast_egress_port = port;
        hdr.ethernet.src_addr = smac;
        hdr.ethernet.dst_addr = dmac;
        meta.lb.member_found = 1;
    }

    action member_miss() {
        meta.fwd.drop_reason = DROP_MEMBER_MISS;
    }

    table next_hop_member {
        key = {
            meta.fwd.group_id: exact @name("group_id");
            meta.lb.member_index: exact @name("member_index");
        }
        actions = {
            set_next_hop;
            @defaultonly member_miss;
        }
        const default_action = member_miss();
        size = NEXT_HOP_MEMBER_SIZE;
    }

    apply {
        if (meta.fwd.routed == 0 || meta.fwd.drop_reason != DROP_NONE) {
            return;
        }
        next_hop_group.apply();
        if (meta.fwd.drop_reason != DROP_NONE || meta.lb.group_size == 0) {
            return;
        }
        // idx = flow_hash[7:0] mod group_size, by restoring division
        bit<16> rem = (bit<16>)meta.flow_hash[7:0];
        bit<16> div = (bit<16>)meta.lb.group_size;
        if (rem >= div << 7) { rem = rem - (div << 7); }
        if (rem >= div << 6) { rem = rem - (div << 6); }
        if (rem >= div << 5) { rem = rem - (div << 5); }
        if (rem >= div << 4) { rem = rem - (div << 4); }
        if (rem >= div << 3) { rem = rem - (div << 3); }
        if (rem >= div << 2) { rem = rem - (div << 2); }
        if (rem >= div << 1) { rem = rem - (div << 1); }
        if (rem >= div) { rem = rem - div; }
        meta.lb.member_index = rem[7:0];
        next_hop_member.apply();
    }
}

#endif  // __FABRIC_TNA_LOAD_BALANCE__
