// size.p4 -- table sizes, register sizes and index widths.
//
// Macros (not consts) because slices and annotations need literals.

#ifndef __FABRIC_SIZE__
#define __FABRIC_SIZE__

#define PORT_COUNT 512

#define MY_STATION_SIZE 64
#define ARP_RESPONDER_SIZE 1024
#define ROUTING_V4_SIZE 16384
#define ROUTING_V6_SIZE 4096

// Load balancing: a group has at most 32 member slots (its live mask is 32
// bits); stateful modes keep per-group state for group ids < LB_MAX_GROUPS.
#define LB_MAX_GROUPS 1024
#define LB_MEMBER_BITS 5
#define LB_MAX_MEMBERS 32
#define LB_MEMBER_SLOTS 32768    // LB_MAX_GROUPS * LB_MAX_MEMBERS
#define NEXT_HOP_MEMBER_SIZE 32768

// Flowlet state: flows share 2^FLOWLET_INDEX_BITS slots by flow hash.
#define FLOWLET_INDEX_BITS 12
#define FLOWLET_SLOTS 4096

// CNP rate limiter: flows share 2^CNP_INDEX_BITS slots by flow hash.
#define CNP_INDEX_BITS 12
#define CNP_SLOTS 4096

#define DROP_REASON_COUNT 16
#define DROP_REPORT_SIZE 16
#define INT_WATCHLIST_SIZE 1024

// Longest INT metadata stack the parser accepts: the shim length is 8 bits
// of 4-byte words, 4 of which are the shim and INT-MD header.
#define INT_STACK_MAX_BITS 8032

#endif  // __FABRIC_SIZE__
