// headers.p4 -- packet headers, the parsed-header struct and user metadata.

#ifndef __FABRIC_HEADERS__
#define __FABRIC_HEADERS__

#include "define.p4"
#include "size.p4"

// ------------------------------------------------------------ controller I/O
// Prepended to packets sent to / received from the CPU port. Byte-aligned so
// that P4Runtime PacketIn/PacketOut metadata map to whole bytes.

@controller_header("packet_in")
header packet_in_header_t {
    port_num_t ingress_port;
    bit<7>     _pad;
}

@controller_header("packet_out")
header packet_out_header_t {
    port_num_t egress_port;
    bit<7>     _pad;
}

// ------------------------------------------------------------ L2 / L3 / L4

header ethernet_t {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
}

header vlan_tag_t {
    bit<3>  pcp;
    bit<1>  dei;
    bit<12> vlan_id;
    bit<16> ether_type;
}

header arp_t {
    bit<16>     hw_type;
    bit<16>     proto_type;
    bit<8>      hw_addr_len;
    bit<8>      proto_addr_len;
    bit<16>     opcode;
    mac_addr_t  sender_hw_addr;
    ipv4_addr_t sender_proto_addr;
    mac_addr_t  target_hw_addr;
    ipv4_addr_t target_proto_addr;
}

header ipv4_t {
    bit<4>      version;
    bit<4>      ihl;
    bit<6>      dscp;
    bit<2>      ecn;
    bit<16>     total_len;
    bit<16>     identification;
    bit<3>      flags;
    bit<13>     frag_offset;
    bit<8>      ttl;
    bit<8>      protocol;
    bit<16>     hdr_checksum;
    ipv4_addr_t src_addr;
    ipv4_addr_t dst_addr;
}

header ipv6_t {
    bit<4>      version;
    bit<6>      dscp;
    bit<2>      ecn;
    bit<20>     flow_label;
    bit<16>     payload_len;
    bit<8>      next_hdr;
    bit<8>      hop_limit;
    ipv6_addr_t src_addr;
    ipv6_addr_t dst_addr;
}

header tcp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<32> seq_no;
    bit<32> ack_no;
    bit<4>  data_offset;
    bit<4>  res;
    bit<8>  flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgent_ptr;
}

header udp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> len;
    bit<16> checksum;
}

// RoCEv2 base transport header (IBTA vol. 1, 9.2)
header bth_t {
    bit<8>  opcode;
    bit<1>  solicited_event;
    bit<1>  mig_req;
    bit<2>  pad_count;
    bit<4>  tver;
    bit<16> pkey;
    bit<1>  fecn;
    bit<1>  becn;
    bit<6>  resv6;
    bit<24> dest_qp;
    bit<1>  ack_req;
    bit<7>  resv7;
    bit<24> psn;
}

// Rest of a RoCEv2 CNP after its BTH: 16 reserved bytes and the ICRC.
header cnp_payload_t {
    bit<128> reserved;
    bit<32>  icrc;
}

// ------------------------------------------------------------ INT-MD v2.1

header int_shim_t {
    bit<4>  int_type;
    bit<2>  npt;
    bit<2>  rsvd;
    bit<8>  len;            // words: shim, INT-MD header and metadata stack
    bit<16> npt_field;      // NPT=1: the original UDP destination port
}

header int_md_t {
    bit<4>  ver;
    bit<1>  d;
    bit<1>  e;              // a hop could not add metadata: hop count exhausted
    bit<1>  m;              // a hop could not add metadata: MTU
    bit<12> rsvd;
    bit<5>  hop_ml;         // words of metadata per hop
    bit<8>  remaining_hop_cnt;
    bit<16> instructions;
    bit<16> domain_id;
    bit<16> ds_instructions;
    bit<16> ds_flags;
}

// Metadata pushed by earlier hops, carried through unchanged.
header int_stack_t {
    varbit<INT_STACK_MAX_BITS> data;
}

// This hop's metadata, one header per instruction bit, emitted in bit order.
header int_switch_id_t {
    bit<32> switch_id;
}

header int_port_ids_t {
    bit<16> ingress_port;
    bit<16> egress_port;
}

header int_hop_latency_t {
    bit<32> hop_latency;
}

header int_q_occupancy_t {
    bit<8>  q_id;
    bit<24> q_occupancy;
}

header int_ingress_tstamp_t {
    bit<64> ingress_tstamp;
}

header int_egress_tstamp_t {
    bit<64> egress_tstamp;
}

header int_l2_port_ids_t {
    bit<32> ingress_port;
    bit<32> egress_port;
}

header int_egress_tx_util_t {
    bit<32> tx_util;
}

header int_buffer_t {
    bit<8>  buffer_id;
    bit<24> buffer_occupancy;
}

// ------------------------------------------------------------ Telemetry Report v2.0

header report_group_t {
    bit<4>  ver;
    bit<6>  hw_id;
    bit<22> seq_no;
    bit<32> node_id;
}

