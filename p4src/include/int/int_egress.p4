// int/int_egress.p4 -- IntEgress: INT-MD source, transit, sink and report.
//
// In pipeline order, for a UDP packet on a port with an int_ports entry:
//   source   (watchlisted flow, no INT yet): add the shim (NPT=1: the UDP
//            destination port becomes UDP_PORT_INT, the original is kept in
//            the shim) and the INT-MD header with the hop budget and bitmap;
//            skipped if the 16 bytes would exceed the port's MTU
//   transit  push this hop's metadata in front of the stack, as the bitmap
//            asks (bits 0-8; others are not supported and add nothing), and
//            fix the shim, IP and UDP lengths -- unless the hop budget is
//            spent (set E) or the result would exceed the MTU (set M)
//   report   (the sink's clone): wrap the packet in Ethernet/IPv4/UDP and
//            Telemetry Report v2.0 headers for the collector
//   sink     (the packet itself at the sink): strip INT, restore the UDP
//            port and lengths -- the host gets the packet the sender sent
// The UDP checksum is never touched: INT changes nothing that the sink does
// not restore, so it is valid again when the packet leaves the INT domain.
// Timestamps and latencies are in nanoseconds (v1model clocks are in
// microseconds, scaled by 1000: a whole number of microseconds).
// The tx utilization word carries HPCC's txBytes instead: the bytes the egress
// port had transmitted before this packet, modulo 2^32 (tx_bytes.p4).

#ifndef __FABRIC_INT_EGRESS__
#define __FABRIC_INT_EGRESS__

