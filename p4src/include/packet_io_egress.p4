// packet_io_egress.p4 -- PacketIoEgress: packets to the controller.
//
// Whatever leaves on the CPU port carries a packet-in header with the port it
// came in on; the other egress stages leave it alone (to_cpu).

#ifndef __FABRIC_PACKET_IO_EGRESS__
#define __FABRIC_PACKET_IO_EGRESS__

control PacketIoEgress(inout headers_t hdr,
                       inout local_metadata_t meta,
                       inout standard_metadata_t standard_metadata) {
    apply {
        if (standard_metadata.egress_port == CPU_PORT) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = standard_metadata.ingress_port;
            hdr.packet_in._pad = 0;
            meta.fwd.to_cpu = 1;
        }
    }
}

#endif  // __FABRIC_PACKET_IO_EGRESS__
