// int_parser.p4 -- the parser states of the INT shim, INT-MD header and
// metadata stack behind UDP_PORT_INT, included into the body of both gresses'
// parsers (parser.p4), which declare the ParserCounter int_words_left and
// enter at parse_int. (A sub-parser would take hdr inout, which p4test flags
// as possibly uninitialised in a parser.)
//
// Tofino parsers have no varbit, so the stack is parsed a 32-bit word at a
// time into a fixed stack of INT_TNA_STACK_WORDS words, a ParserCounter
// loaded with the shim length minus the shim and INT-MD header counting the
// words down. A shim longer than the fixed stack holds is left unparsed, as
// payload (the BTH behind it is then not hashed, and the sink leaves INT on:
// int_egress.p4); TNA transit hops never grow a stack that far. Then the BTH,
// when the shim keeps RoCEv2's port (the including parser's parse_bth), as the
// v1model parser does.

    state parse_int {
        pkt.extract(hdr.int_shim);
        transition select(hdr.int_shim.int_type) {
            INT_TYPE_MD: parse_int_md;
            default: accept;
        }
    }

    state parse_int_md {
        pkt.extract(hdr.int_md);
        transition select(hdr.int_shim.len) {
            INT_HEADER_WORDS: parse_behind_int;
            INT_HEADER_WORDS + 1 .. INT_HEADER_WORDS + INT_TNA_STACK_WORDS: start_stack;
            default: accept;
        }
    }

    state start_stack {
        int_words_left.set(hdr.int_shim.len);
        int_words_left.decrement(INT_HEADER_WORDS);
        transition parse_word;
    }

    state parse_word {
        pkt.extract(meta.int_words.next);
        int_words_left.decrement(1);
        transition select(int_words_left.is_zero()) {
            true: parse_behind_int;
            default: parse_word;
        }
    }

    state parse_behind_int {
        transition select(hdr.int_shim.npt, hdr.int_shim.npt_field) {
            (INT_NPT_UDP_PORT, UDP_PORT_ROCEV2): parse_bth;
            default: accept;
        }
    }

