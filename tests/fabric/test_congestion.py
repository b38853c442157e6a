"""Congestion signalling: CNPs back to a RoCEv2 sender, and packet trimming.

Both read the queue depth egress last recorded for the chosen port. A burst of
background packets into port 2 (served at 1000 packets/s) and one service interval
leave that record at (burst - 2) packets."""

from __future__ import annotations

from dataclasses import replace

import pytest

from softswitch.program_info import CompiledProgram

from .fabric import Fabric
from .packets import ETH_IPV4, PROTO_UDP, Frame, bth, ethernet, ipv4, ipv4_header, route, udp

ROUTER = "00:00:00:00:aa:01"
NH = "00:00:00:00:02:02"
HOST = "00:00:00:00:01:01"


def congested(program: CompiledProgram, backlog: int = 10, **kw: int) -> Fabric:
    fab = Fabric(program, router_mac=ROUTER, **kw)
    fab.add_ecmp_route("10.0.2.0/24", 1, [2])
    fab.sw.tm.set_rate(port=2, pps=1000)
    for i in range(backlog):
        fab.inject(3, Frame(src="10.0.3.1", sport=i).bytes())
    fab.advance(1000)
    assert fab.extern("port_queue_depth").values[2] == backlog - 2
    return fab


# ------------------------------------------------------------------ CNP
def cnp_for(data: Frame, dscp: int) -> bytes:
    """The CNP a switch sends back for `data`, as IBTA Annex A17 lays it out."""
    body = bth(0x81, data.qp, psn=0, becn=1) + bytes(20)
    l4 = udp(data.sport, 4791, len(body)) + body
    l3 = ipv4(data.dst, data.src, PROTO_UDP, len(l4), ttl=64, dscp=dscp, ecn=0, ident=data.ident)
    return ethernet(data.smac, data.dmac, ETH_IPV4) + l3 + l4


def test_cnp_is_sent_back_bit_exact_and_rate_limited(program: CompiledProgram) -> None:
    fab = congested(program)
    fab.set_cnp(2, 5, 50, 48)
    fab.add_cnp_session(1)
    data = Frame(l4="roce", qp=0x123456, psn=77, ident=0x77, ecn=2, payload=bytes(200))
    fab.inject(1, data.bytes())
    out = fab.run_until(fab.clock.now_us())
    assert out == [(1, cnp_for(data, dscp=48))]
    assert ipv4_header(out[0][1])["checksum_ok"]
    # the same flow again within 50 us: no second CNP
    fab.clock.advance(20)
    fab.inject(1, replace(data, psn=78).bytes())
    assert fab.run_until(fab.clock.now_us()) == []
    # another flow is limited on its own
    other = replace(data, sport=999)
    fab.inject(1, other.bytes())
    assert fab.run_until(fab.clock.now_us()) == [(1, cnp_for(other, dscp=48))]
    fab.clock.advance(40)  # 60 us after the first CNP
    fab.inject(1, replace(data, psn=79).bytes())
    assert fab.run_until(fab.clock.now_us()) == [(1, cnp_for(data, dscp=48))]
    assert fab.extern("cnp_counter").packets[1] == 3


def test_no_cnp_below_threshold_or_for_non_roce(program: CompiledProgram) -> None:
    fab = congested(program)
    fab.set_cnp(2, 8, 50, 48)  # backlog is 8: not above
    fab.add_cnp_session(1)
    fab.inject(1, Frame(l4="roce").bytes())
    assert fab.run_until(fab.clock.now_us()) == []
    fab.table("cnp_config").clear()
    fab.set_cnp(2, 1, 50, 48)
    fab.inject(1, Frame(l4="udp").bytes())
    assert fab.run_until(fab.clock.now_us()) == []


# ------------------------------------------------------------------ trimming
def trimmed(f: Frame, dscp: int) -> bytes:
    """`f` routed and cut after its BTH, lengths fixed, DSCP set, UDP checksum zero."""
    body = bth(0x04, f.qp, f.psn)
    l4 = udp(f.sport, 4791, len(body)) + body
    l3 = ipv4(f.src, f.dst, PROTO_UDP, len(l4), ttl=f.ttl - 1, dscp=dscp, ecn=f.ecn, ident=f.ident)
    return ethernet(NH, ROUTER, ETH_IPV4) + l3 + l4


def test_trim_cuts_marks_and_jumps_the_queue(program: CompiledProgram) -> None:
    fab = congested(program, priority_queues=2)
    fab.set_trim(2, 4, 8, 1)
    data = Frame(
        l4="roce", qp=0x42, psn=9, ident=5, ecn=2, payload=bytes(1000), udp_checksum=0xBEEF
    )
    fab.inject(1, data.bytes())
    out = fab.advance(100_000)
    assert out[0] == (2, trimmed(data, dscp=8))  # next out of port 2, ahead of the backlog
    assert len(out) == 1 + 8
    assert fab.extern("trimmed_counter").packets[2] == 1


@pytest.mark.parametrize("extra", [8, 64])
def test_small_packet_jumps_the_queue_uncut(program: CompiledProgram, extra: int) -> None:
    """A RoCE ACK (BTH + AETH + ICRC: 8 bytes after the BTH) or anything up to 64 bytes
    after the headers a trim keeps is not cut above the threshold (cutting would lose its
    AETH): it leaves whole, DSCP kept, ahead of the backlog, and is not counted."""
    fab = congested(program, priority_queues=2)
    fab.set_trim(2, 4, 8, 1)
    ack = Frame(l4="roce", qp=0x43, psn=3, ident=6, payload=bytes(extra))
    fab.inject(1, ack.bytes())
    out = fab.advance(100_000)
    assert out[0] == (2, route(ack, ROUTER, NH).bytes())
    assert len(out) == 1 + 8
    assert fab.extern("trimmed_counter").packets[2] == 0


def test_one_byte_over_the_small_limit_is_cut(program: CompiledProgram) -> None:
    fab = congested(program, priority_queues=2)
    fab.set_trim(2, 4, 8, 1)
    data = Frame(l4="roce", qp=0x44, psn=4, ident=7, payload=bytes(65))
    fab.inject(1, data.bytes())
    assert fab.advance(100_000)[0] == (2, trimmed(data, dscp=8))
    assert fab.extern("trimmed_counter").packets[2] == 1


def test_no_trim_at_or_below_threshold(program: CompiledProgram) -> None:
    fab = congested(program, priority_queues=2)
    fab.set_trim(2, 8, 8, 1)
    data = Frame(l4="roce", payload=bytes(1000))
    fab.inject(1, data.bytes())
    out = fab.advance(100_000)
    assert out[-1] == (2, route(data, ROUTER, NH).bytes())


def test_trim_tcp_keeps_ip_and_tcp_headers(program: CompiledProgram) -> None:
    fab = congested(program, priority_queues=2)
    fab.set_trim(2, 0, 8, 1)
    data = Frame(l4="tcp", payload=bytes(500))
    fab.inject(1, data.bytes())
    got = fab.advance(100_000)[0][1]
    exp = route(replace(data, dscp=8, payload=b""), ROUTER, NH).bytes()
    assert got == exp and ipv4_header(got)["total_len"] == 40
