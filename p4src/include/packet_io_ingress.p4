// packet_io_ingress.p4 -- PacketIoIngress: packets from the controller.
//
// A packet-out is sent where its header says, untouched by the rest of the
// pipeline (from_cpu stops every later stage).

#ifndef __FABRIC_PACKET_IO_INGRESS__
#define __FABRIC_PACKET_IO_INGRESS__

control PacketIoIngress(inout headers_t hdr,
                        inout local_metadata_t meta,
                        inout standard_metadata_t standard_metadata) {
    apply {
        if (hdr.packet_out.isValid()) {
            standard_metadata.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            meta.fwd.from_cpu = 1;
        }
    }
}

#endif  // __FABRIC_PACKET_IO_INGRESS__
