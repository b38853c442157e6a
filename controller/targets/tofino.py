"""The P4Runtime device config for a Tofino switch running Stratum (bf_switchd).

bf-p4c writes a program directory holding, per pipe, `tofino.bin` (the binary
configuration) and `context.json` (the table layout the driver needs). Stratum's
Barefoot target takes them packed in `ForwardingPipelineConfig.p4_device_config`
as three length-prefixed fields, each length a 32-bit little-endian byte count:

    program name | tofino.bin | context.json

`pack_device_config` builds that blob and `unpack_device_config` reads it back
(a truncated blob or trailing bytes raise `ValueError`). The P4Info is the one
p4test or bf-p4c wrote for the same program; the controller's intents do not
depend on the target."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BfPipeline", "load_bf_output", "pack_device_config", "unpack_device_config"]

_LEN = struct.Struct("<I")


@dataclass(slots=True, frozen=True)
class BfPipeline:
    """One compiled Tofino program: its name and the two files bf_switchd loads."""

    name: str
    tofino_bin: bytes
    context_json: bytes


def pack_device_config(pipeline: BfPipeline) -> bytes:
    """The p4_device_config bytes Stratum's Barefoot target expects."""
    out = bytearray()
    for field in (pipeline.name.encode(), pipeline.tofino_bin, pipeline.context_json):
        out += _LEN.pack(len(field))
        out += field
    return bytes(out)


def unpack_device_config(blob: bytes) -> BfPipeline:
    """The inverse of `pack_device_config`; ValueError on a malformed blob."""
    fields: list[bytes] = []
    pos = 0
    for what in ("program name", "tofino.bin", "context.json"):
        if pos + _LEN.size > len(blob):
            raise ValueError(f"device config truncated before the length of {what}")
        (n,) = _LEN.unpack_from(blob, pos)
        pos += _LEN.size
        if pos + n > len(blob):
            raise ValueError(f"device config truncated inside {what} ({n} bytes announced)")
        fields.append(blob[pos : pos + n])
        pos += n
    if pos != len(blob):
        raise ValueError(f"device config has {len(blob) - pos} trailing bytes")
    return BfPipeline(fields[0].decode(), fields[1], fields[2])


def load_bf_output(out_dir: Path, name: str | None = None, pipe: str = "pipe") -> BfPipeline:
    """Read bf-p4c's output directory: `<out_dir>/<pipe>/tofino.bin` (tofino2.bin on
    Tofino 2) and `<out_dir>/<pipe>/context.json`. The program name defaults to the
    directory's name. FileNotFoundError when a file is missing."""
    pipe_dir = out_dir / pipe
    bins = [pipe_dir / b for b in ("tofino.bin", "tofino2.bin") if (pipe_dir / b).is_file()]
    if not bins:
        raise FileNotFoundError(f"no tofino.bin or tofino2.bin in {pipe_dir}")
    context = pipe_dir / "context.json"
    return BfPipeline(name or out_dir.name, bins[0].read_bytes(), context.read_bytes())
