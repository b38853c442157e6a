// hasher.p4 -- Hasher on TNA: the one flow hash, CRC-32 of the same lookup
// struct as v1model's Hasher, through TNA's Hash extern, and the ECMP hash:
// the flow hash rotated by the switch's ecmp_hash_bits (constant slices only,
// as v1model's; see p4src/include/hasher.p4 for why each tier rotates).

#ifndef __FABRIC_TNA_HASHER__
#define __FABRIC_TNA_HASHER__

control Hasher(inout local_metadata_t meta) {
    Hash<flow_hash_t>(HashAlgorithm_t.CRC32) flow_hasher;

    action rotate_0() {
        meta.ecmp_hash = meta.flow_hash;
    }

    action rotate_8() {
        meta.ecmp_hash = meta.flow_hash[7:0] ++ meta.flow_hash[31:8];
    }

    action rotate_16() {
        meta.ecmp_hash = meta.flow_hash[15:0] ++ meta.flow_hash[31:16];
    }

    action rotate_24() {
        meta.ecmp_hash = meta.flow_hash[23:0] ++ meta.flow_hash[31:24];
    }

    table ecmp_hash_bits {
        actions = {
            rotate_0;
            rotate_8;
            rotate_16;
            rotate_24;
        }
        default_action = rotate_0();
        size = 1;
    }

    apply {
        meta.flow_hash = flow_hasher.get({ meta.lookup.ip_src,
                                           meta.lookup.ip_dst,
                                           meta.lookup.ip_proto,
                                           meta.lookup.l4_sport,
                                           meta.lookup.l4_dport,
                                           meta.lookup.roce_qp });
        ecmp_hash_bits.apply();
    }
}

#endif  // __FABRIC_TNA_HASHER__
