// queue_report.p4 -- QueueReport on TNA: postcards from congested queues.
//
// v1model's queue_report_config table (key `eg_port`, actions
// report_queue_above and no_queue_report, same parameters). A data packet
// (IPv4 or IPv6, not to the CPU) that joined its egress queue at a depth of at
// least queue_threshold (enq_qdepth: cells on Tofino, packets on v1model) is
// E2E-mirrored, at most once per port every min_gap_us, with an int_alert_h
// {Q, ports, queue id, depth, latency, node id} to INT_ALERT_SESSION_TNA; the
// copy is the packet as it leaves, and egress wraps it in the Telemetry Report
// v2.0 with Q=1 that v1model sends (int_egress.p4).
//
// The rate limit is drop_report.p4's, per egress port. The hop latency is the
// time the packet spent in the queue (deq_timedelta, ns): the ingress
// timestamp is not bridged for every packet, so v1model's ingress-to-egress
// time is not known here. Egress mirrors one copy per packet: a CNP
// (cnp.p4) wins over a queue report, which wins over a depth report
// (adaptive.p4); the limiter is not consulted when a CNP was taken.

#ifndef __FABRIC_TNA_QUEUE_REPORT__
#define __FABRIC_TNA_QUEUE_REPORT__

control QueueReport(inout headers_t hdr,
                    inout tna_metadata_t meta,
                    in egress_intrinsic_metadata_t eg_intr_md,
                    in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                    inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {

    // last report time per port
    Register<bit<32>, port_num_t>(PORT_COUNT, 0) queue_report_last;

    RegisterAction<bit<32>, port_num_t, bit<1>>(queue_report_last) queue_report_due = {
        void apply(inout bit<32> value, out bit<1> due) {
            due = 0;
            if (meta.alert.now_us - value >= meta.alert.gap_us) {
                value = meta.alert.now_us;
                due = 1;
            }
        }
    };

    qdepth_t threshold = 0;
    bit<32> node_id = 0;

    action report_queue_above(bit<32> switch_id, qdepth_t queue_threshold,
                              bit<32> min_gap_us) {
        node_id = switch_id;
        threshold = queue_threshold;
        meta.alert.gap_us = min_gap_us;
    }

    action no_queue_report() {
    }

    table queue_report_config {
        key = {
            eg_intr_md.egress_port: exact @name("eg_port");
        }
        actions = {
            report_queue_above;
            @defaultonly no_queue_report;
        }
        const default_action = no_queue_report();
        size = PORT_COUNT;
    }

    apply {
        // as v1model: the depth is tested first, so a packet that did not wait
        // pays one comparison
        if (eg_intr_md.enq_qdepth == 0 || !meta.bridged.isValid()
                || meta.bridged.to_cpu == 1 || (!hdr.ipv4.isValid() && !hdr.ipv6.isValid())) {
            return;
        }
        if (eg_dprsr_md.mirror_type == MIRROR_TYPE_CNP) {
            return;  // one mirror per packet: the CNP's
        }
        if (!queue_report_config.apply().hit || eg_intr_md.enq_qdepth < threshold) {
            return;
        }
        meta.alert.now_us = eg_prsr_md.global_tstamp[41:10];
        if (queue_report_due.execute(eg_intr_md.egress_port) == 1) {
            meta.int_alert.setValid();
            meta.int_alert.kind = ALERT_KIND;
            meta.int_alert._pad0 = 0;
            meta.int_alert.queue = 1;
            meta.int_alert._pad1 = 0;
            meta.int_alert.ingress_port = meta.bridged.ingress_port;
            meta.int_alert._pad2 = 0;
            meta.int_alert.egress_port = eg_intr_md.egress_port;
            meta.int_alert.drop_reason = DROP_NONE;
            meta.int_alert.queue_id = (bit<8>)eg_intr_md.egress_qid;
            meta.int_alert._pad3 = 0;
            meta.int_alert.queue_depth = eg_intr_md.enq_qdepth;
            meta.int_alert.latency_ns = (bit<32>)eg_intr_md.deq_timedelta;
            meta.int_alert.node_id = node_id;
            eg_dprsr_md.mirror_type = MIRROR_TYPE_QUEUE_REPORT;
        }
    }
}

#endif  // __FABRIC_TNA_QUEUE_REPORT__
