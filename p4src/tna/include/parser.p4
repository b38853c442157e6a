// parser.p4 -- TNA parsers and deparsers.
//
// Ingress: TNA's intrinsic metadata and port metadata come first (the
// architecture's tofino_parser-style prologue, written out here), then the same
// header graph as the v1model parser; on DEPTH_REPORT_PORT only a recirculated
// depth report (adaptive.p4). Egress tells what it got by the first byte: the
// bridged header of a forwarded packet, or the mirror header of a depth report
// or a CNP copy (cnp.p4); then it re-parses Ethernet, IP, UDP and the BTH. The
// egress deparser issues the two mirrors. With WITH_INT both parse INT behind
// UDP_PORT_INT (int_parser.p4: a fixed stack, no varbit on Tofino), egress
// also the INT state ingress bridged or mirrored (int_bridged_h), and the
// ingress deparser issues the INT sink's report mirror. A drop or queue
// report's copy (int_alert_h) and a Tofino 1 trimmed copy are parsed up to IP
// only: their sessions cut them, and only the IP lengths are read.

#ifndef __FABRIC_TNA_PARSER__
#define __FABRIC_TNA_PARSER__

parser FabricIngressParser(packet_in pkt,
                           out headers_t hdr,
                           out tna_metadata_t meta,
                           out ingress_intrinsic_metadata_t ig_intr_md) {
#ifdef WITH_INT
    ParserCounter() int_words_left;
#endif // WITH_INT

    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        meta.fab = (local_metadata_t){ ... };
        meta.lb = (tna_lb_metadata_t){ ... };
        meta.cnp = (tna_cnp_metadata_t){ ... };
        meta.alert = (tna_alert_metadata_t){ ... };
        meta.mirror_session = 0;
        meta.bridged.setValid();
        meta.bridged.kind = BRIDGED_KIND;
        meta.bridged._pad0 = 0;
        meta.bridged.has_int = 0;
        meta.bridged._pad1 = 0;
        meta.bridged.ingress_port = ig_intr_md.ingress_port;
        meta.bridged.adaptive = 0;
        meta.bridged.to_cpu = 0;
        meta.bridged.drop_reason = DROP_NONE;
        meta.bridged.group_id = 0;
        meta.bridged.member_index = 0;
        meta.bridged._pad2 = 0;
        meta.bridged.flow_slot = 0;
        meta.fab.fwd.from_cpu = 0;
        meta.fab.fwd.to_cpu = 0;
        meta.fab.fwd.routed = 0;
        meta.fab.fwd.group_id = 0;
        meta.fab.fwd.drop_reason = DROP_NONE;
        meta.fab.lookup.ip_src = 0;
        meta.fab.lookup.ip_dst = 0;
        meta.fab.lookup.ip_proto = 0;
        meta.fab.lookup.l4_sport = 0;
        meta.fab.lookup.l4_dport = 0;
        meta.fab.lookup.roce_qp = 0;
        meta.fab.lb.member_index = 0;
        meta.fab.lb.member_found = 0;
        transition select(ig_intr_md.ingress_port) {
            CPU_PORT: parse_packet_out;
            DEPTH_REPORT_PORT: parse_depth_report;
            default: parse_ethernet;
        }
    }

    state parse_depth_report {
        pkt.extract(meta.depth_report);
        transition accept;
    }

    state parse_packet_out {
        pkt.extract(hdr.packet_out);
        meta.fab.fwd.from_cpu = 1;
        transition parse_ethernet;
    }

    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_VLAN: parse_vlan_tag;
            ETHERTYPE_ARP: parse_arp;
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }

    state parse_vlan_tag {
        pkt.extract(hdr.vlan_tag);
        transition select(hdr.vlan_tag.ether_type) {
            ETHERTYPE_ARP: parse_arp;
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }

    state parse_arp {
        pkt.extract(hdr.arp);
        transition accept;
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (IPV4_IHL_MIN, 0, IP_PROTO_TCP): parse_tcp;
            (IPV4_IHL_MIN, 0, IP_PROTO_UDP): parse_udp;
            default: accept;
        }
    }

    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition select(hdr.ipv6.next_hdr) {
            IP_PROTO_TCP: parse_tcp;
            IP_PROTO_UDP: parse_udp;
            default: accept;
        }
    }

    state parse_tcp {
        pkt.extract(hdr.tcp);
        transition accept;
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            UDP_PORT_ROCEV2: parse_bth;
#ifdef WITH_INT
            UDP_PORT_INT: parse_int;
#endif // WITH_INT
            default: accept;
        }
    }

