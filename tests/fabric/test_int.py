"""INT-MD over UDP across three switches: source (s1), transit (s2), sink (s3).

    h1 --1[s1]2-- 1[s2]2 --1[s3]2-- h2        collector on s3 port 3

The packets one switch sends are fed to the next; each switch has its own SimClock
(s1 at 1 ms, s2 at 2 ms, s3 at 3 ms) so timestamps tell the hops apart."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from controller.lb import IntCollector, IntWatch
from softswitch.program_info import CompiledProgram

from .fabric import Fabric
from .packets import Frame, ip_int, ipv4_header, route, with_udp_checksum

MACS = {1: "00:00:00:00:aa:01", 2: "00:00:00:00:aa:02", 3: "00:00:00:00:aa:03"}
H2 = "00:00:00:00:02:01"
COLLECTOR_MAC = "00:00:00:00:cc:cc"
ALL_SUPPORTED = 0xFF80  # bits 0-8
BASIC = 0xFC00  # bits 0-5: switch id, ports, latency, queue, ingress/egress timestamps
WORDS = {BASIC: 8, ALL_SUPPORTED: 12}


def switch(program: CompiledProgram, k: int, mtu: int = 1500) -> Fabric:
    fab = Fabric(program, router_mac=MACS[k], start_us=k * 1000)
    fab.add_route("10.0.2.0/24", 1)
    fab.add_group(1, "ecmp", 1)
    fab.add_member(1, 0, 2, MACS.get(k + 1, H2))
    for port in (1, 2):
        fab.enable_int(port, k, mtu)
    return fab


def chain(
    program: CompiledProgram, hops: int = 8, ins: int = BASIC, mtu2: int = 1500
) -> list[Fabric]:
    s1, s2, s3 = switch(program, 1), switch(program, 2, mtu2), switch(program, 3)
    s1.add_int_watch(IntWatch(ip_proto=17), hops, ins)
    s3.add_int_sink(2)
    s3.add_int_report(3, "10.0.0.3", IntCollector("10.0.0.100", COLLECTOR_MAC, src_port=40000))
    return [s1, s2, s3]


def through(switches: list[Fabric], data: bytes) -> dict[int, bytes]:
    """Send `data` into s1 port 1; return what the last switch sends, by port."""
    for sw in switches[:-1]:
        out = sw.send(1, data)
        assert [p for p, _ in out] == [2], out
        data = out[0][1]
    return dict(switches[-1].send(1, data))


@dataclass
class Report:
    outer_ip: dict[str, int]
    udp: tuple[int, int, int, int]
    ver: int
    seq: int
    node: int
    rep_type: int
    in_type: int
    rep_len: int
    md_len: int
    flags: int
    inner: bytes


def parse_report(b: bytes) -> Report:
    ip = ipv4_header(b)
    u = struct.unpack("!HHHH", b[34:42])
    w0, node = struct.unpack("!II", b[42:50])
    rt, rl, ml, fl = struct.unpack("!BBBB", b[50:54])
    return Report(ip, u, w0 >> 28, w0 & 0x3FFFFF, node, rt >> 4, rt & 15, rl, ml, fl >> 4, b[62:])


def hop_md(k: int, ingress_us: int, egress_us: int, occupancy: int = 0) -> bytes:
    """What switch k pushes for BASIC instructions (timestamps in ns)."""
    return struct.pack(
        "!IHHIIQQ",
        k,
        1,
        2,
        (egress_us - ingress_us) * 1000,
        occupancy,
        ingress_us * 1000,
        egress_us * 1000,
    )


def test_source_transit_sink_and_report(program: CompiledProgram) -> None:
    s1, s2, s3 = chain(program)
    # queue one background packet on s2 port 2 so the INT packet waits 1 ms there
    s2.add_route("10.0.9.0/24", 1)
    s2.sw.tm.set_rate(port=2, pps=1000)
    pkt = with_udp_checksum(Frame(dport=4444, payload=bytes(range(40))))
    out1 = s1.send(1, pkt.bytes())
    assert [p for p, _ in out1] == [2]
    s2.inject(3, Frame(dst="10.0.9.1", dmac=MACS[2]).bytes())
    s2.inject(1, out1[0][1])
    out2 = s2.advance(10_000)
    assert [p for p, _ in out2] == [2, 2]
    out3 = dict(s3.send(1, out2[1][1]))

    # the host gets exactly what was sent, three hops later (UDP checksum still valid)
    assert out3[2] == route(pkt, MACS[3], H2, hops=3).bytes()

    rep = parse_report(out3[3])
    assert rep.outer_ip["checksum_ok"] and rep.outer_ip["dst"] == ip_int("10.0.0.100")
    assert (rep.ver, rep.seq, rep.node, rep.rep_type, rep.in_type, rep.md_len) == (2, 0, 3, 1, 3, 0)
    inner = rep.inner
    assert rep.outer_ip["total_len"] == 20 + 8 + 20 + len(inner)
    assert rep.udp == (40000, 32766, 8 + 20 + len(inner), 0)
    assert rep.rep_len == 2 + (len(inner) + 3) // 4
    # inner: the packet as s3 received it, plus s3's own metadata
    ip = ipv4_header(inner)
    udp_len = 8 + 40 + 16 + 3 * 32
    assert ip["total_len"] == 20 + udp_len and ip["ttl"] == 62
    assert struct.unpack("!HHHH", inner[34:42]) == (
        1234,
        s3.c["UDP_PORT_INT"],
        udp_len,
        pkt.udp_checksum,
    )
    shim, md = inner[42:46], inner[46:58]
    assert shim == bytes([0x14, 4 + 3 * 8]) + struct.pack("!H", 4444)  # type 1, NPT 1, len, dport
    ver_flags, hop_ml, rhc, ins = struct.unpack("!HBBH", md[:6])
    assert (ver_flags >> 12, (ver_flags >> 9) & 7, hop_ml & 0x1F, rhc, ins) == (
        2,
        0,
        WORDS[BASIC],
        5,
        BASIC,
    )
    stack = inner[58 : 58 + 96]
    assert stack[:32] == hop_md(3, 3000, 3000)
    assert stack[32:64] == hop_md(2, 2000, 3000)  # waited behind the background packet
    assert stack[64:96] == hop_md(1, 1000, 1000)
    assert inner[58 + 96 :] == bytes(range(40))


def test_hop_budget_sets_e_and_stops_pushing(program: CompiledProgram) -> None:
    switches = chain(program, hops=2)
    out = through(switches, Frame().bytes())
    inner = parse_report(out[3]).inner
    assert inner[43] == 4 + 2 * 8  # two hops of metadata
    assert inner[46] & 0x04 and not inner[46] & 0x02  # E set, M clear
    assert inner[49] == 0  # remaining hop count
    assert struct.unpack("!I", inner[58:62])[0] == 2  # s3 added nothing
    assert out[2] == route(Frame(), MACS[3], H2, hops=3).bytes()


def test_mtu_sets_m_and_later_hops_still_push(program: CompiledProgram) -> None:
    pkt = Frame()
    ip_len_after_s1 = 20 + 8 + len(pkt.payload) + 16 + 32
    switches = chain(program, mtu2=ip_len_after_s1 + 31)
    out = through(switches, pkt.bytes())
    inner = parse_report(out[3]).inner
    assert inner[46] & 0x02  # M set by s2
    ids = [struct.unpack("!I", inner[58 + 32 * i : 62 + 32 * i])[0] for i in range(2)]
    assert ids == [3, 1] and inner[43] == 4 + 2 * 8
    assert out[2] == route(pkt, MACS[3], H2, hops=3).bytes()


def test_all_supported_instructions(program: CompiledProgram) -> None:
    switches = chain(program, ins=ALL_SUPPORTED)
    inner = parse_report(through(switches, Frame().bytes())[3]).inner
    assert inner[48] & 0x1F == WORDS[ALL_SUPPORTED] and inner[43] == 4 + 3 * 12
    hop3 = inner[58 : 58 + 48]
    assert hop3[32:40] == struct.pack("!II", 1, 2)  # level-2 port ids
    assert hop3[40:44] == bytes(4)  # txBytes: the port had sent nothing before
    assert hop3[44:48] == bytes(4)  # buffer id 0, occupancy 0


def tx_bytes_of(report: bytes) -> list[int]:
    """The tx utilization word (txBytes) of each hop of an ALL_SUPPORTED report, path
    order."""
    inner = parse_report(report).inner
    words = [struct.unpack("!I", inner[98 + 48 * i : 102 + 48 * i])[0] for i in range(3)]
    return words[::-1]


def test_tx_bytes_count_what_each_port_sent_before(program: CompiledProgram) -> None:
    """Each hop stamps the bytes its egress port had sent before the packet: the next
    packet's record is larger by exactly the frame that port sent, INT included; a
    packet to another port does not count; the sink's record is its host port's."""
    switches = chain(program, ins=ALL_SUPPORTED)
    s1, s2, s3 = switches
    sent: list[list[int]] = []  # per packet, the frame each switch sent toward h2
    records = []
    for i, size in enumerate((0, 100, 700)):
        data = Frame(sport=i, payload=bytes(size)).bytes()
        lens = []
        for sw in (s1, s2):
            ((port, data),) = sw.send(1, data)
            lens.append(len(data))
        out = dict(s3.send(1, data))
        lens.append(len(out[2]))
        sent.append(lens)
        records.append(tx_bytes_of(out[3]))
        if i == 0:
            s2.add_route("10.0.9.0/24", 1)  # s2 port 2 also carries an unwatched packet
            other = s2.send(1, Frame(dst="10.0.9.1", dmac=MACS[2]).bytes())
            extra = len(other[0][1])
    assert records[0] == [0, 0, 0]
    assert records[1] == [sent[0][0], sent[0][1] + extra, sent[0][2]]
    assert [b - a for a, b in zip(records[1], records[2], strict=True)] == sent[1]
    assert sent[1][0] > sent[1][2]  # s1 sent INT headers, s3 the stripped packet


def test_sequence_numbers_and_unwatched_flows(program: CompiledProgram) -> None:
    s1, s2, s3 = chain(program)
    seqs = [parse_report(through([s1, s2, s3], Frame(sport=i).bytes())[3]).seq for i in range(3)]
    assert seqs == [0, 1, 2]
    s1.table("int_watchlist").clear()
    out = through([s1, s2, s3], Frame().bytes())
    assert list(out) == [2]  # no INT, no report
    assert out[2] == route(Frame(), MACS[3], H2, hops=3).bytes()


def test_watch_a_source_port_range(program: CompiledProgram) -> None:
    """A masked source port watches a range: ports 0xC000-0xFFFF get INT, others not."""
    s1, s2, s3 = chain(program)
    s1.table("int_watchlist").clear()
    s1.add_int_watch(IntWatch(ip_proto=17, l4_sport=0xC000, l4_sport_mask=0xC000), 8, BASIC)
    assert 3 in through([s1, s2, s3], Frame(sport=0xC123).bytes())
    assert list(through([s1, s2, s3], Frame(sport=0x8123).bytes())) == [2]
