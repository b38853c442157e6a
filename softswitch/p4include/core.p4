/*
 * core.p4 -- P4_16 core library for the softswitch frontend.
 *
 * Written for softswitch from the P4_16 language specification.  It
 * declares the constructs every P4_16 program may use regardless of the
 * target architecture.  The declarations are kept source-compatible with
 * the core library shipped with the reference compiler, so programs see
 * the same names, signatures and enum ordering.
 */

#ifndef _CORE_P4_
#define _CORE_P4_

/// Built-in error codes.  Programs may add more with their own
/// `error { ... }` declarations; the declarations are merged.
error {
    NoError,              /// Nothing went wrong.
    PacketTooShort,       /// extract/lookahead needed more bits than remain.
    NoMatch,              /// No case of a `select` expression applied.
    StackOutOfBounds,     /// Header stack accessed past its size.
    HeaderTooShort,       /// A varbit extraction asked for too many bits.
    ParserTimeout,        /// The parser ran longer than the target allows.
    ParserInvalidArgument /// A parser operation got a value the target
                          /// cannot handle (e.g. a misaligned advance).
}

/// The packet being parsed.  Only the parser may use it.
extern packet_in {
    /// Fill the fixed-size header `hdr` from the next bits of the packet,
    /// mark it valid and move past those bits.  Fails with PacketTooShort
    /// if the packet is too short, or StackOutOfBounds when extracting
    /// into `stack.next` of a full header stack.
    void extract<T>(out T hdr);
    /// Same for a header that has exactly one varbit field; that field
    /// receives `variableFieldSizeInBits` bits.  Additionally fails with
    /// HeaderTooShort if that size exceeds the varbit's maximum width.
    void extract<T>(out T variableSizeHeader,
                    in bit<32> variableFieldSizeInBits);
    /// Peek at the next bits as a value of type T, without consuming them.
    T lookahead<T>();
    /// Skip `sizeInBits` bits of the packet.
    void advance(in bit<32> sizeInBits);
    /// Total length of the packet in bytes (not available on every target).
    bit<32> length();
}

/// The packet being assembled by a deparser.
extern packet_out {
    /// Append `hdr` to the outgoing packet.  Invalid headers are skipped;
    /// stacks, unions and structs are emitted element by element in order.
    void emit<T>(in T hdr);
}

// Parser-only check: does nothing when `check` holds, otherwise records
// `toSignal` as the parser error and goes to the `reject` state.
extern void verify(in bool check, in error toSignal);

/// The action that does nothing; handy as a default table action.
@noWarn("unused")
action NoAction() {}

/// Match kinds every target understands.  Architectures may add their own.
match_kind {
    /// The key must equal the entry's value.
    exact,
    /// The key must equal the entry's value on the bits set in its mask.
    ternary,
    /// Longest-prefix match: the matching entry with the longest prefix wins.
    lpm
}

/// Compile-time assertion: if `check` is false, compilation stops and
/// `message` is reported.  Returns a bool so it can initialise a constant.
extern bool static_assert(bool check, string message);

/// Compile-time assertion with a default message.
extern bool static_assert(bool check);

#endif  /* _CORE_P4_ */
