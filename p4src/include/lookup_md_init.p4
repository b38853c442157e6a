// lookup_md_init.p4 -- LookupMdInit: normalise the flow once.
//
// Every stage that classifies a flow (hash, INT watchlist) reads this struct,
// not the headers, so IPv4/IPv6, TCP/UDP and INT-encapsulated packets look
// alike. For INT packets the original UDP destination port is taken from the
// shim: the flow hashes the same before, inside and after the INT domain.

#ifndef __FABRIC_LOOKUP_MD_INIT__
#define __FABRIC_LOOKUP_MD_INIT__

control LookupMdInit(in headers_t hdr, inout local_metadata_t meta) {
    apply {
        if (hdr.ipv4.isValid()) {
            meta.lookup.ip_src = (ipv6_addr_t)hdr.ipv4.src_addr;
            meta.lookup.ip_dst = (ipv6_addr_t)hdr.ipv4.dst_addr;
            meta.lookup.ip_proto = hdr.ipv4.protocol;
        } else if (hdr.ipv6.isValid()) {
            meta.lookup.ip_src = hdr.ipv6.src_addr;
            meta.lookup.ip_dst = hdr.ipv6.dst_addr;
            meta.lookup.ip_proto = hdr.ipv6.next_hdr;
        }
        if (hdr.tcp.isValid()) {
            meta.lookup.l4_sport = hdr.tcp.src_port;
            meta.lookup.l4_dport = hdr.tcp.dst_port;
        } else if (hdr.udp.isValid()) {
            meta.lookup.l4_sport = hdr.udp.src_port;
            meta.lookup.l4_dport = hdr.udp.dst_port;
            if (hdr.int_shim.isValid() && hdr.int_shim.npt == INT_NPT_UDP_PORT) {
                meta.lookup.l4_dport = hdr.int_shim.npt_field;
            }
        }
        if (hdr.bth.isValid()) {
            meta.lookup.roce_qp = hdr.bth.dest_qp;
        }
    }
}

#endif  // __FABRIC_LOOKUP_MD_INIT__
