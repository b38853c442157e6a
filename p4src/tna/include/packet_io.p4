// packet_io.p4 -- packet-out and packet-in on TNA, as v1model's PacketIoIngress
// and PacketIoEgress: a packet from the CPU port leaves by the port its
// packet_out header names, untouched by routing; a packet leaving by the CPU
// port gets a packet_in header with its ingress port (carried in the bridged
// header, as egress has no ingress_port of its own). CPU_PORT is v1model's
// default (255); a Tofino build sets it to the chip's CPU port with -DCPU_PORT.

#ifndef __FABRIC_TNA_PACKET_IO__
#define __FABRIC_TNA_PACKET_IO__

control PacketIoIngress(inout headers_t hdr,
                        inout local_metadata_t meta,
                        inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    apply {
        if (hdr.packet_out.isValid()) {
            ig_tm_md.ucast_egress_port = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            meta.fwd.from_cpu = 1;
        }
    }
}

control PacketIoEgress(inout headers_t hdr,
                       inout bridged_md_t bridged,
                       in egress_intrinsic_metadata_t eg_intr_md) {
    apply {
        if (eg_intr_md.egress_port == CPU_PORT) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = bridged.ingress_port;
            hdr.packet_in._pad = 0;
            bridged.to_cpu = 1;
        }
    }
}

#endif  // __FABRIC_TNA_PACKET_IO__
