/*
 * v1model.p4 -- the v1model architecture for the softswitch frontend.
 *
 * Written for softswitch.  v1model is the architecture of the BMv2
 * simple_switch target: a parser, a checksum-verification control, an
 * ingress pipeline, a traffic manager (not programmable), an egress
 * pipeline, a checksum-update control and a deparser.
 *
 * The declarations are kept source-compatible with the v1model.p4 of the
 * reference compiler, including its versioning: define V1MODEL_VERSION
 * (e.g. `#define V1MODEL_VERSION 20200408`) before including this file to
 * select a newer interface.  Without it the 20180101 interface is used,
 * where counter/meter/register indices are plain bit<32> values; from
 * 20200408 on, those externs take the index type as a type parameter and
 * port numbers use the PortId_t typedef.
 *
 * Behaviour notes below describe what softswitch does, which follows BMv2.
 */

#ifndef _V1_MODEL_P4_
#define _V1_MODEL_P4_

#include "core.p4"

#ifndef V1MODEL_VERSION
#define V1MODEL_VERSION 20180101
#endif

match_kind {
    /// Matches when lo <= key <= hi.
    range,
    /// Either matches the key exactly or matches anything (wildcard).
    optional,
    /// Key fields hashed by an action_selector to choose a group member.
    selector
}

/// The V1MODEL_VERSION this program was compiled against.
const bit<32> __v1model_version = V1MODEL_VERSION;

#if V1MODEL_VERSION >= 20200408
typedef bit<9>  PortId_t;
#endif

/// Per-packet intrinsic metadata shared with the target.
@metadata @name("standard_metadata")
struct standard_metadata_t {
#if V1MODEL_VERSION >= 20200408
    PortId_t    ingress_port;   // port the packet arrived on
    PortId_t    egress_spec;    // output port chosen by ingress (511 = drop)
    PortId_t    egress_port;    // actual output port, valid in egress
#else
    bit<9>      ingress_port;
    bit<9>      egress_spec;
    bit<9>      egress_port;
#endif
    bit<32>     instance_type;  // 0 normal, 1/2 ingress/egress clone,
                                // 4 recirculated, 5 replicated, 6 resubmitted
    bit<32>     packet_length;  // bytes, as received
    // Queueing information, filled in for the egress pipeline.  The
    // @alias names are the BMv2 internal field names.
    @alias("queueing_metadata.enq_timestamp")
    bit<32> enq_timestamp;      // microseconds, when the packet was enqueued
    @alias("queueing_metadata.enq_qdepth")
    bit<19> enq_qdepth;         // queue depth (packets) at enqueue
    @alias("queueing_metadata.deq_timedelta")
    bit<32> deq_timedelta;      // microseconds spent in the queue
    @alias("queueing_metadata.deq_qdepth")
    bit<19> deq_qdepth;         // queue depth (packets) at dequeue
    // Timestamps, in microseconds since the switch started.
    @alias("intrinsic_metadata.ingress_global_timestamp")
    bit<48> ingress_global_timestamp;
    @alias("intrinsic_metadata.egress_global_timestamp")
    bit<48> egress_global_timestamp;
    // Multicast group to replicate to at the end of ingress (0 = none).
    @alias("intrinsic_metadata.mcast_grp")
    bit<16> mcast_grp;
    // Replication id of this copy of a multicast packet.
    @alias("intrinsic_metadata.egress_rid")
    bit<16> egress_rid;
    // Set to 1 when a verify_checksum call found a mismatch.
    bit<1>  checksum_error;
    // Outcome of the parser (NoError when it reached `accept`).
    error parser_error;
    // Packet priority, selecting the egress queue when priority queues are on.
    @alias("intrinsic_metadata.priority")
    bit<3> priority;
}

enum CounterType {
    packets,
    bytes,
    packets_and_bytes
}

enum MeterType {
    packets,
    bytes
}

/// An array of `size` counters, indexed 0..size-1, that the data plane can
/// only increment (the control plane reads them).
extern counter
#if V1MODEL_VERSION >= 20200408
<I>
#endif
{
    counter(bit<32> size, CounterType type);

    /// Add this packet (and/or its length in bytes, per the CounterType) to
    /// counter `index`.  An index >= size updates nothing.
#if V1MODEL_VERSION >= 20200408
    void count(in I index);
#else
    void count(in bit<32> index);
#endif
}

/// One counter per entry of the table that names this object in its
/// `counters` property.  The entry that matched is counted automatically
/// each time the table is hit, whether or not count() is called.
extern direct_counter {
    direct_counter(CounterType type);
    /// Optional, has no additional effect.
    void count();
}

