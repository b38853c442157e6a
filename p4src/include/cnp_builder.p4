// cnp_builder.p4 -- CnpBuilder: turn a CNP clone into a RoCEv2 CNP.
//
// The clone (see cnp_trigger.p4) is the data packet as it arrived, leaving by
// the port it came in on. It becomes a CNP addressed to the data packet's
// sender: MAC and IP addresses swapped, TTL reset, the configured DSCP, no
// ECN, UDP to 4791, BTH opcode CNP (0x81) with BECN set, the data packet's
// destination QP and P_Key, then 16 reserved bytes and the ICRC (left zero:
// the ICRC is end-host business) -- everything behind is cut. INT headers, if
// the data packet had any, are dropped.

#ifndef __FABRIC_CNP_BUILDER__
#define __FABRIC_CNP_BUILDER__

control CnpBuilder(inout headers_t hdr,
                   inout local_metadata_t meta,
                   inout standard_metadata_t standard_metadata) {

    @hidden
    action build_cnp_common() {
        mac_addr_t mac = hdr.ethernet.src_addr;
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = mac;
        hdr.udp.dst_port = UDP_PORT_ROCEV2;
        hdr.udp.len = UDP_HDR_BYTES + BTH_HDR_BYTES + CNP_PAYLOAD_BYTES;
        hdr.udp.checksum = 0;
        hdr.int_shim.setInvalid();
        hdr.int_md.setInvalid();
        hdr.int_stack.setInvalid();
        hdr.bth.opcode = BTH_OPCODE_CNP;
        hdr.bth.solicited_event = 0;
        hdr.bth.mig_req = 0;
        hdr.bth.pad_count = 0;
        hdr.bth.tver = 0;
        hdr.bth.fecn = 0;
        hdr.bth.becn = 1;
        hdr.bth.resv6 = 0;
        hdr.bth.ack_req = 0;
        hdr.bth.resv7 = 0;
        hdr.bth.psn = 0;
        hdr.cnp_payload.setValid();
        hdr.cnp_payload.reserved = 0;
        hdr.cnp_payload.icrc = 0;
    }

    @hidden
    action build_cnp_ipv4() {
        ipv4_addr_t ip = hdr.ipv4.src_addr;
        hdr.ipv4.src_addr = hdr.ipv4.dst_addr;
        hdr.ipv4.dst_addr = ip;
        hdr.ipv4.dscp = meta.cnp_dscp;
        hdr.ipv4.ecn = ECN_NOT_ECT;
        hdr.ipv4.total_len = IPV4_HDR_BYTES + UDP_HDR_BYTES + BTH_HDR_BYTES + CNP_PAYLOAD_BYTES;
        hdr.ipv4.ttl = DEFAULT_TTL;
    }

    @hidden
    action build_cnp_ipv6() {
        ipv6_addr_t ip = hdr.ipv6.src_addr;
        hdr.ipv6.src_addr = hdr.ipv6.dst_addr;
        hdr.ipv6.dst_addr = ip;
        hdr.ipv6.dscp = meta.cnp_dscp;
        hdr.ipv6.ecn = ECN_NOT_ECT;
        hdr.ipv6.payload_len = UDP_HDR_BYTES + BTH_HDR_BYTES + CNP_PAYLOAD_BYTES;
        hdr.ipv6.hop_limit = DEFAULT_TTL;
    }

    apply {
        if (standard_metadata.instance_type != PKT_INSTANCE_TYPE_INGRESS_CLONE
                || meta.clone_kind != CLONE_CNP) {
            return;
        }
        build_cnp_common();
        bit<16> l2_len = ETH_HDR_BYTES;
        if (hdr.vlan_tag.isValid()) {
            l2_len = l2_len + VLAN_HDR_BYTES;
        }
        if (hdr.ipv4.isValid()) {
            build_cnp_ipv4();
            truncate((bit<32>)(l2_len + hdr.ipv4.total_len));
        } else {
            build_cnp_ipv6();
            truncate((bit<32>)(l2_len + IPV6_HDR_BYTES + hdr.ipv6.payload_len));
        }
    }
}

#endif  // __FABRIC_CNP_BUILDER__
