// parser.p4 -- FabricParser and FabricDeparser.
//
// The parser goes as deep as any stage needs: L4 ports and the RoCEv2 BTH
// for the flow hash, the INT shim, header and whole metadata stack (so a sink
// can strip it and a transit hop can push in front of it), and the original
// L4 payload behind INT (so the RoCEv2 queue pair is hashed at every hop).
// IPv4 with options or fragments stops at L3: nothing here reads their L4.

#ifndef __FABRIC_PARSER__
#define __FABRIC_PARSER__

parser FabricParser(packet_in pkt,
                    out headers_t hdr,
                    inout local_metadata_t meta,
                    inout standard_metadata_t standard_metadata) {

    state start {
        transition select(standard_metadata.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }

    state parse_packet_out {
        pkt.extract(hdr.packet_out);
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
            UDP_PORT_INT: parse_int_shim;
            default: accept;
        }
    }

    state parse_int_shim {
        pkt.extract(hdr.int_shim);
        transition select(hdr.int_shim.int_type) {
            INT_TYPE_MD: parse_int_md;
            default: accept;
        }
    }

    state parse_int_md {
        pkt.extract(hdr.int_md);
        // the stack is what the shim length says beyond the shim and header
        pkt.extract(hdr.int_stack,
                    ((bit<32>)(hdr.int_shim.len - INT_HEADER_WORDS)) << 5);
        transition select(hdr.int_shim.npt, hdr.int_shim.npt_field) {
            (INT_NPT_UDP_PORT, UDP_PORT_ROCEV2): parse_bth;
            default: accept;
        }
    }

    state parse_bth {
        pkt.extract(hdr.bth);
        transition accept;
    }
}

control FabricDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.report_ethernet);
        pkt.emit(hdr.report_ipv4);
        pkt.emit(hdr.report_udp);
        pkt.emit(hdr.report_group);
        pkt.emit(hdr.report_individual);
        pkt.emit(hdr.report_drop_md);
        pkt.emit(hdr.report_queue_md);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.vlan_tag);
        pkt.emit(hdr.arp);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.ipv6);
        pkt.emit(hdr.tcp);
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
        pkt.emit(hdr.int_stack);
        pkt.emit(hdr.bth);
        pkt.emit(hdr.cnp_payload);
    }
}

#endif  // __FABRIC_PARSER__
