// routing.p4 -- Routing on TNA: the same tables, keys and actions as the
// v1model Routing (../../include/routing.p4), so the controller's route and
// my_station intents are unchanged. Differences: the punt port is written to
// the traffic manager metadata, and the IPv4 checksum is not verified in
// ingress (TNA verifies with a parser Checksum extern; not wired yet).

#ifndef __FABRIC_TNA_ROUTING__
#define __FABRIC_TNA_ROUTING__

control Routing(inout headers_t hdr,
                inout local_metadata_t meta,
                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    action set_routable() {
    }

    action not_router_mac() {
        meta.fwd.drop_reason = DROP_NOT_ROUTER_MAC;
    }

    table my_station {
        key = {
            hdr.ethernet.dst_addr: exact @name("eth_dst");
        }
        actions = {
            set_routable;
            @defaultonly not_router_mac;
        }
        const default_action = not_router_mac();
        size = MY_STATION_SIZE;
    }

    action set_next_hop_group(group_id_t group_id) {
        meta.fwd.group_id = group_id;
        meta.fwd.routed = 1;
    }

    action punt_to_cpu() {
        ig_tm_md.ucast_egress_port = CPU_PORT;
        meta.fwd.to_cpu = 1;
    }

    action drop_route() {
        meta.fwd.drop_reason = DROP_ROUTE_BLACKHOLE;
    }

    action route_miss() {
        meta.fwd.drop_reason = DROP_NO_ROUTE;
    }

    table routing_v4 {
        key = {
            hdr.ipv4.dst_addr: lpm @name("ipv4_dst");
        }
        actions = {
            set_next_hop_group;
            punt_to_cpu;
            drop_route;
            @defaultonly route_miss;
        }
        const default_action = route_miss();
        size = ROUTING_V4_SIZE;
    }

    table routing_v6 {
        key = {
            hdr.ipv6.dst_addr: lpm @name("ipv6_dst");
        }
        actions = {
            set_next_hop_group;
            punt_to_cpu;
            drop_route;
            @defaultonly route_miss;
        }
        const default_action = route_miss();
        size = ROUTING_V6_SIZE;
    }

    @hidden
    action pop_vlan() {
        hdr.ethernet.ether_type = hdr.vlan_tag.ether_type;
        hdr.vlan_tag.setInvalid();
    }

    apply {
        if (meta.fwd.from_cpu == 1 || hdr.arp.isValid()) {
            return;
        }
        if (!hdr.ipv4.isValid() && !hdr.ipv6.isValid()) {
            meta.fwd.drop_reason = DROP_UNKNOWN_L3;
            return;
        }
        my_station.apply();
        if (meta.fwd.drop_reason != DROP_NONE) {
            return;
        }
        if (hdr.ipv4.isValid()) {
            if (hdr.ipv4.ihl != IPV4_IHL_MIN) {
                meta.fwd.drop_reason = DROP_IPV4_OPTIONS;
            } else {
                routing_v4.apply();
            }
        } else {
            routing_v6.apply();
        }
        if (meta.fwd.routed == 1) {
            if (hdr.vlan_tag.isValid()) {
                pop_vlan();
            }
            if (hdr.ipv4.isValid()) {
                if (hdr.ipv4.ttl <= 1) {
                    meta.fwd.drop_reason = DROP_TTL_EXPIRED;
                    meta.fwd.routed = 0;
                } else {
                    hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
                }
            } else {
                if (hdr.ipv6.hop_limit <= 1) {
                    meta.fwd.drop_reason = DROP_TTL_EXPIRED;
                    meta.fwd.routed = 0;
                } else {
                    hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 1;
                }
            }
        }
    }
}

#endif  // __FABRIC_TNA_ROUTING__
