// load_balance.p4 -- LoadBalance: pick a member of the route's next-hop group.
//
// One member table for every mode: next_hop_member maps (group, member index)
// to a port and MACs and counts each member's packets and bytes. The group
// entry (next_hop_group) says how the index is chosen, so the controller
// switches a group's mode with one table write:
//
//   use_ecmp              flow hash mod group size: a flow sticks to a member
//   use_flowlet           a flow keeps its member until it pauses for longer
//                         than gap_us; the next flowlet gets a random member
//                         (LetFlow). Not a re-hash: CRCs are linear, so
//                         hash(flow, flowlet number) mod 2^k would move every
//                         flow by the same XOR offset
//   use_spray_random      a uniformly random member for every packet
//   use_spray_round_robin members in turn, per group
//   use_adaptive          DRILL(2,1): two random members and the group's
//                         previous best; the shortest egress queue wins
//                         (ties go to the random sample, so an idle fabric
//                         sprays evenly)
//
// Liveness: live_members has one bit per member slot. A chosen member whose
// bit is clear is replaced by the next live slot (cyclically); flows on live
// members keep theirs. The controller marks a port down by clearing its bits
// in the groups that use it -- one write per group, no member churn.
//
// Adaptive needs the port of members it does not forward to. A table can be
// applied once per packet, so those ports are learned: every forwarded packet
// records its member's port in member_port (data-plane state, refreshed
// continuously; the member table stays the only source of truth). A member
// not seen yet counts as idle.

#ifndef __FABRIC_LOAD_BALANCE__
#define __FABRIC_LOAD_BALANCE__

