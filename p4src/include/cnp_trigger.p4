// cnp_trigger.p4 -- CnpTrigger: decide to notify a RoCEv2 sender of congestion.
//
// When a RoCEv2 data packet is headed for a port whose queue (as egress last
// recorded it) is above the port's CNP threshold, a copy of the packet as it
// arrived is cloned back out of the port it came from (clone session
// CNP_SESSION_BASE + ingress port) and turned into a CNP by CnpBuilder. This
// reaches the sender one hop after the congestion point instead of a full
// round trip via the receiver. A per-flow register keeps at most one CNP per
// flow every interval_us (flows share CNP_SLOTS slots by flow hash).

#ifndef __FABRIC_CNP_TRIGGER__
#define __FABRIC_CNP_TRIGGER__

control CnpTrigger(inout headers_t hdr,
                   inout local_metadata_t meta,
                   inout standard_metadata_t standard_metadata) {

    // {sent:1, unused:31, last CNP time (us):32}
    register<bit<64>>(CNP_SLOTS) cnp_last_sent;
    counter(PORT_COUNT, CounterType.packets) cnp_counter;

    bit<32> threshold = 0;
    bit<32> interval = 0;

    action notify_above(qdepth_t queue_threshold, bit<32> interval_us, bit<6> dscp) {
        threshold = (bit<32>)queue_threshold;
        interval = interval_us;
        meta.cnp_dscp = dscp;
    }

    action no_cnp() {
    }

    table cnp_config {
        key = {
            standard_metadata.egress_spec: exact @name("eg_port");
        }
        actions = {
            notify_above;
            @defaultonly no_cnp;
        }
        const default_action = no_cnp();
        size = PORT_COUNT;
    }

    apply {
        // locals first, initialised: p4c checks each use against every path, returns
        // included
        bit<32> load = 0;
        bit<32> slot = (bit<32>)meta.flow_hash[CNP_INDEX_BITS - 1:0];
        bit<32> now = standard_metadata.ingress_global_timestamp[31:0];
        bit<64> last = 0;
        if (meta.fwd.routed == 0 || meta.fwd.drop_reason != DROP_NONE) {
            return;
        }
        if (!hdr.bth.isValid() || hdr.bth.opcode == BTH_OPCODE_CNP) {
            return;
        }
        if (!cnp_config.apply().hit) {
            return;
        }
        port_queue_depth.read(load, (bit<32>)standard_metadata.egress_spec);
        if (load <= threshold) {
            return;
        }
        cnp_last_sent.read(last, slot);
        if (last[63:63] == 1 && now - last[31:0] < interval) {
            return;
        }
        cnp_last_sent.write(slot, (bit<64>)0x8000000000000000 | (bit<64>)now);
        meta.clone_kind = CLONE_CNP;
        clone_preserving_field_list(CloneType.I2E,
            CNP_SESSION_BASE + (bit<32>)standard_metadata.ingress_port, FL_CLONE);
        cnp_counter.count((bit<32>)standard_metadata.ingress_port);
    }
}

#endif  // __FABRIC_CNP_TRIGGER__
