// hasher.p4 -- Hasher on TNA: the one flow hash, CRC-32 of the same lookup
// struct as v1model's Hasher, through TNA's Hash extern.

#ifndef __FABRIC_TNA_HASHER__
#define __FABRIC_TNA_HASHER__

control Hasher(inout local_metadata_t meta) {
    Hash<flow_hash_t>(HashAlgorithm_t.CRC32) flow_hasher;

    apply {
        meta.flow_hash = flow_hasher.get({ meta.lookup.ip_src,
                                           meta.lookup.ip_dst,
                                           meta.lookup.ip_proto,
                                           meta.lookup.l4_sport,
                                           meta.lookup.l4_dport,
                                           meta.lookup.roce_qp });
    }
}

#endif  // __FABRIC_TNA_HASHER__