control LoadBalance(inout headers_t hdr,
                    inout local_metadata_t meta,
                    inout standard_metadata_t standard_metadata) {

    // {valid:1, unused:7, member:8, flowlets so far:16, last seen (us):32}
    register<bit<64>>(FLOWLET_SLOTS) flowlet_state;
    register<member_index_t>(LB_MAX_GROUPS) round_robin_next;
    register<member_index_t>(LB_MAX_GROUPS) adaptive_best;
    // {valid:1, unused:6, port:9} per (group, member slot)
    register<bit<16>>(LB_MEMBER_SLOTS) member_port;
    direct_counter(CounterType.packets_and_bytes) next_hop_member_counter;

    // ---------------------------------------------------------- group modes
    action use_ecmp(bit<8> group_size, member_mask_t live_members) {
        meta.lb.group_size = group_size;
        meta.lb.live_members = live_members;
    }

    action use_flowlet(bit<8> group_size, member_mask_t live_members, bit<32> gap_us) {
        meta.lb.group_size = group_size;
        meta.lb.live_members = live_members;
        meta.lb.gap_us = gap_us;
    }

    action use_spray_random(bit<8> group_size, member_mask_t live_members) {
        meta.lb.group_size = group_size;
        meta.lb.live_members = live_members;
    }

    action use_spray_round_robin(bit<8> group_size, member_mask_t live_members) {
        meta.lb.group_size = group_size;
        meta.lb.live_members = live_members;
    }

    action use_adaptive(bit<8> group_size, member_mask_t live_members) {
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
        standard_metadata.egress_spec = port;
        hdr.ethernet.src_addr = smac;
        hdr.ethernet.dst_addr = dmac;
        meta.lb.member_found = 1;
    }

    action member_miss() {
        meta.fwd.drop_reason = DROP_MEMBER_MISS;
    }

    // ECMP picks with `meta.ecmp_hash`, the flow hash rotated right by 0, 8, 16 or
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
        counters = next_hop_member_counter;
        size = NEXT_HOP_MEMBER_SIZE;
    }

    apply {
        // locals first, initialised: p4c checks each use against every path, returns
        // included
        bit<32> group = (bit<32>)meta.fwd.group_id;
        bit<32> slot_base = group << LB_MEMBER_BITS;
        bit<8> size = 0;
        member_index_t idx = 0;
        bit<1> is_flowlet = 0;
        bit<32> flowlet_index = (bit<32>)meta.flow_hash[FLOWLET_INDEX_BITS - 1:0];
        bit<64> flowlet = 0;
        bit<32> now = standard_metadata.ingress_global_timestamp[31:0];
        bit<32> all_slots = 0;
        bit<32> live = 0;
        bool group_hit = true;
        if (meta.fwd.routed == 0 || meta.fwd.drop_reason != DROP_NONE) {
            return;
        }

        switch (next_hop_group.apply().action_run) {
            use_ecmp: {
                ecmp_hash_bits.apply();  // only ECMP picks by the hash
                hash(idx, HashAlgorithm.identity, (member_index_t)0,
                     { meta.ecmp_hash }, meta.lb.group_size);
            }
            use_flowlet: {
                is_flowlet = 1;
                flowlet_state.read(flowlet, flowlet_index);
                idx = flowlet[55:48];
                if (flowlet[63:63] == 0 || now - flowlet[31:0] > meta.lb.gap_us
                        || idx >= meta.lb.group_size) {
                    random(idx, (member_index_t)0, meta.lb.group_size - 1);
                    flowlet[47:32] = flowlet[47:32] + 1;
                }
            }
            use_spray_random: {
                random(idx, (member_index_t)0, meta.lb.group_size - 1);
            }
            use_spray_round_robin: {
                round_robin_next.read(idx, group);
                if (idx >= meta.lb.group_size) {
                    idx = 0;
                }
                member_index_t next = idx + 1;
                if (next >= meta.lb.group_size) {
                    next = 0;
                }
                round_robin_next.write(group, next);
            }
            use_adaptive: {
                member_index_t c1;
                member_index_t c2;
                member_index_t c3;
                random(c1, (member_index_t)0, meta.lb.group_size - 1);
                random(c2, (member_index_t)0, meta.lb.group_size - 1);
                adaptive_best.read(c3, group);
                if (c3 >= meta.lb.group_size) {
                    c3 = c1;
                }
                bit<16> p1;
                bit<16> p2;
                bit<16> p3;
                member_port.read(p1, slot_base | (bit<32>)c1);
                member_port.read(p2, slot_base | (bit<32>)c2);
                member_port.read(p3, slot_base | (bit<32>)c3);
                bit<32> load1 = 0;
                bit<32> load2 = 0;
                bit<32> load3 = 0;
                if (p1[15:15] == 1) {
                    port_queue_depth.read(load1, (bit<32>)p1[8:0]);
                }
                if (p2[15:15] == 1) {
                    port_queue_depth.read(load2, (bit<32>)p2[8:0]);
                }
                if (p3[15:15] == 1) {
                    port_queue_depth.read(load3, (bit<32>)p3[8:0]);
                }
                // a member that is down is never the least loaded
                if (((meta.lb.live_members >> c1) & 1) == 0) {
                    load1 = 0xFFFFFFFF;
                }
                if (((meta.lb.live_members >> c2) & 1) == 0) {
                    load2 = 0xFFFFFFFF;
                }
                if (((meta.lb.live_members >> c3) & 1) == 0) {
                    load3 = 0xFFFFFFFF;
                }
                idx = c1;
                bit<32> best_load = load1;
                if (load2 < best_load) {
                    idx = c2;
                    best_load = load2;
                }
                if (load3 < best_load) {
                    idx = c3;
                }
                adaptive_best.write(group, idx);
            }
            group_miss: {
                group_hit = false;
            }
        }
        if (!group_hit) {
            return;  // group_miss set the drop reason
        }
        // ------------------------------------------------------ liveness
        size = meta.lb.group_size;
        all_slots = ((bit<32>)1 << size) - 1;
        live = meta.lb.live_members & all_slots;
        if (live == 0) {
            meta.fwd.drop_reason = DROP_NO_LIVE_MEMBER;
        } else {
            if (((live >> idx) & 1) == 0) {
                // rotate the live mask so bit k stands for slot (idx + k) mod size,
                // then take the lowest set bit
                bit<32> rotated = ((live >> idx) | (live << (size - idx))) & all_slots;
                bit<32> lowest = rotated & (~rotated + 1);
                member_index_t k = 0;
                if ((lowest & 0xFFFF0000) != 0) {
                    k = k | 16;
                }
                if ((lowest & 0xFF00FF00) != 0) {
                    k = k | 8;
                }
                if ((lowest & 0xF0F0F0F0) != 0) {
                    k = k | 4;
                }
                if ((lowest & 0xCCCCCCCC) != 0) {
                    k = k | 2;
                }
                if ((lowest & 0xAAAAAAAA) != 0) {
                    k = k | 1;
                }
                idx = idx + k;
                if (idx >= size) {
                    idx = idx - size;
                }
            }
            meta.lb.member_index = idx;

            if (is_flowlet == 1) {
                flowlet[63:63] = 1;
                flowlet[55:48] = idx;
                flowlet[31:0] = now;
                flowlet_state.write(flowlet_index, flowlet);
            }

            next_hop_member.apply();
            if (meta.lb.member_found == 1) {
                member_port.write(slot_base | (bit<32>)idx,
                                  (bit<16>)0x8000 | (bit<16>)standard_metadata.egress_spec);
            }
        }
    }
}

#endif  // __FABRIC_LOAD_BALANCE__
