// int_egress.p4 -- IntEgress on TNA: INT-MD source, transit, sink and report.
//
// v1model's steps, tables (int_ports, int_report) and actions, on what ingress
// bridged or mirrored (meta.int_bridged, int_ingress.p4):
//   source   add the shim and INT-MD header (NPT=1), unless over the port's MTU
//   transit  push this hop's metadata in front of the stack as the bitmap asks
//            (bits 0-8), fix the shim, IP and UDP lengths -- unless the hop
//            budget is spent or the stack would outgrow what a TNA parser
//            takes (INT_TNA_STACK_WORDS: set E), or over the MTU (set M)
//   report   the sink's mirrored copy: Ethernet/IPv4/UDP and Telemetry Report
//            v2.0 headers for the collector, by int_report on the copy's port;
//            a drop or queue report's copy (meta.int_alert: drop_report.p4,
//            queue_report.p4) skips INT and gets the same headers with D=1 or
//            Q=1 and their metadata, keeping at most DROP_REPORT_INNER_BYTES of
//            the packet, as v1model's
//   sink     the packet itself: strip INT, restore the UDP port and lengths
// Hop metadata comes from the Tofino clocks and queues: the latency is
// eg_prsr_md.global_tstamp minus the bridged ingress global_tstamp (both in
// ns, so no scaling as on v1model); the queue is eg_intr_md.egress_qid and
// enq_qdepth (cells, not packets). The report copy did not wait in the data
// port's queue and TNA keeps no per-port depth for it to read, so its queue
// words are 0. The tx utilization word carries HPCC's txBytes as on v1model:
// it is made valid here and filled in by FabricEgress from TxBytes, which runs
// after the lengths are final (tx_bytes.p4).

#ifndef __FABRIC_TNA_INT_EGRESS__
#define __FABRIC_TNA_INT_EGRESS__

