"""The device config a softswitch loads: the preprocessed program, self-contained.

P4Runtime's `SetForwardingPipelineConfig` carries a P4Info and an opaque target config
(`p4_device_config`). softswitch's is a UTF-8 JSON document:

    {"format": "softswitch-device-config", "version": 1,
     "program": "NAME",
     "source": "<the preprocessed P4 text>",
     "origins": [["file.p4", 12], ...]}

`source` is the program after `#include`/`#define` processing, so a switch recompiles it
without include paths or defines; `origins[i]` is the original file and line of source
line i + 1, so error messages still point into the original files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .frontend.errors import P4Error

if TYPE_CHECKING:
    from .frontend.preprocess import Preprocessed
    from .program_info import CompiledProgram

__all__ = [
    "FORMAT",
    "VERSION",
    "DeviceConfigError",
    "compile_preprocessed",
    "device_config_from_preprocessed",
    "load_device_config",
    "make_device_config",
    "parse_device_config",
]

FORMAT = "softswitch-device-config"
VERSION = 1


class DeviceConfigError(ValueError):
    """Bytes that are not a softswitch device config (of a version this build reads)."""


def device_config_from_preprocessed(pre: Preprocessed, program: str) -> bytes:
    """The device config of an already preprocessed program named `program`."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "program": program,
        "source": pre.text,
        "origins": [[o.file, o.line] for o in pre.origins],
    }
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def compile_preprocessed(pre: Preprocessed, name: str, trace: bool = False) -> CompiledProgram:
    """`compiler.compile_preprocessed`, imported when first needed: loading this module
    (a switch process reading a cached program) does not load the compiler."""
    from .compiler import compile_preprocessed as compile_

    return compile_(pre, name, trace)


def make_device_config(
    path: str | Path,
    include_dirs: Sequence[str | Path] = (),
    defines: Mapping[str, str] | None = None,
) -> bytes:
    """Preprocess the P4 program at `path` into a device config (raises P4Error)."""
    from .frontend.preprocess import PreprocessError, preprocess
    from .v1model.target import with_target_defines

    path = Path(path)
    try:
        pre = preprocess(path, [Path(d) for d in include_dirs], with_target_defines(defines))
    except PreprocessError as e:
        raise P4Error(e.message, e.file, e.line, e.col) from None
    return device_config_from_preprocessed(pre, path.stem)


def parse_device_config(data: bytes | str) -> tuple[str, Preprocessed]:
    """(program name, preprocessed program) of a device config; DeviceConfigError if bad."""
    try:
        doc: Any = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DeviceConfigError(f"not a softswitch device config: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise DeviceConfigError("not a softswitch device config (no 'format' field)")
    if doc.get("version") != VERSION:
        raise DeviceConfigError(
            f"softswitch device config version {doc.get('version')!r} is not supported "
            f"(this softswitch reads version {VERSION})"
        )
    program, source, origins = doc.get("program"), doc.get("source"), doc.get("origins")
    if not isinstance(program, str) or not isinstance(source, str):
        raise DeviceConfigError("device config: 'program' and 'source' must be strings")
    if not isinstance(origins, list) or not all(
        isinstance(o, list) and len(o) == 2 and isinstance(o[0], str) and isinstance(o[1], int)
        for o in origins
    ):
        raise DeviceConfigError("device config: 'origins' must be a list of [file, line]")
    from .frontend.preprocess import Preprocessed, SourceLine

    lines = len(source.splitlines())
    if len(origins) != lines:
        raise DeviceConfigError(f"device config: {len(origins)} origins for {lines} source lines")
    return program, Preprocessed(source, tuple(SourceLine(f, n) for f, n in origins))


def load_device_config(data: bytes | str, trace: bool = False) -> CompiledProgram:
    """Recompile the program a device config holds (DeviceConfigError, P4Error)."""
    program, pre = parse_device_config(data)
    return compile_preprocessed(pre, program, trace)