// Colour values written by meters.
#define V1MODEL_METER_COLOR_GREEN  0
#define V1MODEL_METER_COLOR_YELLOW 1
#define V1MODEL_METER_COLOR_RED    2

/// An array of `size` two-rate three-colour meters (RFC 2698), metering
/// packets or bytes.  Rates are configured by the control plane.
extern meter
#if V1MODEL_VERSION >= 20200408
<I>
#endif
{
    meter(bit<32> size, MeterType type);

    /// Run meter `index` for this packet and write its colour to `result`:
    /// GREEN=0, YELLOW=1, RED=2 (an unconfigured meter gives GREEN).  T must
    /// be bit<W> with W >= 2.  An index >= size updates no meter and leaves
    /// `result` unchanged.
#if V1MODEL_VERSION >= 20200408
    void execute_meter<T>(in I index, out T result);
#else
    void execute_meter<T>(in bit<32> index, out T result);
#endif
}

/// One meter per entry of the table that names this object in its
/// `meters` property.  The matched entry's meter runs when the table is hit.
extern direct_meter<T> {
    direct_meter(MeterType type);
    /// Colour (GREEN=0, YELLOW=1, RED=2) computed for this packet by the
    /// meter of the matched entry.  Only meaningful in that table's actions.
    void read(out T result);
}

/// An array of `size` registers of type T that the data plane can read and
/// write; the values persist across packets and start at 0.
#if V1MODEL_VERSION >= 20200408
extern register<T, I>
#else
extern register<T>
#endif
{
    register(bit<32> size);

    /// Copy element `index` into `result`.  An index >= size leaves
    /// `result` unchanged.
    @noSideEffects
#if V1MODEL_VERSION >= 20200408
    void read(out T result, in I index);
#else
    void read(out T result, in bit<32> index);
#endif

    /// Store `value` into element `index`.  An index >= size does nothing.
    /// Register accesses made by one action are atomic with respect to
    /// other packets.
#if V1MODEL_VERSION >= 20200408
    void write(in I index, in T value);
#else
    void write(in bit<32> index, in T value);
#endif
}

/// A table implementation whose entries refer to members of a shared pool
/// of `size` action instances (set as a table's `implementation`).
extern action_profile {
    action_profile(bit<32> size);
}

/// Write a uniformly random value in [lo, hi] (inclusive) to `result`.
/// lo and hi may be run-time values.  If lo > hi, `result` is left
/// unchanged.  T must be bit<W>.
extern void random<T>(out T result, in T lo, in T hi);

/// Send `data` (usually a struct of fields) to the control plane as a
/// digest message.  The values are captured at the time of the call.
/// `receiver` is ignored by BMv2-style targets (historically 1024).
extern void digest<T>(in bit<32> receiver, in T data);

enum HashAlgorithm {
    crc32,
    crc32_custom,
    crc16,
    crc16_custom,
    random,
    identity,
    csum16,
    xor16
}

/// Old form, kept for compatibility: drops the packet via the implicit
/// standard_metadata.
@deprecated("Please use mark_to_drop(standard_metadata) instead.")
extern void mark_to_drop();

/// Mark the packet to be dropped: sets egress_spec to the drop port (511)
/// and mcast_grp to 0.  Nothing else happens immediately; later code may
/// overwrite those fields and so cancel the drop.  In egress, a packet whose
/// egress_spec is the drop port at the end of the pipeline is dropped.
@pure
extern void mark_to_drop(inout standard_metadata_t standard_metadata);

/// Hash `data` (a tuple or struct of bit<W>/int<W>/varbit fields) with
/// `algo`, giving H, and write base + (H % max) to `result`, truncated to
/// its width.  When max == 0 the result is base.  base and max may be
/// run-time values and max need not be a power of two.
@pure
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);

/// A table implementation like action_profile in which an entry refers to a
/// group of members; the member is chosen by hashing the table's `selector`
/// key fields with `algorithm`, keeping `outputWidth` bits of the hash.
extern action_selector {
    action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);
}

/// Kind of clone: ingress-to-egress or egress-to-egress.
enum CloneType {
    I2E,
    E2E
}

/// Obsolete checksum unit; get() returns the 16-bit ones'-complement
/// checksum of `data`.
@deprecated("Please use verify_checksum/update_checksum instead.")
extern Checksum16 {
    Checksum16();
    bit<16> get<D>(in D data);
}

/// Used in the VerifyChecksum control.  If `condition` is true, compute the
/// checksum of `data` (a tuple of bit<W>/int<W>/varbit fields whose total
/// size is a multiple of O's width) with `algo` (a compile-time constant)
/// and compare it to `checksum`; on mismatch set
/// standard_metadata.checksum_error to 1.  A false condition always passes.
extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