control IntEgress(inout headers_t hdr,
                  inout local_metadata_t meta,
                  inout standard_metadata_t standard_metadata) {

    register<bit<32>>(1) report_seq_no;

    // ---------------------------------------------------------- per-port INT
    action enable_int(bit<32> switch_id, bit<16> mtu) {
        meta.int_switch_id = switch_id;
        meta.int_mtu = mtu;
    }

    action int_disabled() {
    }

    table int_ports {
        key = {
            meta.int_egress_port: exact @name("eg_port");
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
        hdr.report_group.node_id = meta.int_switch_id;
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

    action drop_report() {
        mark_to_drop(standard_metadata);
    }

    table int_report {
        key = {
            standard_metadata.egress_port: exact @name("eg_port");
        }
        actions = {
            encap_report;
            @defaultonly drop_report;
        }
        const default_action = drop_report();
        size = PORT_COUNT;
    }

    // ---------------------------------------------------------- alert reports
    // a drop report (D=1: the clone of a packet ingress dropped, drop_report.p4)
    // or a queue report (Q=1: the clone of a packet that left a congested queue,
    // queue_report.p4): the sequence number, the flags, the metadata's length
    // and bitmap, and the lengths and truncation to `kept` bytes of the inner
    // packet after `md_words` words of metadata (the caller fills them in)
    @hidden
    action set_alert_report_fields(bit<16> kept, bit<1> d, bit<1> q,
                                   bit<8> md_words, bit<16> md_bits) {
        bit<32> seq_no;
        report_seq_no.read(seq_no, 0);
        report_seq_no.write(0, seq_no + 1);
        hdr.report_group.seq_no = seq_no[21:0];
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
        truncate((bit<32>)(ETH_HDR_BYTES + IPV4_HDR_BYTES + UDP_HDR_BYTES
                           + REPORT_HDR_BYTES + md_bytes + kept));
    }

    // ---------------------------------------------------------- helpers
    // the UDP length and the length field of the IP header the packet has grow by
    // `bytes` (an action per IP version: none writes into a header that is not there)
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
        bit<16> ins = meta.int_instructions;
        // words per hop: bits 0-3, 7, 8 are one word; bits 4-6 are two
        hdr.int_md.hop_ml = (bit<5>)ins[15:15] + (bit<5>)ins[14:14]
                          + (bit<5>)ins[13:13] + (bit<5>)ins[12:12]
                          + ((bit<5>)ins[11:11] << 1) + ((bit<5>)ins[10:10] << 1)
                          + ((bit<5>)ins[9:9] << 1) + (bit<5>)ins[8:8]
                          + (bit<5>)ins[7:7];
        hdr.int_md.remaining_hop_cnt = meta.int_max_hops;
        hdr.int_md.instructions = ins;
        hdr.int_md.domain_id = 0;
        hdr.int_md.ds_instructions = 0;
        hdr.int_md.ds_flags = 0;
    }

    apply {
        // locals first, initialised: p4c checks each use against every path, returns
        // included
        bool is_clone = standard_metadata.instance_type == PKT_INSTANCE_TYPE_INGRESS_CLONE;
        // a drop or queue report (an I2E or E2E clone) skips INT processing and goes
        // straight to the report; only clones set it, data packets only test it
        bool is_alert = false;
        if (meta.fwd.to_cpu == 1) {
            return;
        }
        if (standard_metadata.instance_type != PKT_INSTANCE_TYPE_NORMAL) {
            is_alert = (is_clone && meta.clone_kind == CLONE_DROP_REPORT)
                       || (standard_metadata.instance_type == PKT_INSTANCE_TYPE_EGRESS_CLONE
                           && meta.clone_kind == CLONE_QUEUE_REPORT);
            if (is_clone && meta.clone_kind != CLONE_INT_REPORT && !is_alert) {
                return;
            }
        }
        if (!is_alert && (meta.congestion.trimmed == 1 || !hdr.udp.isValid())) {
            return;
        }
        if (!is_alert && !is_clone && meta.int_sink == 1) {
            // sink: the report clone carries this hop's metadata; strip INT
            if (hdr.int_md.isValid() && hdr.int_shim.isValid()) {
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
                hdr.int_stack.setInvalid();
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
            if (meta.int_source == 1 && !hdr.int_shim.isValid()
                    && ip_len + INT_HEADER_BYTES <= meta.int_mtu) {
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
                if (hdr.int_md.remaining_hop_cnt == 0) {
                    hdr.int_md.e = 1;
                } else if (ip_len + hop_bytes > meta.int_mtu) {
                    hdr.int_md.m = 1;
                } else {
                    bit<16> ins = hdr.int_md.instructions;
                    bit<24> occupancy = (bit<24>)standard_metadata.enq_qdepth;
                    bit<8> q_id = (bit<8>)standard_metadata.priority;
                    if (is_clone) {
                        // the clone did not wait in the data port's queue
                        bit<32> depth;
                        port_queue_depth.read(depth, (bit<32>)meta.int_egress_port);
                        occupancy = (bit<24>)depth;
                        q_id = 0;
                    }
                    bit<48> latency_us = standard_metadata.egress_global_timestamp
                                       - meta.int_ingress_tstamp;
                    if (ins[15:15] == 1) {
                        hdr.int_switch_id.setValid();
                        hdr.int_switch_id.switch_id = meta.int_switch_id;
                    }
                    if (ins[14:14] == 1) {
                        hdr.int_port_ids.setValid();
                        hdr.int_port_ids.ingress_port = (bit<16>)meta.int_ingress_port;
                        hdr.int_port_ids.egress_port = (bit<16>)meta.int_egress_port;
                    }
                    if (ins[13:13] == 1) {
                        hdr.int_hop_latency.setValid();
                        hdr.int_hop_latency.hop_latency = (bit<32>)(latency_us * 1000);
                    }
                    if (ins[12:12] == 1) {
                        hdr.int_q_occupancy.setValid();
                        hdr.int_q_occupancy.q_id = q_id;
                        hdr.int_q_occupancy.q_occupancy = occupancy;
                    }
                    if (ins[11:11] == 1) {
                        hdr.int_ingress_tstamp.setValid();
                        hdr.int_ingress_tstamp.ingress_tstamp =
                            (bit<64>)meta.int_ingress_tstamp * 1000;
                    }
                    if (ins[10:10] == 1) {
                        hdr.int_egress_tstamp.setValid();
                        hdr.int_egress_tstamp.egress_tstamp =
                            (bit<64>)standard_metadata.egress_global_timestamp * 1000;
                    }
                    if (ins[9:9] == 1) {
                        hdr.int_l2_port_ids.setValid();
                        hdr.int_l2_port_ids.ingress_port = (bit<32>)meta.int_ingress_port;
                        hdr.int_l2_port_ids.egress_port = (bit<32>)meta.int_egress_port;
                    }
                    if (ins[8:8] == 1) {
                        // HPCC's txBytes, not a utilisation (tx_bytes.p4): the bytes
                        // the data port had sent before this packet, mod 2^32 (the
                        // report clone reads the data port's count too)
                        bit<32> sent;
                        port_tx_bytes.read(sent, (bit<32>)meta.int_egress_port);
                        hdr.int_egress_tx_util.setValid();
                        hdr.int_egress_tx_util.tx_util = sent;
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
        if (is_clone || is_alert) {
            bit<16> inner_len = ETH_HDR_BYTES;
            if (is_alert) {
                meta.int_switch_id = meta.report_node_id;
            }
            if (is_alert && meta.clone_kind == CLONE_DROP_REPORT) {
                // the packet as received
                inner_len = (bit<16>)standard_metadata.packet_length;
            } else {
                if (hdr.vlan_tag.isValid()) {
                    inner_len = inner_len + VLAN_HDR_BYTES;
                }
                if (hdr.ipv4.isValid()) {
                    inner_len = inner_len + hdr.ipv4.total_len;
                } else {
                    inner_len = inner_len + IPV6_HDR_BYTES + hdr.ipv6.payload_len;
                }
            }
            if (is_alert && inner_len > DROP_REPORT_INNER_BYTES) {
                // cut to what an alert keeps
                inner_len = DROP_REPORT_INNER_BYTES;
            }
            if (int_report.apply().hit) {
                if (!is_alert) {
                    bit<32> seq_no;
                    report_seq_no.read(seq_no, 0);
                    report_seq_no.write(0, seq_no + 1);
                    hdr.report_group.seq_no = seq_no[21:0];
                    hdr.report_individual.rep_len =
                        REPORT_MAIN_WORDS + (bit<8>)((inner_len + 3) >> 2);
                    hdr.report_udp.len = UDP_HDR_BYTES + REPORT_HDR_BYTES + inner_len;
                    hdr.report_ipv4.total_len =
                        IPV4_HDR_BYTES + UDP_HDR_BYTES + REPORT_HDR_BYTES + inner_len;
                } else if (meta.clone_kind == CLONE_DROP_REPORT) {
                    // the port it came in on and why; the egress port is
                    // V1MODEL_DROP_PORT (none was used)
                    set_alert_report_fields(inner_len, 1, 0, REPORT_DROP_MD_WORDS,
                                            REPORT_MD_DROP);
                    hdr.report_drop_md.setValid();
                    hdr.report_drop_md.ingress_port = (bit<16>)meta.int_ingress_port;
                    hdr.report_drop_md.egress_port = (bit<16>)V1MODEL_DROP_PORT;
                    hdr.report_drop_md.queue_id = 0;
                    hdr.report_drop_md.drop_reason = meta.report_drop_reason;
                    hdr.report_drop_md.pad = 0;
                } else {
                    // the ports, hop latency, queue id and occupancy the packet saw
                    set_alert_report_fields(inner_len, 0, 1, REPORT_QUEUE_MD_WORDS,
                                            REPORT_MD_QUEUE);
                    hdr.report_queue_md.setValid();
                    hdr.report_queue_md.ingress_port = (bit<16>)meta.int_ingress_port;
                    hdr.report_queue_md.egress_port = (bit<16>)meta.int_egress_port;
                    hdr.report_queue_md.hop_latency = meta.report_latency_ns;
                    hdr.report_queue_md.queue_id = meta.report_queue_id;
                    hdr.report_queue_md.queue_occupancy = meta.report_queue_depth;
                }
            }
        }
    }
}

#endif  // __FABRIC_INT_EGRESS__