#ifdef WITH_INT
#include "int_parser.p4"
#endif // WITH_INT

    state parse_bth {
        pkt.extract(hdr.bth);
        transition accept;
    }
}

control FabricIngressDeparser(packet_out pkt,
                              inout headers_t hdr,
                              in tna_metadata_t meta,
                              in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
#ifdef WITH_INT
    Mirror(MIRROR_TYPE_INT_REPORT) int_mirror;
    Mirror(MIRROR_TYPE_DROP_REPORT) drop_mirror;
#endif // WITH_INT
#if defined(TNA_TRIM) && __TARGET_TOFINO__ != 2
    Mirror(MIRROR_TYPE_TRIM) trim_mirror;
#endif

    apply {
#if defined(TNA_TRIM) && __TARGET_TOFINO__ != 2
        if (ig_dprsr_md.mirror_type == MIRROR_TYPE_TRIM) {
            trim_mirror.emit(meta.mirror_session, meta.trim_mirror);
        }
#endif
#ifdef WITH_INT
        if (ig_dprsr_md.mirror_type == MIRROR_TYPE_INT_REPORT) {
            int_mirror.emit((MirrorId_t)INT_REPORT_SESSION, meta.int_mirror);
        }
        if (ig_dprsr_md.mirror_type == MIRROR_TYPE_DROP_REPORT) {
            drop_mirror.emit(INT_ALERT_SESSION_TNA, meta.int_alert);
        }
#endif // WITH_INT
        pkt.emit(meta.bridged);
        pkt.emit(meta.int_bridged);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.vlan_tag);
        pkt.emit(hdr.arp);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.ipv6);
        pkt.emit(hdr.tcp);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.int_shim);
        pkt.emit(hdr.int_md);
        pkt.emit(meta.int_words);
        pkt.emit(hdr.bth);
    }
}

parser FabricEgressParser(packet_in pkt,
                          out headers_t hdr,
                          out tna_metadata_t meta,
                          out egress_intrinsic_metadata_t eg_intr_md) {
#ifdef WITH_INT
    ParserCounter() int_words_left;
#endif // WITH_INT

    state start {
        pkt.extract(eg_intr_md);
        meta.fab = (local_metadata_t){ ... };
        meta.lb = (tna_lb_metadata_t){ ... };
        meta.cnp = (tna_cnp_metadata_t){ ... };
        meta.alert = (tna_alert_metadata_t){ ... };
        meta.mirror_session = 0;
        transition select(pkt.lookahead<bit<8>>()) {
            DEPTH_REPORT_KIND: parse_depth_report;
            CNP_KIND: parse_cnp_mirror;
#ifdef WITH_INT
            INT_REPORT_KIND: parse_int_bridged;
            ALERT_KIND: parse_int_alert;
#endif // WITH_INT
#if defined(TNA_TRIM) && __TARGET_TOFINO__ != 2
            TRIM_KIND: parse_trim_mirror;
#endif
            default: parse_bridged;
        }
    }

    // a mirrored CNP copy: CnpBuilder rebuilds its headers (cnp.p4)
    state parse_cnp_mirror {
        pkt.extract(meta.cnp_mirror);
        transition parse_ethernet;
    }

    // a mirrored depth report: the copy is sent as it is (adaptive.p4)
    state parse_depth_report {
        pkt.extract(meta.depth_report);
        transition accept;
    }

#if defined(TNA_TRIM) && __TARGET_TOFINO__ != 2
    // a packet trimmed on Tofino 1: the rest goes out as the session cut it
    state parse_trim_mirror {
        pkt.extract(meta.trim_mirror);
        transition parse_copy_ethernet;
    }
#endif

#if (defined(TNA_TRIM) && __TARGET_TOFINO__ != 2) || defined(WITH_INT)
    // a cut copy (a Tofino 1 trimmed packet, a drop or queue report): L2 and
    // IP only, whose lengths TxBytes and the report read; nothing beyond, which
    // the session's cut may have taken
    state parse_copy_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_copy_ipv4;
            ETHERTYPE_IPV6: parse_copy_ipv6;
            default: accept;
        }
    }

    state parse_copy_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }

    state parse_copy_ipv6 {
        pkt.extract(hdr.ipv6);
        transition accept;
    }
#endif

    state parse_bridged {
        pkt.extract(meta.bridged);
#ifdef WITH_INT
        transition select(meta.bridged.has_int) {
            1: parse_int_bridged;
            default: parse_ethernet;
        }
#else
        transition parse_ethernet;
#endif // WITH_INT
    }