header report_individual_t {
    bit<4>  rep_type;
    bit<4>  in_type;
    bit<8>  rep_len;        // words after this 4-byte header, inner packet included
    bit<8>  md_len;
    bit<1>  d;
    bit<1>  q;
    bit<1>  f;
    bit<1>  i;
    bit<4>  rsvd;
    bit<16> rep_md_bits;
    bit<16> domain_id;
    bit<16> ds_md_bits;
    bit<16> ds_md_status;
}

// Drop report metadata (RepMdBits bits 1 and 15).
header report_drop_md_t {
    bit<16> ingress_port;
    bit<16> egress_port;
    bit<8>  queue_id;
    bit<8>  drop_reason;
    bit<16> pad;
}

// Queue report metadata (RepMdBits bits 1, 2 and 3).
header report_queue_md_t {
    bit<16> ingress_port;
    bit<16> egress_port;
    bit<32> hop_latency;
    bit<8>  queue_id;
    bit<24> queue_occupancy;
}

struct headers_t {
    packet_out_header_t  packet_out;
    packet_in_header_t   packet_in;
    // telemetry report encapsulation (INT sink, drop and queue report clones only)
    ethernet_t           report_ethernet;
    ipv4_t               report_ipv4;
    udp_t                report_udp;
    report_group_t       report_group;
    report_individual_t  report_individual;
    report_drop_md_t     report_drop_md;
    report_queue_md_t    report_queue_md;
    // the packet
    ethernet_t           ethernet;
    vlan_tag_t           vlan_tag;
    arp_t                arp;
    ipv4_t               ipv4;
    ipv6_t               ipv6;
    tcp_t                tcp;
    udp_t                udp;
    int_shim_t           int_shim;
    int_md_t             int_md;
    int_switch_id_t      int_switch_id;
    int_port_ids_t       int_port_ids;
    int_hop_latency_t    int_hop_latency;
    int_q_occupancy_t    int_q_occupancy;
    int_ingress_tstamp_t int_ingress_tstamp;
    int_egress_tstamp_t  int_egress_tstamp;
    int_l2_port_ids_t    int_l2_port_ids;
    int_egress_tx_util_t int_egress_tx_util;
    int_buffer_t         int_buffer;
    int_stack_t          int_stack;
    bth_t                bth;
    cnp_payload_t        cnp_payload;
}

// ------------------------------------------------------------ metadata

// The flow as every later stage sees it, filled once (lookup_md_init.p4).
// IPv4 addresses sit in the low 32 bits; for INT packets the UDP destination
// port is the original one from the shim, so the hash is the same at every hop.
struct lookup_metadata_t {
    ipv6_addr_t ip_src;
    ipv6_addr_t ip_dst;
    bit<8>      ip_proto;
    bit<16>     l4_sport;
    bit<16>     l4_dport;
    bit<24>     roce_qp;
}

struct forwarding_metadata_t {
    bit<1>        from_cpu;     // packet-out: sent as the controller asked
    bit<1>        to_cpu;       // punted: gets a packet-in header in egress
    bit<1>        routed;       // a route chose a next-hop group
    group_id_t    group_id;
    drop_reason_t drop_reason;
}

struct lb_metadata_t {
    bit<8>         group_size;
    member_mask_t  live_members;
    bit<32>        gap_us;       // flowlet gap
    member_index_t member_index;
    bit<1>         member_found;
}

struct congestion_metadata_t {
    bit<1>  trimmed;
    bit<32> port_load;          // queue depth of egress_spec as egress last saw it
}

struct local_metadata_t {
    lookup_metadata_t     lookup;
    flow_hash_t           flow_hash;
    flow_hash_t           ecmp_hash;  // flow_hash rotated as ecmp_hash_bits says
    forwarding_metadata_t fwd;
    lb_metadata_t         lb;
    congestion_metadata_t congestion;
    bit<32>               int_switch_id;   // egress only
    bit<1>                int_port_enabled;
    bit<16>               int_mtu;

    // Preserved across ingress clones (p4c's field lists take only scalar
    // fields at the top of the user metadata).
    @field_list(FL_CLONE) bit<8>     clone_kind;
    @field_list(FL_CLONE) bit<1>     int_source;
    @field_list(FL_CLONE) bit<1>     int_sink;
    @field_list(FL_CLONE) bit<8>     int_max_hops;
    @field_list(FL_CLONE) bit<16>    int_instructions;
    @field_list(FL_CLONE) port_num_t int_ingress_port;
    @field_list(FL_CLONE) port_num_t int_egress_port;
    @field_list(FL_CLONE) bit<48>    int_ingress_tstamp;
    @field_list(FL_CLONE) bit<6>     cnp_dscp;
    @field_list(FL_CLONE) drop_reason_t report_drop_reason;
    @field_list(FL_CLONE) bit<32>    report_node_id;
    @field_list(FL_CLONE) bit<32>    report_latency_ns;
    @field_list(FL_CLONE) bit<8>     report_queue_id;
    @field_list(FL_CLONE) bit<24>    report_queue_depth;
}

#endif  // __FABRIC_HEADERS__
