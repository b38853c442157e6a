// cnp.p4 -- CNP generation on TNA: CnpTrigger and CnpBuilder, both in egress.
//
// v1model decides in ingress from the depth egress last recorded and clones
// the packet I2E. On Tofino the egress queue depth is known where the packet
// leaves (eg_intr_md.enq_qdepth, cells), so the decision moves to egress and
// needs no feedback: a RoCEv2 data packet that joined a queue deeper than the
// port's threshold, at most once per flow slot every interval_us, is mirrored
// E2E with a cnp_mirror_h {dscp} to the session of its ingress port (below).
// The copy passes egress again, is rebuilt into a CNP exactly as v1model's
// CnpBuilder does (addresses swapped, TTL reset, DSCP, no ECN, BTH opcode 0x81
// with BECN, 16 reserved bytes and a zero ICRC) and leaves by that port.
//
// The table and its actions keep v1model's P4Info names (absolute @name), so
// the encoder's cnp intent is the same message on both targets; the key is the
// egress port there as here.
//
// Mirror sessions: P4Runtime's 1024 + port (v1model) does not fit TNA's
// MirrorId_t (10 bits on Tofino 1, 8 on Tofino 2). Tofino 1 uses
// CNP_SESSION_BASE_TNA + port (512..1023); Tofino 2 only has room for the port's
// low 7 bits (its pipe-local number): 128 + port[6:0], so two ingress ports
// with the same low bits in different pipes share a session.
//
// Length: Tofino 1 cannot cut a packet in egress; the session's truncation
// (max_pkt_len, set by the controller) must keep 74 bytes (an IPv6 CNP's
// headers), so an IPv4 CNP carries 20 trailing bytes beyond its IP length,
// which receivers treat as Ethernet padding. Tofino 2 cuts the copy exactly
// (eg_dprsr_md.mtu_trunc_len).

#ifndef __FABRIC_TNA_CNP__
#define __FABRIC_TNA_CNP__

const bit<16> CNP_SESSION_BASE_TNA = 512;

