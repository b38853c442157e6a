// ecn.p4 -- Ecn on TNA: mark Congestion Experienced on ECN-capable packets
// when the queue the packet joined (eg_intr_md.enq_qdepth, in cells on Tofino,
// packets on BMv2) held more than the port's threshold. Same table, key and
// step action as v1model's Ecn; the RED action is not offered (its probability
// needs a run-time multiply, which Tofino's ALUs lack): docs/tna.md.

#ifndef __FABRIC_TNA_ECN__
#define __FABRIC_TNA_ECN__

control Ecn(inout headers_t hdr,
            in bridged_md_t bridged,
            in egress_intrinsic_metadata_t eg_intr_md) {

    qdepth_t k_min = 0;

    action mark_ecn_step(qdepth_t threshold) {
        k_min = threshold;
    }

    action no_ecn() {
    }

    table ecn_config {
        key = {
            eg_intr_md.egress_port: exact @name("eg_port");
        }
        actions = {
            mark_ecn_step;
            @defaultonly no_ecn;
        }
        const default_action = no_ecn();
        size = PORT_COUNT;
    }

    @hidden
    action mark_ce_v4() {
        hdr.ipv4.ecn = ECN_CE;
    }

    @hidden
    action mark_ce_v6() {
        hdr.ipv6.ecn = ECN_CE;
    }

    apply {
        if (bridged.to_cpu == 1) {
            return;
        }
        bit<2> ecn = ECN_NOT_ECT;
        if (hdr.ipv4.isValid()) {
            ecn = hdr.ipv4.ecn;
        } else if (hdr.ipv6.isValid()) {
            ecn = hdr.ipv6.ecn;
        }
        if (ecn == ECN_NOT_ECT || ecn == ECN_CE) {
            return;
        }
        switch (ecn_config.apply().action_run) {
            mark_ecn_step: {
                if (eg_intr_md.enq_qdepth > k_min) {
                    if (hdr.ipv4.isValid()) {
                        mark_ce_v4();
                    } else {
                        mark_ce_v6();
                    }
                }
            }
        }
    }
}

#endif  // __FABRIC_TNA_ECN__
