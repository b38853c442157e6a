// fabric.p4 -- the sprayfabric data plane (v1model).
//
// A leaf/spine router for RDMA-style traffic: IPv4/IPv6 routing to next-hop
// groups whose load-balancing mode (ECMP, flowlet, spray, adaptive) the
// controller picks per group at run time; ECN marking; INT-MD telemetry;
// CNP-style congestion notification and packet trimming. This file is only
// the wiring: every stage lives in include/, one control per file, and skips
// itself by metadata flags rather than being nested here.
//
// Profiles: -DWITH_INT, -DWITH_ECN, -DWITH_CONGESTION (CNP and trimming)
// select features; with none of them (and no -DWITH_CORE_ONLY, which builds
// routing and load balancing alone) the full program is built.

#include <core.p4>
#include <v1model.p4>

#if !defined(WITH_INT) && !defined(WITH_ECN) && !defined(WITH_CONGESTION) && !defined(WITH_CORE_ONLY)
#define WITH_INT
#define WITH_ECN
#define WITH_CONGESTION
#endif

#include "include/define.p4"
#include "include/size.p4"
#include "include/headers.p4"
#include "include/queue_state.p4"
#include "include/tx_bytes.p4"
#include "include/parser.p4"
#include "include/checksum.p4"
#include "include/packet_io_ingress.p4"
#include "include/lookup_md_init.p4"
#include "include/hasher.p4"
#include "include/arp_responder.p4"
#include "include/routing.p4"
#include "include/load_balance.p4"
#include "include/ingress_stats.p4"
#include "include/egress_stats.p4"
#include "include/packet_io_egress.p4"
#ifdef WITH_CONGESTION
#include "include/trim.p4"
#include "include/cnp_trigger.p4"
#include "include/cnp_builder.p4"
#endif // WITH_CONGESTION
#ifdef WITH_ECN
#include "include/ecn.p4"
#endif // WITH_ECN
#ifdef WITH_INT
#include "include/int/int_ingress.p4"
#include "include/int/int_egress.p4"
#include "include/int/drop_report.p4"
#include "include/int/queue_report.p4"
#endif // WITH_INT

control FabricIngress(inout headers_t hdr,
                      inout local_metadata_t meta,
                      inout standard_metadata_t standard_metadata) {
    PacketIoIngress() packet_io;
    LookupMdInit() lookup_md_init;
    Hasher() hasher;
    ArpResponder() arp;
    Routing() routing;
    LoadBalance() load_balance;
#ifdef WITH_CONGESTION
    Trim() trim;
    CnpTrigger() cnp_trigger;
#endif // WITH_CONGESTION
#ifdef WITH_INT
    IntIngress() int_ingress;
    DropReport() drop_report;
#endif // WITH_INT
    IngressStats() stats;

    apply {
        packet_io.apply(hdr, meta, standard_metadata);
        lookup_md_init.apply(hdr, meta);
        hasher.apply(meta);
        arp.apply(hdr, meta, standard_metadata);
        routing.apply(hdr, meta, standard_metadata);
        load_balance.apply(hdr, meta, standard_metadata);
#ifdef WITH_CONGESTION
        trim.apply(hdr, meta, standard_metadata);
#endif // WITH_CONGESTION
#ifdef WITH_INT
        int_ingress.apply(hdr, meta, standard_metadata);
#endif // WITH_INT
#ifdef WITH_CONGESTION
        // after INT: when both clone, the CNP (last call) wins
        cnp_trigger.apply(hdr, meta, standard_metadata);
#endif // WITH_CONGESTION
#ifdef WITH_INT
        drop_report.apply(meta, standard_metadata);
#endif // WITH_INT
        stats.apply(meta, standard_metadata);
    }
}

control FabricEgress(inout headers_t hdr,
                     inout local_metadata_t meta,
                     inout standard_metadata_t standard_metadata) {
    EgressStats() stats;
    PacketIoEgress() packet_io;
#ifdef WITH_CONGESTION
    CnpBuilder() cnp_builder;
#endif // WITH_CONGESTION
#ifdef WITH_ECN
    Ecn() ecn;
#endif // WITH_ECN
#ifdef WITH_INT
    IntEgress() int_egress;
    QueueReport() queue_report;
#endif // WITH_INT
    TxBytes() tx_bytes;

    apply {
        stats.apply(meta, standard_metadata);
        packet_io.apply(hdr, meta, standard_metadata);
#ifdef WITH_CONGESTION
        cnp_builder.apply(hdr, meta, standard_metadata);
#endif // WITH_CONGESTION
#ifdef WITH_ECN
        ecn.apply(hdr, meta, standard_metadata);
#endif // WITH_ECN
#ifdef WITH_INT
        int_egress.apply(hdr, meta, standard_metadata);
        queue_report.apply(hdr, meta, standard_metadata);
#endif // WITH_INT
        // last: the packet's bytes as it leaves, after every rewrite above
        tx_bytes.apply(hdr, standard_metadata);
    }
}

V1Switch(FabricParser(),
         FabricVerifyChecksum(),
         FabricIngress(),
         FabricEgress(),
         FabricComputeChecksum(),
         FabricDeparser()) main;
