// int/queue_report.p4 -- QueueReport: postcards from congested queues.
//
// A data packet that waited behind at least `threshold` packets in its egress
// port's queue (enq_qdepth) makes the switch send a report to the collector,
// at most one per port every min_gap_us: an egress-to-egress clone of the
// packet as it leaves, to the collector's session, which IntEgress wraps in a
// Telemetry Report v2.0 with Q=1, this switch's node id, the ports, the hop
// latency and the queue id and occupancy (INT-XD style: no INT needed on the
// flow). The limiter keeps, per port, the earliest egress timestamp of the
// next report.

#ifndef __FABRIC_QUEUE_REPORT__
#define __FABRIC_QUEUE_REPORT__

control QueueReport(inout headers_t hdr,
                    inout local_metadata_t meta,
                    inout standard_metadata_t standard_metadata) {

    register<bit<48>>(PORT_COUNT) queue_report_next_us;

    qdepth_t threshold = 0;
    bit<32> gap_us = 0;

    action report_queue_above(bit<32> switch_id, qdepth_t queue_threshold,
                              bit<32> min_gap_us) {
        meta.report_node_id = switch_id;
        threshold = queue_threshold;
        gap_us = min_gap_us;
    }

    action no_queue_report() {
    }

    table queue_report_config {
        key = {
            standard_metadata.egress_port: exact @name("eg_port");
        }
        actions = {
            report_queue_above;
            @defaultonly no_queue_report;
        }
        const default_action = no_queue_report();
        size = PORT_COUNT;
    }

    apply {
        // only data packets that queued consult the table; the queue depth is
        // tested first, so a packet that did not wait pays one comparison
        if (standard_metadata.enq_qdepth == 0
                || standard_metadata.instance_type != PKT_INSTANCE_TYPE_NORMAL
                || meta.fwd.to_cpu == 1 || (!hdr.ipv4.isValid() && !hdr.ipv6.isValid())) {
            return;
        }
        if (queue_report_config.apply().hit && standard_metadata.enq_qdepth >= threshold) {
            bit<32> index = (bit<32>)standard_metadata.egress_port;
            bit<48> now = standard_metadata.egress_global_timestamp;
            bit<48> next;
            queue_report_next_us.read(next, index);
            if (now >= next) {
                queue_report_next_us.write(index, now + (bit<48>)gap_us);
                meta.int_ingress_port = standard_metadata.ingress_port;
                meta.int_egress_port = standard_metadata.egress_port;
                meta.report_latency_ns = (bit<32>)((standard_metadata.egress_global_timestamp
                    - standard_metadata.ingress_global_timestamp) * 1000);
                meta.report_queue_id = (bit<8>)standard_metadata.priority;
                meta.report_queue_depth = (bit<24>)standard_metadata.enq_qdepth;
                meta.clone_kind = CLONE_QUEUE_REPORT;
                clone_preserving_field_list(CloneType.E2E, INT_REPORT_SESSION, FL_CLONE);
            }
        }
    }
}

#endif  // __FABRIC_QUEUE_REPORT__
