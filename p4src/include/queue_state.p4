// queue_state.p4 -- the egress queue depth of every port, as egress last saw it.
//
// Written by egress (EgressStats) for each packet it sends from the data queue
// (DATA_QUEUE_PRIORITY; trimmed packets in a priority queue do not), read by ingress:
// adaptive load balancing compares ports with it, trimming and CNPs trigger on
// it. It is a top-level instance because ingress and egress share it; it is
// data-plane state only (the controller never writes it). The value is
// deq_qdepth: the packets still queued behind the one leaving, the freshest
// view of the backlog a new arrival would join.

#ifndef __FABRIC_QUEUE_STATE__
#define __FABRIC_QUEUE_STATE__

register<bit<32>>(PORT_COUNT) port_queue_depth;

#endif  // __FABRIC_QUEUE_STATE__
