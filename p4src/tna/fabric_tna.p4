// fabric_tna.p4 -- the sprayfabric data plane for TNA (Tofino 1) and T2NA
// (Tofino 2, -D__TARGET_TOFINO__=2).
//
// Wiring only, as ../fabric.p4: header definitions, constants, sizes and the
// architecture-free controls (LookupMdInit) come from ../include; controls that
// touch intrinsic metadata have a TNA version in include/ with the same table
// and action names, so the controller drives both targets with the same
// intents. What exists on TNA so far and what does not: docs/tna.md.

#include "include/shim.p4"

// Profiles as ../fabric.p4 (-DWITH_INT, -DWITH_ECN, -DWITH_CONGESTION,
// -DWITH_CORE_ONLY): with none given, every feature TNA has is built.
#if !defined(WITH_INT) && !defined(WITH_ECN) && !defined(WITH_CONGESTION) && !defined(WITH_CORE_ONLY)
#define WITH_INT
#define WITH_ECN
#define WITH_CONGESTION
#endif

// Trimming: Tofino 2 cuts in ingress; Tofino 1 drops the packet and mirrors it
// to a truncating session of its port (trim.p4, docs/tna.md)
#if defined(WITH_CONGESTION)
#define TNA_TRIM
#endif

#include "../include/define.p4"
#include "../include/size.p4"
#include "../include/headers.p4"
#include "../include/lookup_md_init.p4"
#include "include/metadata.p4"
#include "include/adaptive.p4"
#include "include/parser.p4"
#include "include/packet_io.p4"
#include "include/hasher.p4"
#include "include/routing.p4"
#include "include/load_balance.p4"
#ifdef WITH_ECN
#include "include/ecn.p4"
#endif // WITH_ECN
#ifdef WITH_CONGESTION
#include "include/cnp.p4"
#endif // WITH_CONGESTION
#ifdef TNA_TRIM
#include "include/trim.p4"
#endif // TNA_TRIM
#ifdef WITH_INT
#include "include/int_ingress.p4"
#include "include/int_egress.p4"
#include "include/drop_report.p4"
#include "include/queue_report.p4"
#include "include/tx_bytes.p4"
#endif // WITH_INT

control FabricIngress(inout headers_t hdr,
                      inout tna_metadata_t meta,
                      in ingress_intrinsic_metadata_t ig_intr_md,
                      in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                      inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                      inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    PacketIoIngress() packet_io;
    LookupMdInit() lookup_md_init;
    Hasher() hasher;
    Routing() routing;
    LoadBalance() load_balance;
#ifdef TNA_TRIM
    Trim() trim;
#endif // TNA_TRIM
#ifdef WITH_INT
    IntIngress() int_ingress;
    DropReport() drop_report;
#endif // WITH_INT

    apply {
        if (meta.depth_report.isValid()) {
            // a recirculated queue-depth report (adaptive.p4): LoadBalance
            // records it, nothing forwards it
            meta.lb.report = 1;
            meta.lb.report_slot = meta.depth_report.adaptive;
            meta.lb.report_port = meta.depth_report.port;
            meta.lb.report_depth = meta.depth_report.depth;
            meta.fab.fwd.group_id = meta.depth_report.group_id;
            meta.fab.lb.member_index = meta.depth_report.member_index;
        } else {
            packet_io.apply(hdr, meta.fab, ig_tm_md);
            lookup_md_init.apply(hdr, meta.fab);
            hasher.apply(meta.fab);
            routing.apply(hdr, meta.fab, ig_tm_md);
        }
        meta.lb.now_us = ig_prsr_md.global_tstamp[41:10];
        load_balance.apply(hdr, meta.fab, meta.lb, ig_tm_md);
#ifdef TNA_TRIM
        trim.apply(hdr, meta.fab, meta.lb, meta.trim_mirror, meta.mirror_session,
                   ig_dprsr_md, ig_tm_md);
#endif // TNA_TRIM
#ifdef WITH_INT
        if (meta.lb.report == 0) {
            int_ingress.apply(hdr, meta, ig_prsr_md, ig_dprsr_md, ig_tm_md);
            // last: a copy of what ingress drops, unless a mirror is taken
            drop_report.apply(meta, ig_prsr_md, ig_dprsr_md);
        }
#endif // WITH_INT
        // a drop reason set by any stage drops the packet in the deparser
        if (meta.fab.fwd.drop_reason != DROP_NONE || meta.lb.report == 1) {
            ig_dprsr_md.drop_ctl = 1;
        }
        meta.bridged.to_cpu = meta.fab.fwd.to_cpu;
        meta.bridged.drop_reason = meta.fab.fwd.drop_reason;
        meta.bridged.group_id = meta.fab.fwd.group_id;
        meta.bridged.member_index = meta.fab.lb.member_index;
        meta.bridged.flow_slot = meta.fab.flow_hash[CNP_INDEX_BITS - 1:0];
        if (meta.lb.mode == LB_MODE_ADAPTIVE && meta.fab.lb.member_found == 1) {
            meta.bridged.adaptive = 1;
        }
    }
}

