// softswitch P4Info test: controller packet-in/out headers, a digest,
// documentation annotations and a nested control.
#include <core.p4>
#include <v1model.p4>

@controller_header("packet_in")
header packet_in_t {
    bit<9>  ingress_port;
    @id(3) bit<16> reason;
    bit<7>  _pad;
}

@controller_header("packet_out")
header packet_out_t {
    bit<9>  egress_port;
    @hidden bit<7> _pad;
    bit<8>  queue;
}

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t  packet_in;
    eth_t        eth;
}

struct learn_t {
    bit<48> src;
    bit<9>  port;
    eth_t   eth;
}

struct meta_t {
    bit<8> unused;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            9w64: parse_packet_out;
            default: parse_eth;
        }
    }
    state parse_packet_out {
        pkt.extract(hdr.packet_out);
        transition parse_eth;
    }
    state parse_eth {
        pkt.extract(hdr.eth);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control Learn(inout headers_t hdr, inout standard_metadata_t sm) {
    action learn() {
        digest<learn_t>(1, {hdr.eth.src, sm.ingress_port, hdr.eth});
    }
    table smac {
        key = {
            hdr.eth.src: exact;
        }
        actions = {
            learn;
            NoAction;
        }
        default_action = learn();
    }
    apply {
        smac.apply();
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Learn() learning;

    @brief("Sends the packet to a port")
    @description("Also marks it as seen by the controller")
    action to_port(@brief("the egress port") bit<9> port) {
        sm.egress_spec = port;
    }
    action to_cpu() {
        sm.egress_spec = 9w64;
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = sm.ingress_port;
    }

    @brief("Destination MAC lookup")
    table dmac {
        key = {
            hdr.eth.dst: exact;
        }
        actions = {
            to_port;
            to_cpu;
        }
        default_action = to_cpu();
        size = 4096;
    }

    apply {
        if (hdr.packet_out.isValid()) {
            sm.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
        } else {
            learning.apply(hdr, sm);
            dmac.apply();
        }
    }
}

control Egr(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control CC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.eth);
    }
}

V1Switch(P(), VC(), Ing(), Egr(), CC(), D()) main;
