// ecn.p4 -- Ecn: mark Congestion Experienced on ECN-capable packets.
//
// Per egress port, from ecn_config:
//   mark_ecn_step(threshold)        DCTCP: mark when the queue the packet
//                                   joined held more than `threshold` packets
//   mark_ecn_red(k_min, k_max, p_max)
//                                   RED/DCQCN: no marks up to k_min, then a
//                                   probability rising linearly to
//                                   p_max/256 at k_max, every packet above k_max
// The queue is enq_qdepth, the instantaneous queue on arrival (what DCTCP's K
// is defined on). Not-ECT packets are never touched; CE stays CE.

#ifndef __FABRIC_ECN__
#define __FABRIC_ECN__

control Ecn(inout headers_t hdr,
            inout local_metadata_t meta,
            inout standard_metadata_t standard_metadata) {

    counter(PORT_COUNT, CounterType.packets) ecn_marked_counter;

    bit<32> k_min = 0;
    bit<32> k_max = 0;
    bit<32> p_max = 0;

    action mark_ecn_step(qdepth_t threshold) {
        k_min = (bit<32>)threshold;
    }

    action mark_ecn_red(qdepth_t min_threshold, qdepth_t max_threshold, bit<8> max_probability) {
        k_min = (bit<32>)min_threshold;
        k_max = (bit<32>)max_threshold;
        p_max = (bit<32>)max_probability;
    }

    action no_ecn() {
    }

    table ecn_config {
        key = {
            standard_metadata.egress_port: exact @name("eg_port");
        }
        actions = {
            mark_ecn_step;
            mark_ecn_red;
            @defaultonly no_ecn;
        }
        const default_action = no_ecn();
        size = PORT_COUNT;
    }

    apply {
        // locals first, initialised: p4c checks each use against every path, returns
        // included
        bit<2> ecn = ECN_NOT_ECT;
        if (meta.fwd.to_cpu == 1
                || standard_metadata.instance_type == PKT_INSTANCE_TYPE_INGRESS_CLONE
                || standard_metadata.instance_type == PKT_INSTANCE_TYPE_EGRESS_CLONE) {
            return;
        }
        if (hdr.ipv4.isValid()) {
            ecn = hdr.ipv4.ecn;
        } else if (hdr.ipv6.isValid()) {
            ecn = hdr.ipv6.ecn;
        } else {
            return;
        }
        if (ecn == ECN_NOT_ECT || ecn == ECN_CE) {
            return;
        }
        bit<32> q = (bit<32>)standard_metadata.enq_qdepth;
        bit<1> mark = 0;
        switch (ecn_config.apply().action_run) {
            mark_ecn_step: {
                if (q > k_min) {
                    mark = 1;
                }
            }
            mark_ecn_red: {
                if (q >= k_max) {
                    mark = 1;
                } else if (q > k_min) {
                    // P(mark) = (q - k_min) * p_max / (256 * (k_max - k_min)), exactly:
                    // r takes 256 * (k_max - k_min) values, (q - k_min) * p_max of them mark
                    bit<32> r;
                    random(r, (bit<32>)0, ((k_max - k_min) << 8) - 1);
                    if (r < (q - k_min) * p_max) {
                        mark = 1;
                    }
                }
            }
        }
        if (mark == 1) {
            if (hdr.ipv4.isValid()) {
                hdr.ipv4.ecn = ECN_CE;
            } else {
                hdr.ipv6.ecn = ECN_CE;
            }
            ecn_marked_counter.count((bit<32>)standard_metadata.egress_port);
        }
    }
}

#endif  // __FABRIC_ECN__
