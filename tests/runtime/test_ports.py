"""Ports: in-process queues, pcap files (our writer and reader against scapy's), the
merge order of --use-files, and checksum completion for CHECKSUM_PARTIAL frames."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

import softswitch.ports as ports_module
from softswitch.ports import (
    CpuPort,
    PcapError,
    PcapFilePort,
    PcapRecord,
    PcapWriter,
    PortClosed,
    QueuePort,
    merge_pcaps,
    queue_link,
    read_pcap,
)
from softswitch.ports.ring import complete_checksum

scapy_all = pytest.importorskip("scapy.all", reason="scapy is a project dependency")

# explicit addresses: an Ether() without dst makes scapy resolve it with ARP on the network
MACS = {"dst": "02:00:00:00:00:02", "src": "02:00:00:00:00:01"}


def test_queue_port_feed_recv_send_take() -> None:
    p = QueuePort()
    p.feed(b"abc")
    assert p.recv(0) == b"abc"
    assert p.recv(0.01) is None
    p.send(b"xyz")
    assert p.take(0) == b"xyz" and p.take(0) is None
    p.close()
    with pytest.raises(PortClosed):
        p.recv(None)
    with pytest.raises(PortClosed):  # closed stays closed
        p.recv(0)


def test_queue_link_is_a_cable() -> None:
    a, b = queue_link()
    a.send(b"1")
    b.send(b"2")
    assert b.recv(0) == b"1" and a.recv(0) == b"2"


def test_cpu_port_calls_listeners_and_survives_a_failing_one() -> None:
    cpu = CpuPort()
    got: list[bytes] = []

    def bad(_d: bytes) -> None:
        raise RuntimeError("listener bug")

    cpu.add_listener(bad)
    cpu.add_listener(got.append)
    cpu.send(b"pkt")
    assert got == [b"pkt"]
    with pytest.raises(PortClosed):
        cpu.recv(0)


def test_pcap_writer_output_is_read_by_scapy(tmp_path: Path) -> None:
    out = tmp_path / "x.pcap"
    w = PcapWriter(out)
    frames = [
        bytes(scapy_all.Ether(**MACS) / scapy_all.IP() / scapy_all.UDP() / b"hi"),
        b"\x01" * 60,
    ]
    for i, f in enumerate(frames):
        w.write(f, ts_ns=1_700_000_000_000_000_000 + i * 1000)
    w.close()
    pkts = scapy_all.rdpcap(str(out))
    assert [bytes(p) for p in pkts] == frames
    assert [r.data for r in read_pcap(out)] == frames
    assert [r.ts_ns for r in read_pcap(out)] == [
        1_700_000_000_000_000_000,
        1_700_000_000_000_001_000,
    ]


def test_scapy_pcaps_are_read(tmp_path: Path) -> None:
    frames = [bytes(scapy_all.Ether(type=0x88B5, **MACS) / (bytes([i]) * 3)) for i in range(4)]
    f = tmp_path / "s.pcap"
    scapy_all.wrpcap(str(f), [scapy_all.Ether(x) for x in frames])
    assert [r.data for r in read_pcap(f)] == frames
    # nanosecond, big-endian files too
    big = tmp_path / "big.pcap"
    body = struct.pack(">IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1)
    body += struct.pack(">IIII", 5, 7, 3, 3) + b"abc"
    big.write_bytes(body)
    assert list(read_pcap(big)) == [PcapRecord(5_000_000_007, b"abc")]


def test_bad_and_pcapng_files_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "n.pcapng"
    f.write_bytes(b"\x0a\x0d\x0d\x0a" + bytes(40))
    with pytest.raises(PcapError, match="pcapng"):
        list(read_pcap(f))
    g = tmp_path / "junk.pcap"
    g.write_bytes(bytes(40))
    with pytest.raises(PcapError, match="not a pcap"):
        list(read_pcap(g))


def test_truncated_last_record_is_ignored(tmp_path: Path) -> None:
    f = tmp_path / "t.pcap"
    w = PcapWriter(f)
    w.write(b"full", ts_ns=0)
    w.write(b"cut-short", ts_ns=1000)
    w.close()
    f.write_bytes(f.read_bytes()[:-3])
    assert [r.data for r in read_pcap(f)] == [b"full"]


def test_records_across_read_chunks_are_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader takes the file in chunks; records split by a chunk boundary (header or
    body) come out whole, in order, and a truncated last record is still left out."""
    monkeypatch.setattr(ports_module, "_READ_CHUNK", 7)
    frames = [bytes([i]) * (1 + 5 * i) for i in range(12)]
    f = tmp_path / "c.pcap"
    w = PcapWriter(f)
    for i, data in enumerate(frames):
        w.write(data, ts_ns=i * 1000)
    w.close()
    assert [(r.ts_ns, r.data) for r in read_pcap(f)] == [
        (i * 1000, d) for i, d in enumerate(frames)
    ]
    f.write_bytes(f.read_bytes()[:-2])
    assert [r.data for r in read_pcap(f)] == frames[:-1]


