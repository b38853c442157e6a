// int_ingress.p4 -- IntIngress on TNA: which flows get INT, and where it ends.
//
// The v1model tables (int_watchlist, int_sink_ports) with their names, keys and
// actions. TNA gives egress fresh metadata, so what egress needs -- source and
// sink flags, hop budget, instructions, the ports and the ingress timestamp --
// travels in an int_bridged_h behind the bridged header of every packet that is
// a source or carries INT. The sink's report copy is an I2E mirror to the
// collector's session (INT_REPORT_SESSION, as v1model's clone) whose mirror
// header is the same int_bridged_h, marked INT_REPORT_KIND: the copy leaves
// before egress strips INT from the original, runs source and transit like it,
// and becomes the report (int_egress.p4).

#ifndef __FABRIC_TNA_INT_INGRESS__
#define __FABRIC_TNA_INT_INGRESS__

control IntIngress(inout headers_t hdr,
                   inout tna_metadata_t meta,
                   in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                   inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                   in ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    action mark_int_source(bit<8> max_hops, bit<16> instructions) {
        meta.fab.int_source = 1;
        meta.fab.int_max_hops = max_hops;
        meta.fab.int_instructions = instructions;
    }

    action no_int_source() {
    }

    table int_watchlist {
        key = {
            meta.fab.lookup.ip_src: ternary @name("ip_src");
            meta.fab.lookup.ip_dst: ternary @name("ip_dst");
            meta.fab.lookup.ip_proto: ternary @name("ip_proto");
            meta.fab.lookup.l4_sport: ternary @name("l4_sport");
            meta.fab.lookup.l4_dport: ternary @name("l4_dport");
        }
        actions = {
            mark_int_source;
            @defaultonly no_int_source;
        }
        const default_action = no_int_source();
        size = INT_WATCHLIST_SIZE;
    }

    action mark_int_sink() {
        meta.fab.int_sink = 1;
    }

    action no_int_sink() {
    }

    table int_sink_ports {
        key = {
            ig_tm_md.ucast_egress_port: exact @name("eg_port");
        }
        actions = {
            mark_int_sink;
            @defaultonly no_int_sink;
        }
        const default_action = no_int_sink();
        size = PORT_COUNT;
    }

    apply {
        if (meta.fab.fwd.routed == 0 || meta.fab.fwd.drop_reason != DROP_NONE
                || meta.fab.congestion.trimmed == 1 || !hdr.udp.isValid()) {
            return;
        }
        if (!hdr.int_shim.isValid()) {
            int_watchlist.apply();
        }
        int_sink_ports.apply();
        if (meta.fab.int_source == 0 && !hdr.int_md.isValid()) {
            return;  // nothing for INT egress to do
        }
        meta.bridged.has_int = 1;
        meta.int_bridged.setValid();
        meta.int_bridged.kind = 0;
        meta.int_bridged._pad0 = 0;
        meta.int_bridged.source = meta.fab.int_source;
        meta.int_bridged.sink = meta.fab.int_sink;
        meta.int_bridged.ingress_port = meta.bridged.ingress_port;
        meta.int_bridged.egress_port = ig_tm_md.ucast_egress_port;
        meta.int_bridged._pad1 = 0;
        meta.int_bridged.max_hops = meta.fab.int_max_hops;
        meta.int_bridged.instructions = meta.fab.int_instructions;
        meta.int_bridged.ingress_tstamp = ig_prsr_md.global_tstamp;
        if (meta.fab.int_sink == 1) {
            meta.int_mirror = meta.int_bridged;
            meta.int_mirror.kind = INT_REPORT_KIND;
            meta.int_mirror.sink = 0;  // the copy is reported, not stripped
            ig_dprsr_md.mirror_type = MIRROR_TYPE_INT_REPORT;
        }
    }
}

#endif  // __FABRIC_TNA_INT_INGRESS__
