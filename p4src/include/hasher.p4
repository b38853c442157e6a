// hasher.p4 -- Hasher: the one flow hash.
//
// CRC-32 of the lookup struct (5-tuple and RoCEv2 queue pair). Load
// balancing, flowlet and CNP state all index with this field; nothing else
// hashes the packet. The max of 2^32 keeps all 32 bits of the CRC.
//
// ECMP picks a member with `ecmp_hash`, the flow hash rotated right by 0, 8,
// 16 or 24 bits as the switch's `ecmp_hash_bits` default action says. Every
// switch computes the same CRC of the same fields, so without it a switch of
// the second tier would pick with the very bits the first tier used: all the
// flows an aggregation switch gets from one edge switch agree in those bits
// and leave by one member (hash polarisation; on a k=4 fat-tree two of the four
// cores carried nothing). The controller gives each tier its own rotation.
// A seed mixed into the CRC would not do: CRC is affine, so a seed only XORs
// a constant into the result and the members' shares stay as they were.

#ifndef __FABRIC_HASHER__
#define __FABRIC_HASHER__

control Hasher(inout local_metadata_t meta) {
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
        hash(meta.flow_hash, HashAlgorithm.crc32, (flow_hash_t)0,
             { meta.lookup.ip_src,
               meta.lookup.ip_dst,
               meta.lookup.ip_proto,
               meta.lookup.l4_sport,
               meta.lookup.l4_dport,
               meta.lookup.roce_qp },
             (bit<64>)0x100000000);
        ecmp_hash_bits.apply();
    }
}

#endif  // __FABRIC_HASHER__
