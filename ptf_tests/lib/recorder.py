"""Record every frame a PTF test sends and receives, for comparing two targets.

PTF's dataplane hands each frame it sends or receives to its pcap writer
(`dataplane.pcap_writer.write(data, timestamp, device, port)`); `Recorder` takes that
place for one test, passes the frames on to the writer it replaced (PTF's own pcap keeps
working) and at the end writes them as JSON lines, `{"port": P, "frame": "<hex>"}`, in
the order the dataplane saw them. `ptf_tests/compare_runs.py` compares two such
recordings.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

__all__ = ["Recorder", "read_recording"]


class Recorder:
    """A stand-in for PTF's pcap writer that keeps (port, frame) pairs."""

    def __init__(self, path: Path, passthrough: Any = None) -> None:
        self.path = path
        self.passthrough = passthrough
        self.frames: list[tuple[int, bytes]] = []
        self._lock = threading.Lock()

    def write(
        self,
        data: bytes,
        timestamp: float | None = None,
        device: int | None = None,
        port: int | None = None,
    ) -> None:
        with self._lock:
            self.frames.append((int(port or 0), bytes(data)))
        if self.passthrough is not None:
            self.passthrough.write(data, timestamp, device, port)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock, self.path.open("w") as f:
            for port, frame in self.frames:
                f.write(json.dumps({"port": port, "frame": frame.hex()}) + "\n")


def read_recording(path: Path) -> list[tuple[int, bytes]]:
    """The (port, frame) pairs of a recording."""
    out = []
    for line in path.read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            out.append((int(rec["port"]), bytes.fromhex(rec["frame"])))
    return out
