// int/int_ingress.p4 -- IntIngress: which flows get INT, and where it ends.
//
// Source: a UDP flow matching int_watchlist gets INT-MD headers in egress
// with the entry's hop budget and instruction bitmap.
// Sink: a packet leaving by a port in int_sink_ports (a host-facing port)
// leaves the INT domain. Its report needs the INT stack *and* this hop's
// metadata, but egress strips INT from the packet itself, and an egress clone
// would copy the stripped headers. So ingress clones the packet as it arrived
// (I2E) to the collector's session, preserving the ports and timestamp this
// hop reports; the clone runs source/transit in egress like the original
// would have, then gets the report encapsulation. The one cost: the clone's
// queue occupancy is the data port's last recorded depth, not its own.

#ifndef __FABRIC_INT_INGRESS__
#define __FABRIC_INT_INGRESS__

control IntIngress(inout headers_t hdr,
                   inout local_metadata_t meta,
                   inout standard_metadata_t standard_metadata) {

    action mark_int_source(bit<8> max_hops, bit<16> instructions) {
        meta.int_source = 1;
        meta.int_max_hops = max_hops;
        meta.int_instructions = instructions;
    }

    action no_int_source() {
    }

    table int_watchlist {
        key = {
            meta.lookup.ip_src: ternary @name("ip_src");
            meta.lookup.ip_dst: ternary @name("ip_dst");
            meta.lookup.ip_proto: ternary @name("ip_proto");
            meta.lookup.l4_sport: ternary @name("l4_sport");
            meta.lookup.l4_dport: ternary @name("l4_dport");
        }
        actions = {
            mark_int_source;
            @defaultonly no_int_source;
        }
        const default_action = no_int_source();
        size = INT_WATCHLIST_SIZE;
    }

    action mark_int_sink() {
        meta.int_sink = 1;
    }

    action no_int_sink() {
    }

    table int_sink_ports {
        key = {
            standard_metadata.egress_spec: exact @name("eg_port");
        }
        actions = {
            mark_int_sink;
            @defaultonly no_int_sink;
        }
        const default_action = no_int_sink();
        size = PORT_COUNT;
    }

    apply {
        if (meta.fwd.routed == 0 || meta.fwd.drop_reason != DROP_NONE
                || meta.congestion.trimmed == 1 || !hdr.udp.isValid()) {
            return;
        }
        meta.int_ingress_port = standard_metadata.ingress_port;
        meta.int_egress_port = standard_metadata.egress_spec;
        meta.int_ingress_tstamp = standard_metadata.ingress_global_timestamp;
        if (!hdr.int_shim.isValid()) {
            int_watchlist.apply();
        }
        int_sink_ports.apply();
        if (meta.int_sink == 1 && (hdr.int_md.isValid() || meta.int_source == 1)) {
            meta.clone_kind = CLONE_INT_REPORT;
            clone_preserving_field_list(CloneType.I2E, INT_REPORT_SESSION, FL_CLONE);
        }
    }
}

#endif  // __FABRIC_INT_INGRESS__
