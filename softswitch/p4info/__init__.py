"""P4Info for softswitch programs, identical to what p4c-bm2-ss writes.

    from softswitch.compiler import compile_file
    from softswitch.p4info import p4info_for, write_p4info

    compiled = compile_file("prog.p4")
    write_p4info(p4info_for(compiled), "prog.p4info.txtpb")

`build_p4info(info)` works from a bare `ProgramInfo`; `p4info_for(compiled)` also hands
the program's struct/header types over, so digests and `type_info` are complete.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from google.protobuf import text_format

from p4rt_proto import p4info_pb2

from .build import build_p4info, format_annotation
from .ids import IdAllocator, P4InfoError, Prefix, SuffixSet, field_ids, jenkins_hash, natural_id

if TYPE_CHECKING:
    from ..program_info import CompiledProgram

__all__ = [
    "IdAllocator",
    "P4InfoError",
    "Prefix",
    "SuffixSet",
    "build_p4info",
    "field_ids",
    "format_annotation",
    "jenkins_hash",
    "natural_id",
    "p4info_for",
    "p4info_pb2",
    "p4info_text",
    "read_p4info",
    "write_p4info",
]

TEXT_HEADER = "# proto-file: p4/config/v1/p4info.proto\n# proto-message: p4.config.v1.P4Info\n\n"
TEXT_SUFFIXES = (".txtpb", ".txt", ".textproto", ".pbtxt")


def p4info_for(compiled: CompiledProgram) -> p4info_pb2.P4Info:
    """The P4Info of a compiled program."""
    return build_p4info(compiled.info, types=compiled.struct_types)


def p4info_text(p4info: p4info_pb2.P4Info) -> str:
    """Protobuf text format, with the two header comment lines p4c writes."""
    return TEXT_HEADER + text_format.MessageToString(p4info)


def write_p4info(p4info: p4info_pb2.P4Info, path: str | Path, binary: bool | None = None) -> None:
    """Write `p4info` to `path`: text format for .txtpb/.txt/.textproto/.pbtxt, else binary
    (or as `binary` says)."""
    path = Path(path)
    if binary is None:
        binary = path.suffix not in TEXT_SUFFIXES
    if binary:
        path.write_bytes(p4info.SerializeToString(deterministic=True))
    else:
        path.write_text(p4info_text(p4info), encoding="utf-8")


def read_p4info(path: str | Path, binary: bool | None = None) -> Any:
    """Read a P4Info written by `write_p4info` (or by p4c)."""
    path = Path(path)
    if binary is None:
        binary = path.suffix not in TEXT_SUFFIXES
    msg = p4info_pb2.P4Info()
    if binary:
        msg.ParseFromString(path.read_bytes())
    else:
        text_format.Parse(path.read_text(encoding="utf-8"), msg)
    return msg