def test_appended_frames_share_their_batch_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`append` reads the clock once per batch (between flushes) and keeps frames in memory
    until the flush; frames longer than the snap length are cut with their length kept."""
    clock = iter([5_000_001_000, 9_000_002_000])
    monkeypatch.setattr(ports_module.time, "time_ns", lambda: next(clock))
    out = tmp_path / "o.pcap"
    w = PcapWriter(out, snaplen=8)
    w.append(b"a" * 4)
    w.append(b"b" * 4)
    w.append(b"c" * 12)
    assert list(read_pcap(out)) == []  # nothing written before the flush
    w.flush()
    w.append(b"d" * 4)
    w.close()
    got = [(r.ts_ns, r.data) for r in read_pcap(out)]
    assert got == [
        (5_000_001_000, b"aaaa"),
        (5_000_001_000, b"bbbb"),
        (5_000_001_000, b"c" * 8),
        (9_000_002_000, b"dddd"),
    ]
    body = out.read_bytes()[24:]
    assert struct.unpack_from("<IIII", body, 2 * (16 + 4)) == (5, 1, 8, 12)
    with pytest.raises(OSError, match="closed"):
        w.append(b"e")


def test_merge_orders_by_timestamp_across_ports(tmp_path: Path) -> None:
    def write(name: str, items: list[tuple[int, bytes]]) -> Path:
        w = PcapWriter(tmp_path / name)
        for ts, data in items:
            w.write(data, ts_ns=ts * 1000)
        w.close()
        return tmp_path / name

    a = write("a.pcap", [(1, b"a1"), (5, b"a5"), (5, b"a5b")])
    b = write("b.pcap", [(0, b"b0"), (5, b"b5"), (9, b"b9")])
    got = list(merge_pcaps({3: a, 7: b}))
    # equal timestamps: the port listed first, then file order
    assert got == [(7, b"b0"), (3, b"a1"), (3, b"a5"), (3, b"a5b"), (7, b"b5"), (7, b"b9")]


def test_pcap_file_port(tmp_path: Path) -> None:
    src = tmp_path / "in.pcap"
    w = PcapWriter(src)
    w.write(b"one")
    w.write(b"two")
    w.close()
    p = PcapFilePort(tmp_path / "out.pcap", in_path=src)
    assert [p.recv(), p.recv()] == [b"one", b"two"]
    with pytest.raises(PortClosed):
        p.recv()
    p.send(b"sent")
    p.close()
    assert [r.data for r in read_pcap(tmp_path / "out.pcap")] == [b"sent"]
    with pytest.raises(PortClosed):
        PcapFilePort(tmp_path / "o2.pcap").recv()  # output only


@pytest.mark.parametrize("proto", ["udp", "tcp"])
def test_partial_checksum_is_completed_like_hardware(proto: str) -> None:
    """A CHECKSUM_PARTIAL frame holds the pseudo-header sum in its checksum field; the
    completed frame must carry the checksum scapy computes."""
    ip = scapy_all.IP(src="192.0.2.1", dst="192.0.2.2")
    l4 = scapy_all.UDP(sport=1, dport=2) if proto == "udp" else scapy_all.TCP(sport=1, dport=2)
    good = bytes(scapy_all.Ether(**MACS) / ip / l4 / (b"payload-odd" * 3))
    offset = 6 if proto == "udp" else 16
    start = 14 + 20
    l4len = len(good) - start
    pseudo = struct.pack(
        "!4s4sBBH",
        bytes([192, 0, 2, 1]),
        bytes([192, 0, 2, 2]),
        0,
        17 if proto == "udp" else 6,
        l4len,
    )
    s = sum(struct.unpack(f"!{len(pseudo) // 2}H", pseudo))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    partial = good[: start + offset] + struct.pack("!H", s) + good[start + offset + 2 :]
    assert partial != good
    assert complete_checksum(partial, start, offset) == good
