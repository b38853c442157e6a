"""ptf_tests/compare_runs.py and the frame recorder: two runs' frames compared per test
and port, INT timing masked."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptf_tests.compare_runs import main, mask_int_report, mask_int_timing
from ptf_tests.lib.recorder import Recorder, read_recording


def record(path: Path, frames: list[tuple[int, bytes]]) -> None:
    rec = Recorder(path)
    for port, f in frames:
        rec.write(f, 0.0, 0, port)
    rec.save()


class Writer:
    def __init__(self) -> None:
        self.got: list[tuple[bytes, int | None]] = []

    def write(self, data: bytes, ts: float | None, device: int | None, port: int | None) -> None:
        self.got.append((data, port))


def test_recorder_keeps_frames_and_passes_them_on(tmp_path: Path) -> None:
    inner = Writer()
    rec = Recorder(tmp_path / "t.jsonl", inner)
    rec.write(b"\x01\x02", 1.0, 0, 3)
    rec.write(b"\x03", 2.0, 0, 1)
    rec.save()
    assert read_recording(tmp_path / "t.jsonl") == [(3, b"\x01\x02"), (1, b"\x03")]
    assert inner.got == [(b"\x01\x02", 3), (b"\x03", 1)]


def test_same_frames_in_another_order_agree_a_changed_byte_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    record(a / "routing.T.jsonl", [(1, b"\x01"), (2, b"\x02"), (2, b"\x03")])
    record(b / "routing.T.jsonl", [(2, b"\x03"), (1, b"\x01"), (2, b"\x02")])
    record(a / "ecmp.U.jsonl", [(2, b"\x05")])
    record(b / "ecmp.U.jsonl", [(3, b"\x05")])  # left by another port
    record(a / "ecn.V.jsonl", [(2, b"\x06")])  # not a deterministic module: ignored
    record(b / "ecn.V.jsonl", [(2, b"\x07")])
    assert main([str(a), str(b)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "ecmp.U: port 2: 1 vs 0 frames; first run only: 05",
        "routing.T: same",
        "1 of 2 tests byte-identical",
    ]
    assert main([str(a), str(b), "--modules", "routing"]) == 0


def int_frame(latency: int) -> bytes:
    """Ethernet/IPv4/UDP to port 5000, shim (7 words in all), INT-MD header (3 words per
    hop), one hop: switch id, ports, hop latency."""
    eth = bytes(12) + b"\x08\x00"
    ip = bytes([0x45, 0]) + bytes(7) + bytes([17]) + bytes(10)
    udp = (1234).to_bytes(2, "big") + (5000).to_bytes(2, "big") + bytes(4)
    shim = bytes([0x10, 7]) + (4791).to_bytes(2, "big")
    md = bytes([0x20, 0x00, 0x03, 0x05]) + bytes(8)
    hop = (9).to_bytes(4, "big") + (0x00010002).to_bytes(4, "big") + latency.to_bytes(4, "big")
    return eth + ip + udp + shim + md + hop + b"payload"


def test_int_timing_is_masked_switch_id_and_ports_are_not() -> None:
    a, b = int_frame(1000), int_frame(2345)
    assert a != b and mask_int_timing(a) == mask_int_timing(b)
    masked = mask_int_timing(a)
    assert masked.endswith(bytes(4) + b"payload") and len(masked) == len(a)
    other_switch = bytearray(int_frame(1000))
    other_switch[14 + 20 + 8 + 4 + 12 + 3] = 8  # switch id 9 -> 8
    assert mask_int_timing(bytes(other_switch)) != masked
    assert mask_int_timing(b"\x00" * 10) == b"\x00" * 10


def test_int_report_header_and_inner_timing_are_masked() -> None:
    outer = bytes(12) + b"\x08\x00" + bytes([0x45, 0]) + bytes(7) + bytes([17]) + bytes(10)
    outer += (40000).to_bytes(2, "big") + (32766).to_bytes(2, "big") + bytes(4)

    def report(seq: int, latency: int) -> bytes:
        return outer + seq.to_bytes(16, "big") + int_frame(latency)

    assert mask_int_report(report(1, 10)) == mask_int_report(report(2, 99))
    assert mask_int_report(report(1, 10)) != mask_int_report(outer + bytes(16) + b"other")
    assert mask_int_report(b"\x01\x02") == b"\x01\x02"
