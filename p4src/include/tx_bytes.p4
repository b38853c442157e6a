// tx_bytes.p4 -- the bytes every port has transmitted, for HPCC-style INT.
//
// port_tx_bytes[p] counts, modulo 2^32, the bytes of every packet egress has
// sent out of port p (it wraps after 4 GiB: about 0.34 s at 100 Gb/s, far
// longer than the interval between two INT records of one flow). TxBytes runs
// last in egress and adds the packet's length as it leaves: the L2 header
// (and VLAN tag) plus the IP length after every rewrite of this pipeline
// (INT added or stripped, a trimmed header, a CNP, a report's encapsulation);
// a non-IP packet counts standard_metadata.packet_length (as received). A
// packet egress drops (mark_to_drop) is not counted. No FCS, preamble or gap.
//
// IntEgress stamps the value read *before* the packet's own bytes are added
// into the INT-MD "egress port tx utilization" word: this project carries
// HPCC's txBytes (Li et al., SIGCOMM 2019) in that 32-bit field instead of the
// utilisation v1model cannot measure. A sender derives the port's transmit
// rate from two records of the same hop: (txBytes' - txBytes) mod 2^32 over
// the difference of their egress timestamps.
//
// A top-level instance: the INT report clone reads the data port's count from
// another egress instance; data-plane state only (the controller never writes
// it, a reset of the switch starts it at 0).

#ifndef __FABRIC_TX_BYTES__
#define __FABRIC_TX_BYTES__

register<bit<32>>(PORT_COUNT) port_tx_bytes;

control TxBytes(inout headers_t hdr,
                inout standard_metadata_t standard_metadata) {
    apply {
        if (standard_metadata.egress_spec == V1MODEL_DROP_PORT) {
            return;
        }
        bit<32> bytes = standard_metadata.packet_length;
        bit<16> l2 = ETH_HDR_BYTES;
        if (hdr.report_ethernet.isValid() && hdr.report_ipv4.isValid()) {
            bytes = (bit<32>)(ETH_HDR_BYTES + hdr.report_ipv4.total_len);
        } else if (!hdr.packet_in.isValid()) {
            if (hdr.vlan_tag.isValid()) {
                l2 = l2 + VLAN_HDR_BYTES;
            }
            if (hdr.ipv4.isValid()) {
                bytes = (bit<32>)(l2 + hdr.ipv4.total_len);
            } else if (hdr.ipv6.isValid()) {
                bytes = (bit<32>)(l2 + IPV6_HDR_BYTES + hdr.ipv6.payload_len);
            }
        }
        bit<32> index = (bit<32>)standard_metadata.egress_port;
        bit<32> sent;
        port_tx_bytes.read(sent, index);
        port_tx_bytes.write(index, sent + bytes);
    }
}

#endif  // __FABRIC_TX_BYTES__
