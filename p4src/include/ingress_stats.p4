// ingress_stats.p4 -- IngressStats: receive counters and drops by reason.
//
// Runs last in ingress: a stage that decides to drop only records why
// (meta.fwd.drop_reason); the drop itself and its accounting happen here,
// once, so every drop is counted under exactly one reason.

#ifndef __FABRIC_INGRESS_STATS__
#define __FABRIC_INGRESS_STATS__

control IngressStats(inout local_metadata_t meta,
                     inout standard_metadata_t standard_metadata) {

    counter(PORT_COUNT, CounterType.packets_and_bytes) ingress_port_counter;
    counter(DROP_REASON_COUNT, CounterType.packets_and_bytes) drop_counter;

    apply {
        ingress_port_counter.count((bit<32>)standard_metadata.ingress_port);
        if (meta.fwd.drop_reason != DROP_NONE) {
            drop_counter.count((bit<32>)meta.fwd.drop_reason);
            mark_to_drop(standard_metadata);
        }
    }
}

#endif  // __FABRIC_INGRESS_STATS__