// CnpTrigger's verdict, for the deparser's Mirror.
control CnpTrigger(inout headers_t hdr,
                   inout tna_metadata_t meta,
                   in egress_intrinsic_metadata_t eg_intr_md,
                   in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                   inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {

    // last CNP time (1.024 us) per flow slot; 0: none yet
    Register<bit<32>, bit<CNP_INDEX_BITS>>(CNP_SLOTS, 0) cnp_last_sent;

    RegisterAction<bit<32>, bit<CNP_INDEX_BITS>, bit<1>>(cnp_last_sent) cnp_due = {
        void apply(inout bit<32> value, out bit<1> due) {
            due = 0;
            if (meta.cnp.now_us - value >= meta.cnp.interval_us) {
                value = meta.cnp.now_us;
                due = 1;
            }
        }
    };

    qdepth_t threshold = 0;
    bit<6> cnp_dscp = 0;

    @name(".FabricIngress.cnp_trigger.notify_above")
    action notify_above(qdepth_t queue_threshold, bit<32> interval_us, bit<6> dscp) {
        threshold = queue_threshold;
        meta.cnp.interval_us = interval_us;
        cnp_dscp = dscp;
    }

    @name(".FabricIngress.cnp_trigger.no_cnp")
    action no_cnp() {
    }

    @name(".FabricIngress.cnp_trigger.cnp_config")
    table cnp_config {
        key = {
            eg_intr_md.egress_port: exact @name("eg_port");
        }
        actions = {
            notify_above;
            @defaultonly no_cnp;
        }
        const default_action = no_cnp();
        size = PORT_COUNT;
    }

    apply {
        if (!meta.bridged.isValid() || meta.bridged.to_cpu == 1) {
            return;
        }
        if (!hdr.bth.isValid() || hdr.bth.opcode == BTH_OPCODE_CNP) {
            return;
        }
        if (!cnp_config.apply().hit || eg_intr_md.enq_qdepth <= threshold) {
            return;
        }
        meta.cnp.now_us = eg_prsr_md.global_tstamp[41:10];
        if (cnp_due.execute(meta.bridged.flow_slot) == 1) {
            meta.cnp_mirror.setValid();
            meta.cnp_mirror.kind = CNP_KIND;
            meta.cnp_mirror._pad = 0;
            meta.cnp_mirror.dscp = cnp_dscp;
#if __TARGET_TOFINO__ == 2
            meta.mirror_session = 128 | (MirrorId_t)meta.bridged.ingress_port[6:0];
#else
            meta.mirror_session = (MirrorId_t)(CNP_SESSION_BASE_TNA
                                               + (bit<16>)meta.bridged.ingress_port);
#endif
            eg_dprsr_md.mirror_type = MIRROR_TYPE_CNP;
        }
    }
}

// Turns the mirrored copy (meta.cnp_mirror parsed in front of it) into a CNP.
control CnpBuilder(inout headers_t hdr,
                   in tna_metadata_t meta,
                   inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {

    @hidden
    action build_cnp_common() {
        mac_addr_t mac = hdr.ethernet.src_addr;
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = mac;
        hdr.udp.dst_port = UDP_PORT_ROCEV2;
        hdr.udp.len = UDP_HDR_BYTES + BTH_HDR_BYTES + CNP_PAYLOAD_BYTES;
        hdr.udp.checksum = 0;
        hdr.bth.opcode = BTH_OPCODE_CNP;
        hdr.bth.solicited_event = 0;
        hdr.bth.mig_req = 0;
        hdr.bth.pad_count = 0;
        hdr.bth.tver = 0;
        hdr.bth.fecn = 0;
        hdr.bth.becn = 1;
        hdr.bth.resv6 = 0;
        hdr.bth.ack_req = 0;
        hdr.bth.resv7 = 0;
        hdr.bth.psn = 0;
        hdr.cnp_payload.setValid();
        hdr.cnp_payload.reserved = 0;
        hdr.cnp_payload.icrc = 0;
    }

    @hidden
    action build_cnp_ipv4() {
        ipv4_addr_t ip = hdr.ipv4.src_addr;
        hdr.ipv4.src_addr = hdr.ipv4.dst_addr;
        hdr.ipv4.dst_addr = ip;
        hdr.ipv4.dscp = meta.cnp_mirror.dscp;
        hdr.ipv4.ecn = ECN_NOT_ECT;
        hdr.ipv4.total_len = IPV4_HDR_BYTES + UDP_HDR_BYTES + BTH_HDR_BYTES + CNP_PAYLOAD_BYTES;
        hdr.ipv4.ttl = DEFAULT_TTL;
    }

    @hidden
    action build_cnp_ipv6() {
        ipv6_addr_t ip = hdr.ipv6.src_addr;
        hdr.ipv6.src_addr = hdr.ipv6.dst_addr;
        hdr.ipv6.dst_addr = ip;
        hdr.ipv6.dscp = meta.cnp_mirror.dscp;
        hdr.ipv6.ecn = ECN_NOT_ECT;
        hdr.ipv6.payload_len = UDP_HDR_BYTES + BTH_HDR_BYTES + CNP_PAYLOAD_BYTES;
        hdr.ipv6.hop_limit = DEFAULT_TTL;
    }

    apply {
        if (!hdr.bth.isValid()) {
            return;
        }
        build_cnp_common();
        if (hdr.ipv4.isValid()) {
            build_cnp_ipv4();
#if __TARGET_TOFINO__ == 2
            eg_dprsr_md.mtu_trunc_len = (bit<14>)(ETH_HDR_BYTES + hdr.ipv4.total_len);
#endif
        } else {
            build_cnp_ipv6();
#if __TARGET_TOFINO__ == 2
            eg_dprsr_md.mtu_trunc_len =
                (bit<14>)(ETH_HDR_BYTES + IPV6_HDR_BYTES + hdr.ipv6.payload_len);
#endif
        }
    }
}

#endif  // __FABRIC_TNA_CNP__
