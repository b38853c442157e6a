// trim.p4 -- Trim: cut a packet to its headers instead of queueing it deep.
//
// When the chosen port's queue (as egress last recorded it) is above the
// port's trim threshold, the packet keeps only its headers (L2 to L4, the
// RoCEv2 BTH; INT is stripped: the packet leaves the INT domain), is marked with the configured DSCP,
// gets IP/UDP lengths that match what is left, and goes to the configured
// (high) priority queue: the receiver learns of the loss at once and asks for
// a retransmission (NDP-style) instead of waiting for a timeout. This must be
// decided in ingress: the queue is chosen before egress runs. The UDP
// checksum of a trimmed IPv4 packet is zeroed (it no longer covers the cut
// payload); IPv6 keeps its (now stale) checksum.
//
// A packet that already carries the trim DSCP (a header trimmed upstream, or a
// host's control packet sent in that class: NDP-style ACKs, NACKs and pulls)
// is never cut and goes to the trim priority at every hop, whatever the queue.
//
// A small packet (at most TRIM_SMALL_BYTES after the headers a trim would keep:
// a RoCE ACK or NACK, whose AETH follows the BTH; a CNP; a TCP ACK) is not cut
// either when the queue is above the threshold: cutting it would save nothing
// and lose its own control fields (an ACK without its AETH acknowledges
// nothing, and its sender would wait for a timeout). It goes to the trim
// priority uncut, its DSCP kept, and is not counted as trimmed.

#ifndef __FABRIC_TRIM__
#define __FABRIC_TRIM__

control Trim(inout headers_t hdr,
             inout local_metadata_t meta,
             inout standard_metadata_t standard_metadata) {

    counter(PORT_COUNT, CounterType.packets_and_bytes) trimmed_counter;

    bit<32> threshold = 0;
    bit<6>  trim_dscp = 0;
    bit<3>  trim_priority = 0;

    action trim_above(qdepth_t queue_threshold, bit<6> dscp, bit<3> priority) {
        threshold = (bit<32>)queue_threshold;
        trim_dscp = dscp;
        trim_priority = priority;
    }

    action no_trim() {
    }

    table trim_config {
        key = {
            standard_metadata.egress_spec: exact @name("eg_port");
        }
        actions = {
            trim_above;
            @defaultonly no_trim;
        }
        const default_action = no_trim();
        size = PORT_COUNT;
    }

    apply {
        if (meta.fwd.routed == 0 || meta.fwd.drop_reason != DROP_NONE) {
            return;
        }
        if (!hdr.udp.isValid() && !hdr.tcp.isValid()) {
            return;
        }
        if (!trim_config.apply().hit) {
            return;
        }
        if ((hdr.ipv4.isValid() && hdr.ipv4.dscp == trim_dscp)
                || (hdr.ipv6.isValid() && hdr.ipv6.dscp == trim_dscp)) {
            standard_metadata.priority = trim_priority;
            return;
        }
        bit<32> load;
        port_queue_depth.read(load, (bit<32>)standard_metadata.egress_spec);
        if (load <= threshold) {
            return;
        }
        // bytes from the start of the IP header to the end of what we keep
        bit<16> l3_len;
        bit<16> after_l3;  // the IP payload's bytes
        if (hdr.ipv4.isValid()) {
            l3_len = IPV4_HDR_BYTES;
            after_l3 = hdr.ipv4.total_len - IPV4_HDR_BYTES;
        } else {
            l3_len = IPV6_HDR_BYTES;
            after_l3 = hdr.ipv6.payload_len;
        }
        bit<16> l4_len;
        if (hdr.tcp.isValid()) {
            l4_len = ((bit<16>)hdr.tcp.data_offset) << 2;
        } else {
            l4_len = UDP_HDR_BYTES;
            if (hdr.bth.isValid()) {
                l4_len = l4_len + BTH_HDR_BYTES;
            }
        }
        if (after_l3 <= l4_len + TRIM_SMALL_BYTES) {
            standard_metadata.priority = trim_priority;  // small: ahead, uncut
        } else {
            if (hdr.udp.isValid() && hdr.int_md.isValid()) {
                // a trimmed packet leaves the INT domain here
                hdr.udp.dst_port = hdr.int_shim.npt_field;
                hdr.int_shim.setInvalid();
                hdr.int_md.setInvalid();
                hdr.int_stack.setInvalid();
            }
            if (hdr.ipv4.isValid()) {
                hdr.ipv4.total_len = l3_len + l4_len;
                hdr.ipv4.dscp = trim_dscp;
            } else {
                hdr.ipv6.payload_len = l4_len;
                hdr.ipv6.dscp = trim_dscp;
            }
            if (hdr.udp.isValid()) {
                hdr.udp.len = l4_len;
                if (hdr.ipv4.isValid()) {
                    hdr.udp.checksum = 0;
                }
            }
            truncate((bit<32>)(ETH_HDR_BYTES + l3_len + l4_len));
            standard_metadata.priority = trim_priority;
            meta.congestion.trimmed = 1;
            trimmed_counter.count((bit<32>)standard_metadata.egress_spec);
        }
    }
}

#endif  // __FABRIC_TRIM__
