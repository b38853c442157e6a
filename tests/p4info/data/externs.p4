// softswitch P4Info test: counters, meters and registers (direct and indexed),
// an action profile and an action selector shared by tables.
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

struct headers_t {
    eth_t eth;
}

struct pair_t {
    bit<32> first;
    bit<16> second;
}

struct meta_t {
    bit<16> hash;
    bit<32> bytes;
    bit<2>  color;
    pair_t  pair;
}

// a top-level instance comes before the control-local ones of its kind
@min_width(32) counter(32w64, CounterType.bytes) global_bytes;

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    counter(32w1024, CounterType.packets) port_packets;
    counter(32w16, CounterType.packets_and_bytes) class_stats;
    meter(32w128, MeterType.bytes) port_meter;
    register<bit<32>>(32w512) flow_bytes;
    register<pair_t>(32w8) pairs;
    direct_counter(CounterType.packets_and_bytes) fwd_hits;
    direct_meter<bit<2>>(MeterType.packets) fwd_rate;
    direct_counter(CounterType.bytes) unused_direct;
    action_profile(32w128) nhop_profile;
    @max_group_size(16) action_selector(HashAlgorithm.crc16, 32w256, 32w14) ecmp_selector;

    action fwd(bit<9> port) {
        sm.egress_spec = port;
        fwd_rate.read(meta.color);
    }
    action set_nhop(bit<48> dmac, bit<9> port) {
        hdr.eth.dst = dmac;
        sm.egress_spec = port;
    }

    table fwd_table {
        key = {
            hdr.eth.dst: exact;
        }
        actions = {
            fwd;
            NoAction;
        }
        counters = fwd_hits;
        meters = fwd_rate;
        default_action = NoAction();
    }

    table nhop_a {
        key = {
            hdr.eth.type: exact;
        }
        actions = {
            set_nhop;
        }
        implementation = nhop_profile;
    }

    table ecmp_b {
        key = {
            hdr.eth.src: exact;
            meta.hash: selector;
        }
        actions = {
            set_nhop;
        }
        implementation = ecmp_selector;
    }

    table ecmp_a {
        key = {
            hdr.eth.type: ternary;
            hdr.eth.dst: selector;
            hdr.eth.src: selector;
        }
        actions = {
            set_nhop;
        }
        implementation = ecmp_selector;
    }

    apply {
        fwd_table.apply();
        nhop_a.apply();
        ecmp_b.apply();
        ecmp_a.apply();
        port_packets.count((bit<32>)sm.ingress_port);
        class_stats.count(32w1);
        global_bytes.count(32w0);
        port_meter.execute_meter((bit<32>)sm.ingress_port, meta.color);
        flow_bytes.read(meta.bytes, 32w0);
        flow_bytes.write(32w0, meta.bytes + 32w1);
        pairs.write(32w1, meta.pair);
    }
}

control Egr(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    counter(32w8, CounterType.packets) egress_packets;
    apply {
        egress_packets.count(32w0);
    }
}

control CC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
    }
}

V1Switch(P(), VC(), Ing(), Egr(), CC(), D()) main;
