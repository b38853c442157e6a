// load_balance.p4 -- LoadBalance on TNA: the same two tables as v1model
// (next_hop_group picks the mode, size and live mask; next_hop_member maps
// (group, member index) to port and MACs), with the same mode actions, so the
// encoder's group intents are unchanged.
//
// Each mode yields an 8-bit "pick" that one shared reduction turns into a slot
// (Tofino has no run-time modulo: restoring division, compare and subtract
// group_size shifted by 7..0, one ALU step each):
//
//   use_ecmp              the low byte of the flow hash
//   use_flowlet           a Register of {last seen, member} per flow-hash slot;
//                         one RegisterAction keeps the stored member within the
//                         gap and otherwise stores the fresh candidate (hash
//                         mixed with the clock), read-compare-write in one
//                         stateful ALU pass. Time: global_tstamp[41:10] (1.024 us)
//   use_spray_random      the Random extern (8 bits, so sizes that do not divide
//                         256 are slightly biased: at most 1/256 per slot)
//   use_spray_round_robin a per-group counter Register; its RegisterAction
//                         returns the slot and advances it, wrapping at
//                         group_size - 1, in one pass
//   use_adaptive          two samples, the random pick and the group's
//                         round-robin slot; the one whose slot depth
//                         (adaptive.p4, fed back from egress) is lower wins,
//                         ties to the random one. v1model's DRILL(2,1) also
//                         remembers the last winner: that is a second access
//                         to one register in one pass, so TNA samples a
//                         rotating slot instead (it visits every slot in turn)
//
// Liveness as v1model: a chosen slot whose live bit is clear is replaced by the
// next live slot, cyclically. Tofino's ALUs shift by constants only, so the
// slot's bit is built by a 5-step barrel shift of 1, the slots at or above it
// are ~(bit - 1), and the lowest set bit (x & -x) is turned back into an index
// by five constant masks. v1model also masks live_members to group_size bits;
// here the encoder's check (no live bits beyond the size) stands in for it.

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

    // next slot per group (group ids < LB_MAX_GROUPS, as the encoder enforces)
    Register<member_index_t, bit<LB_GROUP_INDEX_BITS>>(LB_MAX_GROUPS) round_robin_next;

    RegisterAction<member_index_t, bit<LB_GROUP_INDEX_BITS>, member_index_t>(round_robin_next)
    round_robin_take = {
        void apply(inout member_index_t value, out member_index_t slot) {
            slot = value;
            if (value >= tlb.last_slot) {
                value = 0;
            } else {
                value = value + 1;
            }
        }
    };

    Random<bit<8>>() spray_random;
    SlotDepth() slot_depth;

    // ---------------------------------------------------------- group modes
    action use_ecmp(bit<8> group_size, member_mask_t live_members) {
        meta.lb.group_size = group_size;
        meta.lb.live_members = live_members;
        tlb.mode = LB_MODE_HASH;
    }

    action use_flowlet(bit<8> group_size, member_mask_t live_members, bit<32> gap_us) {
        meta.lb.group_size = group_size;
        meta.lb.live_members = live_members;
        meta.lb.gap_us = gap_us;
        tlb.mode = LB_MODE_FLOWLET;
    }

    action use_spray_random(bit<8> group_size, member_mask_t live_members) {
        meta.lb.group_size = group_size;
        meta.lb.live_members = live_members;
        tlb.mode = LB_MODE_RANDOM;
    }

    action use_spray_round_robin(bit<8> group_size, member_mask_t live_members) {
        meta.lb.group_size = group_size;
        meta.lb.live_members = live_members;
        tlb.last_slot = group_size - 1;
        tlb.mode = LB_MODE_ROUND_ROBIN;
    }

    action use_adaptive(bit<8> group_size, member_mask_t live_members) {
        meta.lb.group_size = group_size;
        meta.lb.live_members = live_members;
        tlb.last_slot = group_size - 1;
        tlb.mode = LB_MODE_ADAPTIVE;
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
            use_spray_random;
            use_spray_round_robin;
            use_adaptive;
            @defaultonly group_miss;
        }
        const default_action = group_miss();
        size = LB_MAX_GROUPS;
    }

    // ---------------------------------------------------------- members
    action set_next_hop(port_num_t port, mac_addr_t smac, mac_addr_t dmac) {
        ig_tm_md.ucast_egress_port = port;
        hdr.ethernet.src_addr = smac;
        hdr.ethernet.dst_addr = dmac;
        meta.lb.member_found = 1;
    }

    action member_miss() {
        meta.fwd.drop_reason = DROP_MEMBER_MISS;
    }

    // As v1model's: ECMP picks with `meta.ecmp_hash`, the flow hash rotated right by 0, 8, 16 or
    // 24 bits as this table's default action says. Every switch computes the same
    // CRC, so without it a switch of the second tier would pick with the very bits
    // the first tier used: all the flows an aggregation switch gets from one edge
    // switch agree in those bits and leave by one member (hash polarisation; on a
    // k=4 fat-tree two of the four cores carried nothing). The controller gives
    // each tier its own rotation. A seed mixed into the CRC would not do: CRC is
    // affine, so a seed only XORs a constant into the result and the members'
    // shares stay as they were.
    action rotate_0() {
        meta.ecmp_hash = meta.flow_hash;
    }

    action rotate_8() {
        meta.ecmp_hash = meta.flow_hash[7:0] ++ meta.flow_hash[31:8];
    }

    action rotate_16() {
        meta.ecmp_hash = meta.flow_hash[15:0] ++ meta.flow_hash[31:16];
    }

    action rotate_24() {
        meta.ecmp_hash = meta.flow_hash[23:0] ++ meta.flow_hash[31:24];
    }

    table ecmp_hash_bits {
        actions = {
            rotate_0;
            rotate_8;
            rotate_16;
            rotate_24;
        }
        default_action = rotate_0();
        size = 1;
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
        // locals first, initialised: p4c checks each use against every path,
        // returns included
        bit<8> pick = 0;
        bit<16> rem = 0;
        bit<16> div = 0;
        member_index_t idx = 0;
        member_index_t rotating = 0;
        member_mask_t live = 0;
        member_mask_t slot_bit = 1;
        bit<LB_SLOT_INDEX_BITS> slot_a = 0;
        bit<LB_SLOT_INDEX_BITS> slot_b = 0;
        bit<32> depth_a = 0;
        bit<32> depth_b = 0;
        if (tlb.report == 1) {
            // a depth report: record it (SlotDepth) and stop; ingress drops it
            slot_a = meta.fwd.group_id[LB_GROUP_INDEX_BITS - 1:0]
                     ++ meta.lb.member_index[LB_MEMBER_BITS - 1:0];
            slot_b = slot_a;
        } else if (meta.fwd.routed == 0 || meta.fwd.drop_reason != DROP_NONE) {
            return;
        } else {
            next_hop_group.apply();
        }
        // returns outside the branches that set the slots: p4c's
        // use-before-definition check does not follow them inside
        if (tlb.report == 0 && (meta.fwd.drop_reason != DROP_NONE || meta.lb.group_size == 0)) {
            return;
        }
        if (tlb.report == 0) {
            // -------------------------------------------------- the pick
            ecmp_hash_bits.apply();  // the hash as this tier picks with it
            pick = meta.ecmp_hash[7:0];
            if (tlb.mode == LB_MODE_FLOWLET) {
                // a new flowlet's candidate mixes in the clock so it may move
                pick = pick ^ tlb.now_us[7:0];
            } else if (tlb.mode == LB_MODE_RANDOM || tlb.mode == LB_MODE_ADAPTIVE) {
                pick = spray_random.get();
            }
            if (tlb.mode == LB_MODE_ROUND_ROBIN || tlb.mode == LB_MODE_ADAPTIVE) {
                // in range unless the group shrank since the last packet
                rotating = round_robin_take.execute(
                    meta.fwd.group_id[LB_GROUP_INDEX_BITS - 1:0]);
                if (tlb.mode == LB_MODE_ROUND_ROBIN) {
                    pick = rotating;  // the reduction below folds it back
                }
            }
            // pick mod group_size
            rem = (bit<16>)pick;
            div = (bit<16>)meta.lb.group_size;
            if (rem >= div << 7) { rem = rem - (div << 7); }
            if (rem >= div << 6) { rem = rem - (div << 6); }
            if (rem >= div << 5) { rem = rem - (div << 5); }
            if (rem >= div << 4) { rem = rem - (div << 4); }
            if (rem >= div << 3) { rem = rem - (div << 3); }
            if (rem >= div << 2) { rem = rem - (div << 2); }
            if (rem >= div << 1) { rem = rem - (div << 1); }
            if (rem >= div) { rem = rem - div; }
            idx = rem[7:0];
            if (tlb.mode == LB_MODE_FLOWLET) {
                // the flowlet keeps its slot; liveness is checked after, as v1model
                tlb.candidate = (bit<32>)rem;
                idx = flowlet_pick.execute(meta.flow_hash[FLOWLET_INDEX_BITS - 1:0])[7:0];
            }
            if (rotating >= meta.lb.group_size) {
                rotating = idx;
            }
            slot_a = meta.fwd.group_id[LB_GROUP_INDEX_BITS - 1:0] ++ idx[LB_MEMBER_BITS - 1:0];
            slot_b = meta.fwd.group_id[LB_GROUP_INDEX_BITS - 1:0]
                     ++ rotating[LB_MEMBER_BITS - 1:0];
        }
        if (tlb.report == 1 || tlb.mode == LB_MODE_ADAPTIVE) {
            slot_depth.apply(tlb.report_slot, tlb.report_depth, slot_a, slot_b, depth_a, depth_b);
        }
        if (tlb.report == 1) {
            return;
        }
        if (tlb.mode == LB_MODE_ADAPTIVE && depth_b < depth_a) {
            idx = rotating;
        }

        // ------------------------------------------------------ liveness
        live = meta.lb.live_members;
        if (live == 0) {
            meta.fwd.drop_reason = DROP_NO_LIVE_MEMBER;
        } else {
            // slot_bit = 1 << idx, by constant shifts
            if (idx[4:4] == 1) { slot_bit = slot_bit << 16; }
            if (idx[3:3] == 1) { slot_bit = slot_bit << 8; }
            if (idx[2:2] == 1) { slot_bit = slot_bit << 4; }
            if (idx[1:1] == 1) { slot_bit = slot_bit << 2; }
            if (idx[0:0] == 1) { slot_bit = slot_bit << 1; }
            if (idx >= LB_MAX_MEMBERS || (live & slot_bit) == 0) {
                // the next live slot at or after idx, else the first live one
                member_mask_t above = live & ~(slot_bit - 1);
                if (idx >= LB_MAX_MEMBERS || above == 0) {
                    above = live;
                }
                member_mask_t lowest = above & (~above + 1);
                member_index_t k = 0;
                if ((lowest & 0xFFFF0000) != 0) { k = k | 16; }
                if ((lowest & 0xFF00FF00) != 0) { k = k | 8; }
                if ((lowest & 0xF0F0F0F0) != 0) { k = k | 4; }
                if ((lowest & 0xCCCCCCCC) != 0) { k = k | 2; }
                if ((lowest & 0xAAAAAAAA) != 0) { k = k | 1; }
                idx = k;
            }
            meta.lb.member_index = idx;
            next_hop_member.apply();
        }
    }
}

#endif  // __FABRIC_TNA_LOAD_BALANCE__
