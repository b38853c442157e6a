// drop_report.p4 -- DropReport on TNA: a report to the collector when ingress drops.
//
// v1model's drop_reasons table (key `reason`, actions report_drop and
// no_drop_report, same parameters). A packet ingress drops for a reason an
// entry matches (not one from the CPU) is I2E-mirrored, at most once per
// reason every min_gap_us, with an int_alert_h {D, ingress port, reason, node
// id} to INT_ALERT_SESSION_TNA; the deparser still drops the packet itself
// (drop_ctl). Egress turns the copy into the Telemetry Report v2.0 with D=1
// that v1model sends (int_egress.p4).
//
// Rate limit: one RegisterAction per packet on the reason's last report time
// (global_tstamp[41:10], 1.024 us units, as CNP's limiter), reporting when
// min_gap_us have passed since; v1model keeps the next allowed time instead,
// the same rule. A reason never reported starts at 0, so its first drop
// reports (after the first min_gap_us of the switch's clock).
//
// The copy is the packet as the ingress deparser emits it: rewrites ingress
// made before it decided to drop (MAC addresses, TTL) are in it, where
// v1model's clone is the packet as it arrived.

#ifndef __FABRIC_TNA_DROP_REPORT__
#define __FABRIC_TNA_DROP_REPORT__

control DropReport(inout tna_metadata_t meta,
                   in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                   inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {

    // last report time per reason (DROP_REASON_COUNT = 2^4)
    Register<bit<32>, bit<4>>(DROP_REASON_COUNT, 0) drop_report_last;

    RegisterAction<bit<32>, bit<4>, bit<1>>(drop_report_last) drop_report_due = {
        void apply(inout bit<32> value, out bit<1> due) {
            due = 0;
            if (meta.alert.now_us - value >= meta.alert.gap_us) {
                value = meta.alert.now_us;
                due = 1;
            }
        }
    };

    bit<32> node_id = 0;

    action report_drop(bit<32> switch_id, bit<32> min_gap_us) {
        node_id = switch_id;
        meta.alert.gap_us = min_gap_us;
    }

    action no_drop_report() {
    }

    table drop_reasons {
        key = {
            meta.fab.fwd.drop_reason: ternary @name("reason");
        }
        actions = {
            report_drop;
            @defaultonly no_drop_report;
        }
        const default_action = no_drop_report();
        size = DROP_REPORT_SIZE;
    }

    apply {
        if (meta.fab.fwd.drop_reason == DROP_NONE || meta.fab.fwd.from_cpu == 1) {
            return;
        }
        if (ig_dprsr_md.mirror_type != 0) {
            return;  // one mirror per packet: another one is taken
        }
        if (!drop_reasons.apply().hit) {
            return;
        }
        meta.alert.now_us = ig_prsr_md.global_tstamp[41:10];
        if (drop_report_due.execute(meta.fab.fwd.drop_reason[3:0]) == 1) {
            meta.int_alert.setValid();
            meta.int_alert.kind = ALERT_KIND;
            meta.int_alert._pad0 = 0;
            meta.int_alert.queue = 0;
            meta.int_alert._pad1 = 0;
            meta.int_alert.ingress_port = meta.bridged.ingress_port;
            meta.int_alert._pad2 = 0;
            meta.int_alert.egress_port = V1MODEL_DROP_PORT;
            meta.int_alert.drop_reason = meta.fab.fwd.drop_reason;
            meta.int_alert.queue_id = 0;
            meta.int_alert._pad3 = 0;
            meta.int_alert.queue_depth = 0;
            meta.int_alert.latency_ns = 0;
            meta.int_alert.node_id = node_id;
            ig_dprsr_md.mirror_type = MIRROR_TYPE_DROP_REPORT;
        }
    }
}

#endif  // __FABRIC_TNA_DROP_REPORT__
