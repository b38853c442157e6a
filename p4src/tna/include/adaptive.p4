// adaptive.p4 -- the queue-depth feedback behind use_adaptive on TNA.
//
// v1model shares one register between egress (writes each port's depth) and
// ingress (reads it). Tofino's registers belong to one gress, so the depth has
// to travel back to ingress as a packet:
//
//   1. egress, for a packet of an adaptive group leaving from the data queue,
//      at most once per DEPTH_REPORT_INTERVAL_US per (group, slot): mirror a
//      depth_report_h {group, slot, deq_qdepth} (E2E mirror, session
//      DEPTH_REPORT_SESSION, which the controller points at the pipe's
//      recirculation port and truncates to a few bytes);
//   2. the mirrored copy passes egress again: its parser finds the report
//      (first byte DEPTH_REPORT_KIND), the deparser emits it in front of the
//      truncated packet, and it recirculates;
//   3. ingress, on DEPTH_REPORT_PORT, parses the report and LoadBalance writes
//      the depth into slot_depth_a/b (below), then drops it.
//
// The depth is kept per (group, member slot) rather than per port: ingress
// cannot map a sampled slot to its port without applying next_hop_member a
// second time (v1model learns that map in a register; here it would be a third
// access to one register in one pass, which Tofino does not allow). Two copies
// of the state exist because each register serves one index per packet and the
// choice compares two slots. A slot not reported yet reads 0 (idle), as in
// v1model. With trimming (Tofino 2, WITH_CONGESTION) the other data packets
// report too, sampled per port, and the report's port feeds trim.p4. Tofino 2's ghost threads would deliver per-queue depths without the
// mirror, but they name queues, not slots: docs/tna.md.

#ifndef __FABRIC_TNA_ADAPTIVE__
#define __FABRIC_TNA_ADAPTIVE__

// The recirculation port reports come back on (pipe 0's on Tofino 1; set it to
// the pipe's recirculation port), and the mirror session that sends them there.
#ifndef DEPTH_REPORT_PORT
#define DEPTH_REPORT_PORT 68
#endif
const MirrorId_t DEPTH_REPORT_SESSION = 2;

// At most one report per (group, slot) in this many microseconds (1.024 us units).
#ifndef DEPTH_REPORT_INTERVAL_US
#define DEPTH_REPORT_INTERVAL_US 8
#endif

// The queue data packets use (ig_tm_md.qid is left at 0).
const QueueId_t DATA_QID = 0;

// Per (group, slot) depth: the one stateful ALU pass writes the report's depth
// on a report and returns the stored depth otherwise.
control SlotDepth(in bit<1> report,
                  in bit<32> report_depth,
                  in bit<LB_SLOT_INDEX_BITS> slot_a,
                  in bit<LB_SLOT_INDEX_BITS> slot_b,
                  out bit<32> depth_a,
                  out bit<32> depth_b) {

    Register<bit<32>, bit<LB_SLOT_INDEX_BITS>>(LB_MEMBER_SLOTS, 0) slot_depth_a;
    Register<bit<32>, bit<LB_SLOT_INDEX_BITS>>(LB_MEMBER_SLOTS, 0) slot_depth_b;

    RegisterAction<bit<32>, bit<LB_SLOT_INDEX_BITS>, bit<32>>(slot_depth_a) access_a = {
        void apply(inout bit<32> value, out bit<32> depth) {
            if (report == 1) {
                value = report_depth;
            }
            depth = value;
        }
    };

    RegisterAction<bit<32>, bit<LB_SLOT_INDEX_BITS>, bit<32>>(slot_depth_b) access_b = {
        void apply(inout bit<32> value, out bit<32> depth) {
            if (report == 1) {
                value = report_depth;
            }
            depth = value;
        }
    };

    apply {
        depth_a = access_a.execute(slot_a);
        depth_b = access_b.execute(slot_b);
    }
}

// Egress: decide whether this packet sends a depth report.
control DepthReport(inout tna_metadata_t meta,
                    in egress_intrinsic_metadata_t eg_intr_md,
                    in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                    inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {

    // last report time per (group, slot), and per port for trimming's reports
    Register<bit<32>, bit<LB_SLOT_INDEX_BITS>>(LB_MEMBER_SLOTS, 0) report_last;
#ifdef TNA_TRIM
    Register<bit<32>, port_num_t>(PORT_COUNT, 0) port_report_last;
#endif

    RegisterAction<bit<32>, bit<LB_SLOT_INDEX_BITS>, bit<1>>(report_last) report_due = {
        void apply(inout bit<32> value, out bit<1> due) {
            due = 0;
            if (meta.lb.now_us - value >= DEPTH_REPORT_INTERVAL_US) {
                value = meta.lb.now_us;
                due = 1;
            }
        }
    };

#ifdef TNA_TRIM
    RegisterAction<bit<32>, port_num_t, bit<1>>(port_report_last) port_report_due = {
        void apply(inout bit<32> value, out bit<1> due) {
            due = 0;
            if (meta.lb.now_us - value >= DEPTH_REPORT_INTERVAL_US) {
                value = meta.lb.now_us;
                due = 1;
            }
        }
    };
#endif

    apply {
        bit<1> due = 0;
        if (!meta.bridged.isValid() || meta.bridged.to_cpu == 1
                || eg_intr_md.egress_qid != DATA_QID) {
            return;
        }
        meta.lb.now_us = eg_prsr_md.global_tstamp[41:10];
        if (meta.bridged.adaptive == 1) {
            bit<LB_SLOT_INDEX_BITS> slot = meta.bridged.group_id[LB_GROUP_INDEX_BITS - 1:0]
                                           ++ meta.bridged.member_index[LB_MEMBER_BITS - 1:0];
            due = report_due.execute(slot);
        }
#ifdef TNA_TRIM
        else {
            // trimming needs every port's depth, adaptive groups or not
            due = port_report_due.execute(eg_intr_md.egress_port);
        }
#endif
        if (due == 1) {
            meta.depth_mirror.setValid();
            meta.depth_mirror.kind = DEPTH_REPORT_KIND;
            meta.depth_mirror._pad = 0;
            meta.depth_mirror.adaptive = meta.bridged.adaptive;
            meta.depth_mirror.port = eg_intr_md.egress_port;
            meta.depth_mirror.group_id = meta.bridged.group_id;
            meta.depth_mirror.member_index = meta.bridged.member_index;
            meta.depth_mirror.depth = (bit<32>)eg_intr_md.deq_qdepth;
            eg_dprsr_md.mirror_type = MIRROR_TYPE_DEPTH_REPORT;
        }
    }
}

#endif  // __FABRIC_TNA_ADAPTIVE__
