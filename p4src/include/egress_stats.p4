// egress_stats.p4 -- EgressStats: transmit counters and the queue record.
//
// Every packet leaving a port from its data queue writes that queue's depth
// into port_queue_depth (queue_state.p4), which ingress reads for adaptive load
// balancing, trimming and CNPs. Packets leaving from a priority queue (trimmed
// ones) do not: that queue's depth, near 0 while a burst is being trimmed,
// would hide the data backlog and stop the trimming and CNPs it triggers.

#ifndef __FABRIC_EGRESS_STATS__
#define __FABRIC_EGRESS_STATS__

control EgressStats(inout local_metadata_t meta,
                    inout standard_metadata_t standard_metadata) {

    counter(PORT_COUNT, CounterType.packets_and_bytes) egress_port_counter;

    apply {
        egress_port_counter.count((bit<32>)standard_metadata.egress_port);
        if (standard_metadata.priority == DATA_QUEUE_PRIORITY) {
            port_queue_depth.write((bit<32>)standard_metadata.egress_port,
                                   (bit<32>)standard_metadata.deq_qdepth);
        }
    }
}

#endif  // __FABRIC_EGRESS_STATS__
