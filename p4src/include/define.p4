// define.p4 -- types and constants of the fabric program.
//
// Protocol numbers and encodings only: every threshold, mode and address the
// controller may want to change is a table entry, never a constant here
// (BMv2's P4Runtime server refuses register and value-set writes, so tables
// are the only run-time knobs that work on every target).

#ifndef __FABRIC_DEFINE__
#define __FABRIC_DEFINE__

typedef bit<48>  mac_addr_t;
typedef bit<32>  ipv4_addr_t;
typedef bit<128> ipv6_addr_t;
typedef bit<9>   port_num_t;
typedef bit<16>  group_id_t;
typedef bit<8>   member_index_t;
typedef bit<32>  member_mask_t;   // one bit per member slot of a group
typedef bit<32>  flow_hash_t;
typedef bit<19>  qdepth_t;        // standard_metadata queue depths (packets)
typedef bit<8>   drop_reason_t;

// The CPU port. The parser must recognise packet-outs before any table runs,
// and BMv2's P4Runtime server cannot write parser value sets, so this is the
// simple_switch_grpc --cpu-port convention, overridable with -DCPU_PORT=N.
#ifndef CPU_PORT
#define CPU_PORT 255
#endif

// The egress queue data packets wait in: v1model's default priority, the lowest.
// Trimmed packets may be sent to a higher one (trim_config); port_queue_depth
// records this queue only, the backlog trimming, CNPs and adaptive balancing
// act on.
const bit<3> DATA_QUEUE_PRIORITY = 0;

// v1model's drop port: the egress_spec mark_to_drop sets (BMv2's default).
const port_num_t V1MODEL_DROP_PORT = 511;

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<16> ETHERTYPE_IPV6 = 0x86dd;
const bit<16> ETHERTYPE_ARP  = 0x0806;
const bit<16> ETHERTYPE_VLAN = 0x8100;

const bit<8> IP_PROTO_TCP = 6;
const bit<8> IP_PROTO_UDP = 17;

const bit<4>  IPV4_VERSION = 4;
const bit<4>  IPV4_IHL_MIN = 5;          // no options
const bit<16> IPV4_HDR_BYTES = 20;
const bit<16> IPV6_HDR_BYTES = 40;
const bit<16> ETH_HDR_BYTES = 14;
const bit<16> VLAN_HDR_BYTES = 4;
const bit<16> UDP_HDR_BYTES = 8;
const bit<16> BTH_HDR_BYTES = 12;
// trim.p4: a packet with at most this many bytes after the headers a trim keeps is not cut
const bit<16> TRIM_SMALL_BYTES = 64;
const bit<8>  DEFAULT_TTL = 64;

const bit<16> ARP_OPER_REQUEST = 1;
const bit<16> ARP_OPER_REPLY   = 2;

// ECN codepoints (RFC 3168)
const bit<2> ECN_NOT_ECT = 0;
const bit<2> ECN_CE      = 3;

// RoCEv2 (IBTA Annex A17)
const bit<16> UDP_PORT_ROCEV2 = 4791;
const bit<8>  BTH_OPCODE_CNP  = 0x81;
const bit<16> CNP_PAYLOAD_BYTES = 20;    // 16 reserved bytes and the ICRC

// INT-MD over UDP (INT specification v2.1, section 5.7).
const bit<16> UDP_PORT_INT = 5000;       // INT-domain UDP destination port
const bit<4>  INT_TYPE_MD = 1;
const bit<2>  INT_NPT_UDP_PORT = 1;      // shim keeps the original UDP dport
const bit<4>  INT_VERSION = 2;
const bit<8>  INT_HEADER_WORDS = 4;      // shim (1) and INT-MD header (3)
const bit<16> INT_HEADER_BYTES = 16;

// Telemetry Report v2.0
const bit<4>  REPORT_VERSION = 2;
const bit<4>  REPORT_TYPE_INT = 1;
const bit<4>  REPORT_IN_TYPE_ETHERNET = 3;
const bit<8>  REPORT_MAIN_WORDS = 2;     // individual report main contents
const bit<16> REPORT_HDR_BYTES = 20;     // group (8) and individual (12) headers
// Drop reports (INT-XD style): RepMdBits bit 1 (port ids) and bit 15 (queue id
// and drop reason), bit 0 being the most significant; two words of metadata.
const bit<16> REPORT_MD_DROP = 0x4001;
const bit<8>  REPORT_DROP_MD_WORDS = 2;
// Queue reports (congested queue, Q=1): bits 1 (port ids), 2 (hop latency) and
// 3 (queue id and occupancy); three words.
const bit<16> REPORT_MD_QUEUE = 0x7000;
const bit<8>  REPORT_QUEUE_MD_WORDS = 3;
// A drop or queue report keeps at most this many bytes of the packet.
const bit<16> DROP_REPORT_INNER_BYTES = 128;

// standard_metadata.instance_type values (BMv2 simple_switch)
const bit<32> PKT_INSTANCE_TYPE_NORMAL        = 0;
const bit<32> PKT_INSTANCE_TYPE_INGRESS_CLONE = 1;
const bit<32> PKT_INSTANCE_TYPE_EGRESS_CLONE  = 2;

// Clone sessions the controller configures (P4Runtime CloneSessionEntry).
const bit<32> INT_REPORT_SESSION = 1;    // -> the collector port
const bit<32> CNP_SESSION_BASE   = 1024; // 1024 + p -> port p (CNPs go back out of p)

// What an ingress clone becomes in egress (kept in a field list).
const bit<8> CLONE_NONE       = 0;
const bit<8> CLONE_INT_REPORT = 1;
const bit<8> CLONE_CNP        = 2;
const bit<8> CLONE_DROP_REPORT = 3;
const bit<8> CLONE_QUEUE_REPORT = 4;

// Field list of the user metadata preserved by clones (@field_list needs a
// literal, hence a macro).
#define FL_CLONE 1

// Drop reasons: index of drop_counter.
const drop_reason_t DROP_NONE           = 0;
const drop_reason_t DROP_NOT_ROUTER_MAC = 1;
const drop_reason_t DROP_NO_ROUTE       = 2;
const drop_reason_t DROP_TTL_EXPIRED    = 3;
const drop_reason_t DROP_GROUP_MISS     = 4;
const drop_reason_t DROP_NO_LIVE_MEMBER = 5;
const drop_reason_t DROP_MEMBER_MISS    = 6;
const drop_reason_t DROP_IPV4_CHECKSUM  = 7;
const drop_reason_t DROP_IPV4_OPTIONS   = 8;
const drop_reason_t DROP_ROUTE_BLACKHOLE = 9;
const drop_reason_t DROP_UNKNOWN_L3     = 10;

// INT instruction bitmap: bit 0 is the most significant bit (spec 5.8).
// Metadata words per hop for each supported instruction bit.

#endif  // __FABRIC_DEFINE__
