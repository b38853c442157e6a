// Structured annotations (@name[...]) in every place P4Info keeps them: expression lists
// and key=value pairs evaluated at compile time (literals, operators, constants in scope).
#include <core.p4>
#include <v1model.p4>

const int HOPS = 7;
const bool STRICT = true;
@hidden typedef bit<8> hop_t;
@Units["ns"] type bit<16> delay_t;

@controller_header("packet_in")
header packet_in_t {
    @Meta["in port", 3] bit<9> ingress_port;
    bit<7> pad;
}
header h_t { hop_t a; bit<8> b; delay_t d; }
struct headers_t { packet_in_t pin; h_t h; }
struct metadata_t { }

parser P(packet_in packet, out headers_t hdr, inout metadata_t meta,
         inout standard_metadata_t sm) {
    @Set[HOPS] value_set<bit<8>>(4) vs;
    state start {
        packet.extract(hdr.h);
        transition select(hdr.h.a) { vs: accept; default: accept; }
    }
}

control VC(inout headers_t hdr, inout metadata_t meta) { apply { } }

control I(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    const int LOCAL = 40;
    @Reg[LOCAL + 2, "r"] register<bit<8>>(16) r;
    @Cnt[k="a\"b"] counter(8, CounterType.packets) c;
    @Act[-5, 0x10, 1 << 3, (2 + 3) * 4, 10 / 3, 10 % 3, 7 - 9]
    action fwd(@Param[k="v",] bit<9> port, delay_t d) {
        sm.egress_spec = port;
        hdr.h.d = d;
    }
    @empty[]
    @Str["ab", "c"]
    @Logic[true && false, true || false, !true, 3 > 2, 3 <= 2, 1 != 1, STRICT]
    @Bits[5 & 3, 5 | 3, 5 ^ 3, 8w1 == 8w1, 4w15 + 1 == 0]
    @Kv[x=1, y="two", z=false, w=HOPS > 5 ? "many" : "few"]
    table t {
        key = { hdr.h.a: exact @Field[1]; }
        actions = { @Ref["r"] fwd; NoAction; }
        default_action = NoAction;
    }
    apply {
        t.apply();
        r.write(0, 1);
        c.count(0);
    }
}

control E(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply { }
}
control C(inout headers_t hdr, inout metadata_t meta) { apply { } }
control D(packet_out packet, in headers_t hdr) { apply { packet.emit(hdr); } }

@Pkg[1 < 2 ? "yes" : "no"]
V1Switch(P(), VC(), I(), E(), C(), D()) main;
