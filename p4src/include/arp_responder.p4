// arp_responder.p4 -- ArpResponder: answer ARP so hosts need no static entries.
//
// A request for an address in arp_responder (the hosts' gateway, or any host
// the controller proxies for) is answered out of the port it came from; other
// ARP goes to the controller, which may answer with a packet-out.

#ifndef __FABRIC_ARP_RESPONDER__
#define __FABRIC_ARP_RESPONDER__

control ArpResponder(inout headers_t hdr,
                     inout local_metadata_t meta,
                     inout standard_metadata_t standard_metadata) {

    action reply_arp(mac_addr_t target_mac) {
        ipv4_addr_t target_ip = hdr.arp.target_proto_addr;
        hdr.ethernet.dst_addr = hdr.arp.sender_hw_addr;
        hdr.ethernet.src_addr = target_mac;
        hdr.arp.opcode = ARP_OPER_REPLY;
        hdr.arp.target_hw_addr = hdr.arp.sender_hw_addr;
        hdr.arp.target_proto_addr = hdr.arp.sender_proto_addr;
        hdr.arp.sender_hw_addr = target_mac;
        hdr.arp.sender_proto_addr = target_ip;
        standard_metadata.egress_spec = standard_metadata.ingress_port;
    }

    action punt_arp() {
        standard_metadata.egress_spec = CPU_PORT;
    }

    table arp_responder {
        key = {
            hdr.arp.target_proto_addr: exact @name("target_ip");
        }
        actions = {
            reply_arp;
            @defaultonly punt_arp;
        }
        const default_action = punt_arp();
        size = ARP_RESPONDER_SIZE;
    }

    apply {
        if (meta.fwd.from_cpu == 0 && hdr.arp.isValid()) {
            if (hdr.arp.opcode == ARP_OPER_REQUEST) {
                arp_responder.apply();
            } else {
                punt_arp();
            }
        }
    }
}

#endif  // __FABRIC_ARP_RESPONDER__