control IntEgress(inout headers_t hdr,
                  inout tna_metadata_t meta,
                  in egress_intrinsic_metadata_t eg_intr_md,
                  in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                  inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {

    // one stateful ALU: the report sequence number, read and advanced
    Register<bit<32>, bit<1>>(1) report_seq_no;
    RegisterAction<bit<32>, bit<1>, bit<32>>(report_seq_no) next_seq_no = {
        void apply(inout bit<32> seq, out bit<32> taken) {
            taken = seq;
            seq = seq + 1;
        }
    };

    // ---------------------------------------------------------- per-port INT
    action enable_int(bit<32> switch_id, bit<16> mtu) {
        meta.fab.int_switch_id = switch_id;
        meta.fab.int_mtu = mtu;
    }

    action int_disabled() {
    }

    table int_ports {
        key = {
            meta.int_bridged.egress_port: exact @name("eg_port");
        }
        actions = {
            enable_int;
            @defaultonly int_disabled;
        }
        const default_action = int_disabled();
        size = PORT_COUNT;
    }

    // ---------------------------------------------------------- report
    action encap_report(mac_addr_t src_mac, mac_addr_t dst_mac,
                        ipv4_addr_t src_ip, ipv4_addr_t dst_ip,
                        bit<16> src_port, bit<16> dst_port) {
        hdr.report_ethernet.setValid();
        hdr.report_ethernet.dst_addr = dst_mac;
        hdr.report_ethernet.src_addr = src_mac;
        hdr.report_ethernet.ether_type = ETHERTYPE_IPV4;
        hdr.report_ipv4.setValid();
        hdr.report_ipv4.version = IPV4_VERSION;
        hdr.report_ipv4.ihl = IPV4_IHL_MIN;
        hdr.report_ipv4.dscp = 0;
        hdr.report_ipv4.ecn = 0;
        hdr.report_ipv4.identification = 0;
        hdr.report_ipv4.flags = 0;
        hdr.report_ipv4.frag_offset = 0;
        hdr.report_ipv4.ttl = DEFAULT_TTL;
        hdr.report_ipv4.protocol = IP_PROTO_UDP;
        hdr.report_ipv4.src_addr = src_ip;
        hdr.report_ipv4.dst_addr = dst_ip;
        hdr.report_udp.setValid();
        hdr.report_udp.src_port = src_port;
        hdr.report_udp.dst_port = dst_port;
        hdr.report_udp.checksum = 0;
        hdr.report_group.setValid();
        hdr.report_group.ver = REPORT_VERSION;
        hdr.report_group.hw_id = 0;
        hdr.report_group.node_id = meta.fab.int_switch_id;
        hdr.report_individual.setValid();
        hdr.report_individual.rep_type = REPORT_TYPE_INT;
        hdr.report_individual.in_type = REPORT_IN_TYPE_ETHERNET;
        hdr.report_individual.md_len = 0;
        hdr.report_individual.d = 0;
        hdr.report_individual.q = 0;
        hdr.report_individual.f = 1;
        hdr.report_individual.i = 0;
        hdr.report_individual.rsvd = 0;
        hdr.report_individual.rep_md_bits = 0;
        hdr.report_individual.domain_id = 0;
        hdr.report_individual.ds_md_bits = 0;
        hdr.report_individual.ds_md_status = 0;
    }

    // a drop or queue report: the flags, the metadata's length and bitmap, and
    // the lengths of a report keeping `kept` bytes of the packet after
    // `md_words` words of metadata (v1model's set_alert_report_fields; the
    // session cut the copy to what it keeps)
    @hidden
    action set_alert_report_fields(bit<16> kept, bit<1> d, bit<1> q,
                                   bit<8> md_words, bit<16> md_bits) {
        hdr.report_individual.d = d;
        hdr.report_individual.q = q;
        hdr.report_individual.f = 0;
        hdr.report_individual.md_len = md_words;
        hdr.report_individual.rep_md_bits = md_bits;
        hdr.report_individual.rep_len = REPORT_MAIN_WORDS + md_words
                                      + (bit<8>)((kept + 3) >> 2);
        bit<16> md_bytes = ((bit<16>)md_words) << 2;
        hdr.report_udp.len = UDP_HDR_BYTES + REPORT_HDR_BYTES + md_bytes + kept;
        hdr.report_ipv4.total_len = IPV4_HDR_BYTES + UDP_HDR_BYTES + REPORT_HDR_BYTES
                                  + md_bytes + kept;
    }

    action drop_report() {
        eg_dprsr_md.drop_ctl = 1;
    }

    table int_report {
        key = {
            eg_intr_md.egress_port: exact @name("eg_port");
        }
        actions = {
            encap_report;
            @defaultonly drop_report;
        }
        const default_action = drop_report();
        size = PORT_COUNT;
    }

    // ---------------------------------------------------------- helpers
    @hidden
    action add_ipv4_len(bit<16> bytes) {
        hdr.udp.len = hdr.udp.len + bytes;
        hdr.ipv4.total_len = hdr.ipv4.total_len + bytes;
    }

    @hidden
    action add_ipv6_len(bit<16> bytes) {
        hdr.udp.len = hdr.udp.len + bytes;
        hdr.ipv6.payload_len = hdr.ipv6.payload_len + bytes;
    }

    @hidden
    action insert_int_headers() {
        hdr.int_shim.setValid();
        hdr.int_shim.int_type = INT_TYPE_MD;
        hdr.int_shim.npt = INT_NPT_UDP_PORT;
        hdr.int_shim.rsvd = 0;
        hdr.int_shim.len = INT_HEADER_WORDS;
        hdr.int_shim.npt_field = hdr.udp.dst_port;
        hdr.udp.dst_port = UDP_PORT_INT;
        hdr.int_md.setValid();
        hdr.int_md.ver = INT_VERSION;
        hdr.int_md.d = 0;
        hdr.int_md.e = 0;
        hdr.int_md.m = 0;
        hdr.int_md.rsvd = 0;
        bit<16> ins = meta.int_bridged.instructions;
        // words per hop: bits 0-3, 7, 8 are one word; bits 4-6 are two
        hdr.int_md.hop_ml = (bit<5>)ins[15:15] + (bit<5>)ins[14:14]
                          + (bit<5>)ins[13:13] + (bit<5>)ins[12:12]
                          + ((bit<5>)ins[11:11] << 1) + ((bit<5>)ins[10:10] << 1)
                          + ((bit<5>)ins[9:9] << 1) + (bit<5>)ins[8:8]
                          + (bit<5>)ins[7:7];
        hdr.int_md.remaining_hop_cnt = meta.int_bridged.max_hops;
        hdr.int_md.instructions = ins;
        hdr.int_md.domain_id = 0;
        hdr.int_md.ds_instructions = 0;
        hdr.int_md.ds_flags = 0;
    }

    apply {
        bool is_alert = meta.int_alert.isValid();
        bool is_copy = !is_alert && meta.int_bridged.isValid()
                       && meta.int_bridged.kind == INT_REPORT_KIND;
        if (!is_alert && (!meta.int_bridged.isValid() || !hdr.udp.isValid())) {
            return;
        }
        if (!is_alert && !is_copy && meta.int_bridged.sink == 1) {
            // sink: the mirrored copy carries this hop's metadata; strip INT
            // (a stack longer than the parser took stays: int_parser.p4)
            if (hdr.int_md.isValid() && hdr.int_shim.isValid()
                    && hdr.int_shim.len <= INT_HEADER_WORDS + INT_TNA_STACK_WORDS) {
                bit<16> int_bytes = ((bit<16>)hdr.int_shim.len) << 2;
                hdr.udp.dst_port = hdr.int_shim.npt_field;
                hdr.udp.len = hdr.udp.len - int_bytes;
                if (hdr.ipv4.isValid()) {
                    hdr.ipv4.total_len = hdr.ipv4.total_len - int_bytes;
                } else {
                    hdr.ipv6.payload_len = hdr.ipv6.payload_len - int_bytes;
                }
                hdr.int_shim.setInvalid();
                hdr.int_md.setInvalid();
                meta.int_words.pop_front(INT_TNA_STACK_WORDS);
            }
            return;
        }

        if (!is_alert && int_ports.apply().hit) {
            bit<16> ip_len;
            if (hdr.ipv4.isValid()) {
                ip_len = hdr.ipv4.total_len;
            } else {
                ip_len = IPV6_HDR_BYTES + hdr.ipv6.payload_len;
            }
            // ---------------------------------------------- source
            if (meta.int_bridged.source == 1 && !hdr.int_shim.isValid()
                    && ip_len + INT_HEADER_BYTES <= meta.fab.int_mtu) {
                insert_int_headers();
                if (hdr.ipv4.isValid()) {
                    add_ipv4_len(INT_HEADER_BYTES);
                } else {
                    add_ipv6_len(INT_HEADER_BYTES);
                }
                ip_len = ip_len + INT_HEADER_BYTES;
            }
            // ---------------------------------------------- transit
            if (hdr.int_md.isValid() && hdr.int_shim.isValid()) {
                bit<16> hop_bytes = ((bit<16>)hdr.int_md.hop_ml) << 2;
                bit<8> words_after = hdr.int_shim.len - INT_HEADER_WORDS
                                   + (bit<8>)hdr.int_md.hop_ml;
                if (hdr.int_md.remaining_hop_cnt == 0
                        || words_after > INT_TNA_STACK_WORDS) {
                    hdr.int_md.e = 1;
                } else if (ip_len + hop_bytes > meta.fab.int_mtu) {
                    hdr.int_md.m = 1;
                } else {
                    bit<16> ins = hdr.int_md.instructions;
                    bit<24> occupancy = (bit<24>)eg_intr_md.enq_qdepth;
                    bit<8> q_id = (bit<8>)eg_intr_md.egress_qid;
                    if (is_copy) {
                        occupancy = 0;
                        q_id = 0;
                    }
                    bit<48> now = eg_prsr_md.global_tstamp;
                    bit<48> ingress_ns = meta.int_bridged.ingress_tstamp;
                    if (ins[15:15] == 1) {
                        hdr.int_switch_id.setValid();
                        hdr.int_switch_id.switch_id = meta.fab.int_switch_id;
                    }
                    if (ins[14:14] == 1) {
                        hdr.int_port_ids.setValid();
                        hdr.int_port_ids.ingress_port = (bit<16>)meta.int_bridged.ingress_port;
                        hdr.int_port_ids.egress_port = (bit<16>)meta.int_bridged.egress_port;
                    }
                    if (ins[13:13] == 1) {
                        hdr.int_hop_latency.setValid();
                        hdr.int_hop_latency.hop_latency = (bit<32>)(now - ingress_ns);
                    }
                    if (ins[12:12] == 1) {
                        hdr.int_q_occupancy.setValid();
                        hdr.int_q_occupancy.q_id = q_id;
                        hdr.int_q_occupancy.q_occupancy = occupancy;
                    }
                    if (ins[11:11] == 1) {
                        hdr.int_ingress_tstamp.setValid();
                        hdr.int_ingress_tstamp.ingress_tstamp = (bit<64>)ingress_ns;
                    }
                    if (ins[10:10] == 1) {
                        hdr.int_egress_tstamp.setValid();
                        hdr.int_egress_tstamp.egress_tstamp = (bit<64>)now;
                    }
                    if (ins[9:9] == 1) {
                        hdr.int_l2_port_ids.setValid();
                        hdr.int_l2_port_ids.ingress_port = (bit<32>)meta.int_bridged.ingress_port;
                        hdr.int_l2_port_ids.egress_port = (bit<32>)meta.int_bridged.egress_port;
                    }
                    if (ins[8:8] == 1) {
                        // HPCC's txBytes: FabricEgress fills it in from TxBytes
                        hdr.int_egress_tx_util.setValid();
                        hdr.int_egress_tx_util.tx_util = 0;
                    }
                    if (ins[7:7] == 1) {
                        hdr.int_buffer.setValid();
                        hdr.int_buffer.buffer_id = 0;
                        hdr.int_buffer.buffer_occupancy = occupancy;
                    }
                    hdr.int_md.remaining_hop_cnt = hdr.int_md.remaining_hop_cnt - 1;
                    hdr.int_shim.len = hdr.int_shim.len + (bit<8>)hdr.int_md.hop_ml;
                    if (hdr.ipv4.isValid()) {
                        add_ipv4_len(hop_bytes);
                    } else {
                        add_ipv6_len(hop_bytes);
                    }
                    ip_len = ip_len + hop_bytes;
                }
            }
        }

        // -------------------------------------------------- report
        if (is_copy || is_alert) {
            bit<16> inner_len = ETH_HDR_BYTES;
            if (hdr.ipv4.isValid()) {
                inner_len = inner_len + hdr.ipv4.total_len;
            } else if (hdr.ipv6.isValid()) {
                inner_len = inner_len + IPV6_HDR_BYTES + hdr.ipv6.payload_len;
            } else if (is_alert) {
                // a dropped non-IP packet: the copy's length, less the mirror
                // header (an assumption on pkt_length: docs/tna.md)
                inner_len = eg_intr_md.pkt_length - ALERT_MIRROR_BYTES;
            }
            if (is_alert) {
                meta.fab.int_switch_id = meta.int_alert.node_id;
                if (inner_len > DROP_REPORT_INNER_BYTES) {
                    inner_len = DROP_REPORT_INNER_BYTES;  // what the session kept
                }
            }
            if (int_report.apply().hit) {
                bit<32> seq_no = next_seq_no.execute(0);
                hdr.report_group.seq_no = seq_no[21:0];
                if (!is_alert) {
                    hdr.report_individual.rep_len =
                        REPORT_MAIN_WORDS + (bit<8>)((inner_len + 3) >> 2);
                    hdr.report_udp.len = UDP_HDR_BYTES + REPORT_HDR_BYTES + inner_len;
                    hdr.report_ipv4.total_len =
                        IPV4_HDR_BYTES + UDP_HDR_BYTES + REPORT_HDR_BYTES + inner_len;
                } else if (meta.int_alert.queue == 0) {
                    // the port it came in on and why; no egress port was used
                    set_alert_report_fields(inner_len, 1, 0, REPORT_DROP_MD_WORDS,
                                            REPORT_MD_DROP);
                    hdr.report_drop_md.setValid();
                    hdr.report_drop_md.ingress_port = (bit<16>)meta.int_alert.ingress_port;
                    hdr.report_drop_md.egress_port = (bit<16>)V1MODEL_DROP_PORT;
                    hdr.report_drop_md.queue_id = 0;
                    hdr.report_drop_md.drop_reason = meta.int_alert.drop_reason;
                    hdr.report_drop_md.pad = 0;
                } else {
                    // the ports, latency, queue id and occupancy the packet saw
                    set_alert_report_fields(inner_len, 0, 1, REPORT_QUEUE_MD_WORDS,
                                            REPORT_MD_QUEUE);
                    hdr.report_queue_md.setValid();
                    hdr.report_queue_md.ingress_port = (bit<16>)meta.int_alert.ingress_port;
                    hdr.report_queue_md.egress_port = (bit<16>)meta.int_alert.egress_port;
                    hdr.report_queue_md.hop_latency = meta.int_alert.latency_ns;
                    hdr.report_queue_md.queue_id = meta.int_alert.queue_id;
                    hdr.report_queue_md.queue_occupancy = (bit<24>)meta.int_alert.queue_depth;
                }
            }
        }
    }
}

#endif  // __FABRIC_TNA_INT_EGRESS__