control FabricEgress(inout headers_t hdr,
                     inout tna_metadata_t meta,
                     in egress_intrinsic_metadata_t eg_intr_md,
                     in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                     inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                     inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    PacketIoEgress() packet_io;
    DepthReport() depth_report;
#ifdef WITH_ECN
    Ecn() ecn;
#endif // WITH_ECN
#ifdef WITH_CONGESTION
    CnpTrigger() cnp_trigger;
    CnpBuilder() cnp_builder;
#endif // WITH_CONGESTION
#ifdef WITH_INT
    IntEgress() int_egress;
    QueueReport() queue_report;
    TxBytes() tx_bytes;
#endif // WITH_INT

    apply {
        if (meta.depth_report.isValid()) {
            // a mirrored depth report on its way to recirculation
#if defined(TNA_TRIM) && __TARGET_TOFINO__ != 2
        } else if (meta.trim_mirror.isValid()) {
            // a trimmed copy (Tofino 1), cut by its session
#endif
#ifdef WITH_CONGESTION
        } else if (meta.cnp_mirror.isValid()) {
            cnp_builder.apply(hdr, meta, eg_dprsr_md);  // a mirrored copy becoming a CNP
#endif // WITH_CONGESTION
#ifdef WITH_INT
        } else if (meta.int_alert.isValid()
                   || (meta.int_bridged.isValid() && meta.int_bridged.kind == INT_REPORT_KIND)) {
            // a drop or queue report's copy, or the INT sink's, becoming a report
            int_egress.apply(hdr, meta, eg_intr_md, eg_prsr_md, eg_dprsr_md);
#endif // WITH_INT
        } else {
            packet_io.apply(hdr, meta.bridged, eg_intr_md);
            depth_report.apply(meta, eg_intr_md, eg_prsr_md, eg_dprsr_md);
#ifdef WITH_ECN
            ecn.apply(hdr, meta.bridged, eg_intr_md);
#endif // WITH_ECN
#ifdef WITH_CONGESTION
            // after ECN and the depth report: the mirror header is the CNP's when both ask
            cnp_trigger.apply(hdr, meta, eg_intr_md, eg_prsr_md, eg_dprsr_md);
#endif // WITH_CONGESTION
#ifdef WITH_INT
            // as in v1model: CNP and ECN see the packet before INT grows it
            int_egress.apply(hdr, meta, eg_intr_md, eg_prsr_md, eg_dprsr_md);
            // after INT, which a data packet it marks must not look like a copy to
            queue_report.apply(hdr, meta, eg_intr_md, eg_prsr_md, eg_dprsr_md);
#endif // WITH_INT
        }
#ifdef WITH_INT
        // last: the packet's bytes as it leaves, after every rewrite above; this
        // hop's INT tx word gets the port's count before them
        tx_bytes.apply(hdr, meta, eg_intr_md, eg_dprsr_md);
        if (hdr.int_egress_tx_util.isValid()) {
            hdr.int_egress_tx_util.tx_util = meta.alert.tx_sent;
        }
#endif // WITH_INT
    }
}

Pipeline(FabricIngressParser(),
         FabricIngress(),
         FabricIngressDeparser(),
         FabricEgressParser(),
         FabricEgress(),
         FabricEgressDeparser()) pipe;

Switch(pipe) main;
