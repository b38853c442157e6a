// trim.p4 -- Trim: v1model's trim_config, decided in ingress on the egress
// port's depth. Tofino 2 cuts the packet with ig_dprsr_md.mtu_trunc_len.
// Tofino 1 cannot cut in ingress: it drops the packet and I2E-mirrors it (with
// its headers rewritten as below) to the port's trim session,
// TRIM_SESSION_BASE_TNA + pipe * 64 + the port's low 6 bits (front-panel ports
// are 0-63 of each pipe), which the controller sets up to cut the copy after
// TRIM_KEEP_BYTES_TNA bytes and to send it to the high-priority queue (the
// entry's `priority` does not reach the copy: the session's queue does). Kept
// headers longer than that (TCP options) leave the packet untrimmed.
//
// The depth comes from the same mirrored reports as adaptive.p4's: with
// WITH_CONGESTION every data packet may report (sampled per port), and the
// report's port indexes port_depth here. One RegisterAction serves both: a
// report writes its depth, a data packet reads its egress port's.
//
// As v1model: a packet that already carries the trim DSCP only changes queue;
// one above the port's threshold keeps L2-L4 (and the BTH), gets the trim DSCP,
// lengths that match what is left and a zero UDP checksum (IPv4), and goes to
// the trim queue: `priority` is used as the queue id (ig_tm_md.qid), which the
// controller must map to a strict-priority queue. A small packet (at most
// TRIM_SMALL_BYTES after the kept headers: an ACK, a CNP) goes to the trim
// queue uncut, as v1model's. Tofino 1 has no ingress truncation: docs/tna.md.

#ifndef __FABRIC_TNA_TRIM__
#define __FABRIC_TNA_TRIM__

// Tofino 1's trim sessions (MirrorId_t: 10 bits): 256-511, below CNP's 512-1023
const bit<16> TRIM_SESSION_BASE_TNA = 256;
// what a Tofino 1 trim session keeps after the mirror header: Ethernet, IPv6,
// UDP and BTH (an IPv4 copy carries padding beyond its IP length, as a CNP)
const bit<16> TRIM_KEEP_BYTES_TNA = 74;

control Trim(inout headers_t hdr,
             inout local_metadata_t meta,
             in tna_lb_metadata_t tlb,
             inout trim_mirror_h trim_mirror,    // Tofino 1's mirror header and session
             inout MirrorId_t mirror_session,
             inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
             inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    Register<bit<32>, port_num_t>(PORT_COUNT, 0) port_depth;

    RegisterAction<bit<32>, port_num_t, bit<32>>(port_depth) port_depth_access = {
        void apply(inout bit<32> value, out bit<32> depth) {
            if (tlb.report == 1) {
                value = tlb.report_depth;
            }
            depth = value;
        }
    };

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
            ig_tm_md.ucast_egress_port: exact @name("eg_port");
        }
        actions = {
            trim_above;
            @defaultonly no_trim;
        }
        const default_action = no_trim();
        size = PORT_COUNT;
    }

    apply {
        // locals first, initialised (p4c's use-before-definition check)
        bit<32> load = 0;
        bit<16> l3_len = IPV4_HDR_BYTES;
        bit<16> l4_len = UDP_HDR_BYTES;
        bit<16> after_l3 = 0;
        if (tlb.report == 1) {
            port_depth_access.execute(tlb.report_port);
            return;
        }
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
            ig_tm_md.qid = (QueueId_t)trim_priority;
            return;
        }
        load = port_depth_access.execute(ig_tm_md.ucast_egress_port);
        if (load <= threshold) {
            return;
        }
        if (hdr.ipv6.isValid()) {
            l3_len = IPV6_HDR_BYTES;
            after_l3 = hdr.ipv6.payload_len;
        } else {
            after_l3 = hdr.ipv4.total_len - IPV4_HDR_BYTES;
        }
        if (hdr.tcp.isValid()) {
            l4_len = ((bit<16>)hdr.tcp.data_offset) << 2;
        } else if (hdr.bth.isValid()) {
            l4_len = UDP_HDR_BYTES + BTH_HDR_BYTES;
        }
        if (after_l3 <= l4_len + TRIM_SMALL_BYTES) {
            ig_tm_md.qid = (QueueId_t)trim_priority;  // small: ahead, uncut
            return;
        }
#if __TARGET_TOFINO__ != 2
        if (ETH_HDR_BYTES + l3_len + l4_len > TRIM_KEEP_BYTES_TNA) {
            return;  // the session would cut into the kept headers
        }
#endif
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
#if __TARGET_TOFINO__ == 2
        // the ingress deparser puts the bridged header in front: it counts
        ig_dprsr_md.mtu_trunc_len =
            (bit<14>)(BRIDGED_BYTES + ETH_HDR_BYTES + l3_len + l4_len);
        ig_tm_md.qid = (QueueId_t)trim_priority;
#else
        port_num_t port = ig_tm_md.ucast_egress_port;
        mirror_session = (MirrorId_t)(TRIM_SESSION_BASE_TNA
            | ((bit<16>)port[8:7] << 6) | (bit<16>)port[5:0]);
        trim_mirror.setValid();
        trim_mirror.kind = TRIM_KIND;
        ig_dprsr_md.mirror_type = MIRROR_TYPE_TRIM;
        ig_dprsr_md.drop_ctl = 1;  // the original: only the cut copy goes
#endif
        meta.congestion.trimmed = 1;
    }
}

#endif  // __FABRIC_TNA_TRIM__
