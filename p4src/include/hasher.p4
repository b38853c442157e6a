// hasher.p4 -- Hasher: the one flow hash.
//
// CRC-32 of the lookup struct (5-tuple and RoCEv2 queue pair). Load
// balancing, flowlet and CNP state all index with this field; nothing else
// hashes the packet. The max of 2^32 keeps all 32 bits of the CRC.
//
// ECMP's per-tier rotation of it is in load_balance.p4 (ecmp_hash_bits).

#ifndef __FABRIC_HASHER__
#define __FABRIC_HASHER__

control Hasher(inout local_metadata_t meta) {
    apply {
        hash(meta.flow_hash, HashAlgorithm.crc32, (flow_hash_t)0,
             { meta.lookup.ip_src,
               meta.lookup.ip_dst,
               meta.lookup.ip_proto,
               meta.lookup.l4_sport,
               meta.lookup.l4_dport,
               meta.lookup.roce_qp },
             (bit<64>)0x100000000);
    }
}

#endif  // __FABRIC_HASHER__
