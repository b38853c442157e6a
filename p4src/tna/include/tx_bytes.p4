// tx_bytes.p4 -- TxBytes on TNA: the bytes every port has transmitted, for
// HPCC-style INT (the v1model counter of ../../include/tx_bytes.p4).
//
// port_tx_bytes[p] counts, modulo 2^32, the bytes of every packet egress sends
// out of port p, counted as v1model counts them: the L2 header plus the IP
// length after every rewrite of this pipeline (INT added or stripped, a trimmed
// header, a CNP, a report's encapsulation: Ethernet and the report's IP
// length); a packet with neither IP header nor report (non-IP, or VLAN-tagged:
// the egress parser stops at a tag) and a packet to the CPU count
// eg_intr_md.pkt_length. A packet egress drops (drop_ctl) is not counted. No
// FCS, preamble or gap.
//
// One RegisterAction per packet, run last in egress: it adds the packet's
// length to its egress port's count and returns the count before, which
// FabricEgress stamps into this hop's INT-MD "egress port tx utilization"
// word (HPCC's txBytes, as on v1model). The INT sink's report copy stamps the
// data port's count, as v1model's clone does, with the other RegisterAction
// (a read): Tofino reaches one register cell per packet, so the copy's own
// bytes are not added to its port's (the collector's) count, where v1model
// adds them. A depth report (adaptive.p4) does not exist on v1model and is not
// counted. Data-plane state only; a @name keeps v1model's object name.

#ifndef __FABRIC_TNA_TX_BYTES__
#define __FABRIC_TNA_TX_BYTES__

control TxBytes(in headers_t hdr,
                inout tna_metadata_t meta,
                in egress_intrinsic_metadata_t eg_intr_md,
                in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {

    @name(".port_tx_bytes")
    Register<bit<32>, port_num_t>(PORT_COUNT, 0) port_tx_bytes;

    RegisterAction<bit<32>, port_num_t, bit<32>>(port_tx_bytes) tx_add = {
        void apply(inout bit<32> value, out bit<32> sent) {
            sent = value;
            value = value + meta.alert.tx_len;
        }
    };

    RegisterAction<bit<32>, port_num_t, bit<32>>(port_tx_bytes) tx_read = {
        void apply(inout bit<32> value, out bit<32> sent) {
            sent = value;
        }
    };

    apply {
        if (meta.depth_report.isValid() || eg_dprsr_md.drop_ctl[0:0] == 1) {
            return;
        }
#ifdef WITH_INT
        if (meta.int_bridged.isValid() && meta.int_bridged.kind == INT_REPORT_KIND) {
            meta.alert.tx_sent = tx_read.execute(meta.int_bridged.egress_port);
            return;
        }
#endif // WITH_INT
        bit<32> bytes = (bit<32>)eg_intr_md.pkt_length;
        if (hdr.report_ethernet.isValid() && hdr.report_ipv4.isValid()) {
            bytes = (bit<32>)(ETH_HDR_BYTES + hdr.report_ipv4.total_len);
        } else if (!hdr.packet_in.isValid()) {
            if (hdr.ipv4.isValid()) {
                bytes = (bit<32>)(ETH_HDR_BYTES + hdr.ipv4.total_len);
            } else if (hdr.ipv6.isValid()) {
                bytes = (bit<32>)(ETH_HDR_BYTES + IPV6_HDR_BYTES + hdr.ipv6.payload_len);
            }
        }
        meta.alert.tx_len = bytes;
        meta.alert.tx_sent = tx_add.execute(eg_intr_md.egress_port);
    }
}

#endif  // __FABRIC_TNA_TX_BYTES__
