// egress_stats.p4 -- EgressStats: transmit counters and the queue record.
//
// Every packet leaving a port writes that port's queue depth into
// port_queue_depth (queue_state.p4), which ingress reads for adaptive load
// balancing, trimming and CNPs.

#ifndef __FABRIC_EGRESS_STATS__
#define __FABRIC_EGRESS_STATS__

control EgressStats(inout local_metadata_t meta,
                    inout standard_metadata_t standard_metadata) {

    counter(PORT_COUNT, CounterType.packets_and_bytes) egress_port_counter;

    apply {
        egress_port_counter.count((bit<32>)standard_metadata.egress_port);
        port_queue_depth.write((bit<32>)standard_metadata.egress_port,
                               (bit<32>)standard_metadata.deq_qdepth);
    }
}

#endif  // __FABRIC_EGRESS_STATS__
