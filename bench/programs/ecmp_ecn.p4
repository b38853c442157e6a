/* Benchmark (b): ECMP through an action selector over the 5-tuple, a per-port register
 * read/write in ingress, and an ECN check against a run-time threshold in egress. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst_addr; bit<48> src_addr; bit<16> ether_type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<6> dscp; bit<2> ecn; bit<16> total_len;
    bit<16> identification; bit<3> flags; bit<13> frag_offset;
    bit<8> ttl; bit<8> protocol; bit<16> hdr_checksum;
    bit<32> src_addr; bit<32> dst_addr;
}
header udp_t { bit<16> sport; bit<16> dport; bit<16> len; bit<16> checksum; }
struct headers_t { ethernet_t ethernet; ipv4_t ipv4; udp_t udp; }
struct metadata_t { bit<16> l4_sport; bit<16> l4_dport; }

parser BenchParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x0800: parse_ipv4; default: accept; }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) { 17: parse_udp; default: accept; }
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        meta.l4_sport = hdr.udp.sport;
        meta.l4_dport = hdr.udp.dport;
        transition accept;
    }
}

control BenchVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control BenchIngress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    register<bit<32>>(512) port_packets;
    action drop() { mark_to_drop(sm); }
    action set_next_hop(bit<48> dmac, bit<9> port) {
        sm.egress_spec = port;
        hdr.ethernet.dst_addr = dmac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    table next_hop_group {
        key = {
            hdr.ipv4.dst_addr: lpm @name("ipv4_dst");
            hdr.ipv4.src_addr: selector;
            hdr.ipv4.dst_addr: selector;
            hdr.ipv4.protocol: selector;
            meta.l4_sport: selector;
            meta.l4_dport: selector;
        }
        actions = { set_next_hop; drop; }
        const default_action = drop();
        implementation = action_selector(HashAlgorithm.crc16, 1024, 16);
    }
    apply {
        if (hdr.ipv4.isValid()) {
            next_hop_group.apply();
            bit<32> n;
            port_packets.read(n, (bit<32>)sm.egress_spec);
            port_packets.write((bit<32>)sm.egress_spec, n + 1);
        }
    }
}

control BenchEgress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    register<bit<19>>(1) ecn_threshold;
    apply {
        bit<19> threshold;
        ecn_threshold.read(threshold, 0);
        if (hdr.ipv4.isValid() && hdr.ipv4.ecn != 0 && sm.enq_qdepth >= threshold) {
            hdr.ipv4.ecn = 3;
        }
    }
}

control BenchCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control BenchDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ipv4); pkt.emit(hdr.udp); }
}

V1Switch(BenchParser(), BenchVerify(), BenchIngress(), BenchEgress(), BenchCompute(),
         BenchDeparser()) main;