#ifdef WITH_INT
    // behind the bridged header, or the INT sink's report copy (int_ingress.p4)
    state parse_int_bridged {
        pkt.extract(meta.int_bridged);
        transition parse_ethernet;
    }

    // a drop or queue report's copy (drop_report.p4, queue_report.p4)
    state parse_int_alert {
        pkt.extract(meta.int_alert);
        transition parse_copy_ethernet;
    }
#endif // WITH_INT

    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (IPV4_IHL_MIN, 0, IP_PROTO_UDP): parse_udp;
            default: accept;
        }
    }

    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition select(hdr.ipv6.next_hdr) {
            IP_PROTO_UDP: parse_udp;
            default: accept;
        }
    }

    // UDP and the BTH: CnpTrigger and CnpBuilder read them
    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            UDP_PORT_ROCEV2: parse_bth;
#ifdef WITH_INT
            UDP_PORT_INT: parse_int;
#endif // WITH_INT
            default: accept;
        }
    }

#ifdef WITH_INT
#include "int_parser.p4"
#endif // WITH_INT

    state parse_bth {
        pkt.extract(hdr.bth);
        transition accept;
    }
}

control FabricEgressDeparser(packet_out pkt,
                             inout headers_t hdr,
                             in tna_metadata_t meta,
                             in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    Checksum() ipv4_checksum;
#ifdef WITH_INT
    Checksum() report_ipv4_checksum;
#endif // WITH_INT
    Mirror(MIRROR_TYPE_DEPTH_REPORT) depth_mirror;
#ifdef WITH_CONGESTION
    Mirror(MIRROR_TYPE_CNP) cnp_mirror;
#endif // WITH_CONGESTION
#ifdef WITH_INT
    Mirror(MIRROR_TYPE_QUEUE_REPORT) queue_mirror;
#endif // WITH_INT

    apply {
        if (eg_dprsr_md.mirror_type == MIRROR_TYPE_DEPTH_REPORT) {
            depth_mirror.emit(DEPTH_REPORT_SESSION, meta.depth_mirror);
        }
#ifdef WITH_CONGESTION
        if (eg_dprsr_md.mirror_type == MIRROR_TYPE_CNP) {
            cnp_mirror.emit(meta.mirror_session, meta.cnp_mirror);
        }
#endif // WITH_CONGESTION
#ifdef WITH_INT
        if (eg_dprsr_md.mirror_type == MIRROR_TYPE_QUEUE_REPORT) {
            queue_mirror.emit(INT_ALERT_SESSION_TNA, meta.int_alert);
        }
#endif // WITH_INT
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.hdr_checksum = ipv4_checksum.update({
                hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn,
                hdr.ipv4.total_len, hdr.ipv4.identification, hdr.ipv4.flags,
                hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol,
                hdr.ipv4.src_addr, hdr.ipv4.dst_addr });
        }
#ifdef WITH_INT
        if (hdr.report_ipv4.isValid()) {
            hdr.report_ipv4.hdr_checksum = report_ipv4_checksum.update({
                hdr.report_ipv4.version, hdr.report_ipv4.ihl, hdr.report_ipv4.dscp,
                hdr.report_ipv4.ecn, hdr.report_ipv4.total_len,
                hdr.report_ipv4.identification, hdr.report_ipv4.flags,
                hdr.report_ipv4.frag_offset, hdr.report_ipv4.ttl,
                hdr.report_ipv4.protocol, hdr.report_ipv4.src_addr,
                hdr.report_ipv4.dst_addr });
        }
#endif // WITH_INT
        pkt.emit(meta.depth_report);
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.report_ethernet);
        pkt.emit(hdr.report_ipv4);
        pkt.emit(hdr.report_udp);
        pkt.emit(hdr.report_group);
        pkt.emit(hdr.report_individual);
        pkt.emit(hdr.report_drop_md);
        pkt.emit(hdr.report_queue_md);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.ipv6);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.int_shim);
        pkt.emit(hdr.int_md);
        // this hop's metadata goes in front of the earlier hops' stack
        pkt.emit(hdr.int_switch_id);
        pkt.emit(hdr.int_port_ids);
        pkt.emit(hdr.int_hop_latency);
        pkt.emit(hdr.int_q_occupancy);
        pkt.emit(hdr.int_ingress_tstamp);
        pkt.emit(hdr.int_egress_tstamp);
        pkt.emit(hdr.int_l2_port_ids);
        pkt.emit(hdr.int_egress_tx_util);
        pkt.emit(hdr.int_buffer);
        pkt.emit(meta.int_words);
        pkt.emit(hdr.bth);
        pkt.emit(hdr.cnp_payload);
    }
}

#endif  // __FABRIC_TNA_PARSER__
