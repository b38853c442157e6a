/* Benchmark (a): plain IPv4 LPM forwarding — parse Ethernet/IPv4, LPM to a next hop,
 * rewrite MACs, decrement TTL, update the IPv4 checksum, deparse. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst_addr; bit<48> src_addr; bit<16> ether_type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> total_len;
    bit<16> identification; bit<3> flags; bit<13> frag_offset;
    bit<8> ttl; bit<8> protocol; bit<16> hdr_checksum;
    bit<32> src_addr; bit<32> dst_addr;
}
struct headers_t { ethernet_t ethernet; ipv4_t ipv4; }
struct metadata_t { }

parser BenchParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x0800: parse_ipv4; default: accept; }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}

control BenchVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control BenchIngress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    action drop() { mark_to_drop(sm); }
    action forward(bit<48> dmac, bit<48> smac, bit<9> port) {
        sm.egress_spec = port;
        hdr.ethernet.src_addr = smac;
        hdr.ethernet.dst_addr = dmac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    table routing_v4 {
        key = { hdr.ipv4.dst_addr: lpm @name("ipv4_dst"); }
        actions = { forward; drop; }
        const default_action = drop();
        size = 4096;
    }
    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) { routing_v4.apply(); } else { drop(); }
    }
}

control BenchEgress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply { }
}

control BenchCompute(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control BenchDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ipv4); }
}

V1Switch(BenchParser(), BenchVerify(), BenchIngress(), BenchEgress(), BenchCompute(),
         BenchDeparser()) main;