/// Used in the ComputeChecksum control.  If `condition` is true, overwrite
/// `checksum` with the checksum of `data` computed with `algo`; otherwise
/// leave it unchanged.
@pure
extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/// Like verify_checksum, but the payload (every byte the parser did not
/// extract) is appended to `data` before computing the checksum.
extern void verify_checksum_with_payload<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

/// Like update_checksum, but the payload (every byte the parser did not
/// extract) is appended to `data` before computing the checksum.
@noSideEffects
extern void update_checksum_with_payload<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/// Request a clone of the packet to the clone session `session`.  I2E (in
/// ingress) clones the packet as it arrived at ingress into egress; E2E (in
/// egress) clones the packet as deparsed at the end of egress.  The copy
/// has no user metadata preserved.  If called several times, the last call
/// of the pipeline wins.
extern void clone(in CloneType type, in bit<32> session);

/// Old form of resubmit_preserving_field_list.
@deprecated("Please use 'resubmit_preserving_field_list' instead")
extern void resubmit<T>(in T data);

/// Called in ingress: at the end of ingress, send the original packet back
/// to the start of the parser instead of to egress.  User metadata fields
/// annotated @field_list(index) keep their values at the end of ingress;
/// all others are reset.  The last call wins.
extern void resubmit_preserving_field_list(bit<8> index);

/// Old form of recirculate_preserving_field_list.
@deprecated("Please use 'recirculate_preserving_field_list' instead")
extern void recirculate<T>(in T data);

/// Called in egress: after deparsing, feed the outgoing packet back to the
/// start of the parser instead of transmitting it.  User metadata fields
/// annotated @field_list(index) keep their values at the end of egress;
/// all others are reset.  The last call wins.
extern void recirculate_preserving_field_list(bit<8> index);

/// Old form of clone_preserving_field_list.
@deprecated("Please use 'clone_preserving_field_list' instead")
extern void clone3<T>(in CloneType type, in bit<32> session, in T data);

/// Like clone(), but user metadata fields annotated @field_list(index)
/// are preserved in the copy (with their values at the end of the
/// pipeline that cloned).  The last call wins.
extern void clone_preserving_field_list(in CloneType type, in bit<32> session, bit<8> index);

/// Transmit at most `length` bytes of the packet (headers included); longer
/// packets are cut at the end of egress.
extern void truncate(in bit<32> length);

/// Run-time check: if `check` is false, report the failure with its source
/// location and stop the switch (BMv2 aborts).
extern void assert(in bool check);

/// Like assert() at run time; formal tools may take `check` as a given.
extern void assume(in bool check);

/// Write `msg` to the switch log.  In the second form each `{}` in `msg` is
/// replaced by the next element of the tuple `data`, printed in decimal.
extern void log_msg(string msg);
extern void log_msg<T>(string msg, in T data);

// Programmable blocks.  The parameter name standard_metadata is reserved.

/// Parses the packet into `parsedHdr`.  Extra user metadata comes in `meta`.
/// Parser errors are recorded in standard_metadata.parser_error and do not
/// drop the packet.
parser Parser<H, M>(packet_in b,
                    out H parsedHdr,
                    inout M meta,
                    inout standard_metadata_t standard_metadata);

/// Checks checksums (with verify_checksum*) after parsing.
control VerifyChecksum<H, M>(inout H hdr,
                             inout M meta);

/// Ingress pipeline: decides egress_spec / mcast_grp, drops, clones, ...
@pipeline
control Ingress<H, M>(inout H hdr,
                      inout M meta,
                      inout standard_metadata_t standard_metadata);

/// Egress pipeline: runs once per outgoing copy, with egress_port set.
@pipeline
control Egress<H, M>(inout H hdr,
                     inout M meta,
                     inout standard_metadata_t standard_metadata);

/// Recomputes checksums (with update_checksum*) before deparsing.
control ComputeChecksum<H, M>(inout H hdr,
                              inout M meta);

/// Serialises the headers in front of the unparsed payload.
@deparser
control Deparser<H>(packet_out b, in H hdr);

/// The top-level package; a program instantiates it as `main`.
package V1Switch<H, M>(Parser<H, M> p,
                       VerifyChecksum<H, M> vr,
                       Ingress<H, M> ig,
                       Egress<H, M> eg,
                       ComputeChecksum<H, M> ck,
                       Deparser<H> dep
                       );

#endif  /* _V1_MODEL_P4_ */
