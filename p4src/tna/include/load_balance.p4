// load_balance.p4 -- LoadBalance on TNA: ECMP over the same two tables as
// v1model (next_hop_group picks the mode and size, next_hop_member maps
// (group, member index) to port and MACs), so the encoder's group intents are
// unchanged. Tofino has no run-time modulo: the member index is the 8-bit
// flow hash reduced by restoring division (compare and subtract group_size
// shifted by 7..0), one ALU step each.
//
// Flowlet: a Register of {last seen, member} pairs indexed by the flow hash and
// one RegisterAction that, within the gap, returns the stored member and
// otherwise stores and returns a fresh candidate (the hash mixed with the
// clock, reduced as above): the read-compare-write happens in one stateful ALU
// pass, as Tofino requires. Time is global_tstamp in 1.024 us units.
// Not yet on TNA: spray, adaptive and the live-member mask (docs/tna.md).

#ifndef __FABRIC_TNA_LOAD_BALANCE__
#define __FABRIC_TNA_LOAD_BALANCE__

struct flowlet_pair_t {
    bit<32> last_seen;
    bit<32> member;
}

control LoadBalance(inout headers_t hdr,
                    inout local_metadata_t meta,
                    inout tna_lb_metadata_t tlb,
                    inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    Register<flowlet_pair_t, bit<FLOWLET_INDEX_BITS>>(FLOWLET_SLOTS) flowlet_state;

    RegisterAction<flowlet_pair_t, bit<FLOWLET_INDEX_BITS>, bit<32>>(flowlet_state)
    flowlet_pick = {
        void apply(inout flowlet_pair_t value, out bit<32> member) {
            if (tlb.now_us - value.last_seen > meta.lb.gap_us) {
                value.member = tlb.candidate;
            }
            value.last_seen = tlb.now_us;
            member = value.member;
        }
    };

    action use_ecmp(bit<8> group_size, member_mask_t live_members) {
        meta.lb.group_size = group_size;
        meta.lb.live_members = live_members;
    }

    action use_flowlet(bit<8> group_size, member_mask_t live_members, bit<32> gap_us) {
        meta.lb.group_size = group_size;
        meta.lb.live_members = live_members;
        meta.lb.gap_us = gap_us;
        tlb.flowlet = 1;
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
            use_flowlet;
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
        // idx = hash byte mod group_size, by restoring division; a flowlet's
        // candidate mixes in the clock so a new flowlet may move
        bit<8> pick = meta.flow_hash[7:0];
        if (tlb.flowlet == 1) {
            pick = pick ^ tlb.now_us[7:0];
        }
        bit<16> rem = (bit<16>)pick;
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
        if (tlb.flowlet == 1) {
            tlb.candidate = (bit<32>)rem;
            meta.lb.member_index =
                flowlet_pick.execute(meta.flow_hash[FLOWLET_INDEX_BITS - 1:0])[7:0];
        }
        next_hop_member.apply();
    }
}

#endif  // __FABRIC_TNA_LOAD_BALANCE__
