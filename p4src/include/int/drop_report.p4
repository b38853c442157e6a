// int/drop_report.p4 -- DropReport: a report to the collector when ingress drops.
//
// A packet that ingress decided to drop (meta.fwd.drop_reason, counted and
// dropped by IngressStats) is cloned as it arrived (I2E) to the collector's
// session when a drop_reasons entry matches its reason. Egress (IntEgress)
// wraps the clone in a Telemetry Report v2.0 with D=1, this switch's node id,
// the ingress port and the drop reason, and keeps at most
// DROP_REPORT_INNER_BYTES of the dropped packet.
//
// Rate limit: one report per reason every min_gap_us (the entry's argument);
// the drops in between are only counted (drop_counter). The limiter keeps,
// per reason, the earliest ingress timestamp at which the next report may go.
// Drops in the traffic manager (a full queue) are not seen by the P4 program
// and give no report.

#ifndef __FABRIC_DROP_REPORT__
#define __FABRIC_DROP_REPORT__

control DropReport(inout local_metadata_t meta,
                   inout standard_metadata_t standard_metadata) {

    register<bit<48>>(DROP_REASON_COUNT) drop_report_next_us;

    bit<32> gap_us = 0;

    action report_drop(bit<32> switch_id, bit<32> min_gap_us) {
        meta.report_node_id = switch_id;
        gap_us = min_gap_us;
    }

    action no_drop_report() {
    }

    table drop_reasons {
        key = {
            meta.fwd.drop_reason: ternary @name("reason");
        }
        actions = {
            report_drop;
            @defaultonly no_drop_report;
        }
        const default_action = no_drop_report();
        size = DROP_REPORT_SIZE;
    }

    apply {
        if (meta.fwd.drop_reason == DROP_NONE || meta.fwd.from_cpu == 1) {
            return;
        }
        if (drop_reasons.apply().hit) {
            bit<32> index = (bit<32>)meta.fwd.drop_reason;
            bit<48> now = standard_metadata.ingress_global_timestamp;
            bit<48> next;
            drop_report_next_us.read(next, index);
            if (now >= next) {
                drop_report_next_us.write(index, now + (bit<48>)gap_us);
                meta.report_drop_reason = meta.fwd.drop_reason;
                meta.int_ingress_port = standard_metadata.ingress_port;
                meta.clone_kind = CLONE_DROP_REPORT;
                clone_preserving_field_list(CloneType.I2E, INT_REPORT_SESSION, FL_CLONE);
            }
        }
    }
}

#endif  // __FABRIC_DROP_REPORT__
