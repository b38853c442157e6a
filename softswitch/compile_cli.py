"""`softswitch compile`: a P4 program -> its P4Info and the softswitch device config.

    softswitch compile PROGRAM.p4 --p4info OUT.txtpb -o OUT_CONFIG [-I DIR]... [-D NAME[=VAL]]...

The P4Info is written as text (.txtpb/.txt/.textproto/.pbtxt), JSON (.json) or binary
(anything else), like p4c's `--p4runtime-files`; the device config is the JSON document of
`softswitch.device_config`, ready for SetForwardingPipelineConfig. A bad program prints
`file:line:col: error: ...` on stderr and exits 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_compile_command", "cmd_compile"]


def add_compile_command(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "compile",
        help="compile a P4 program into a P4Info and a softswitch device config",
        description=(
            "Check PROGRAM.p4 and write its P4Info (--p4info: text for .txtpb/.txt, JSON for "
            ".json, else binary) and the device config a softswitch loads (-o). Exit 0 on "
            "success, 1 on an error in the program or an unwritable output."
        ),
    )
    p.add_argument("program", help="the P4_16 v1model program")
    p.add_argument("--p4info", metavar="OUT.txtpb", help="write the P4Info here")
    p.add_argument("-o", "--output", metavar="OUT_CONFIG", help="write the device config here")
    p.add_argument(
        "-I", dest="include", action="append", default=[], metavar="DIR", help="include dir"
    )
    p.add_argument(
        "-D", dest="define", action="append", default=[], metavar="NAME[=VAL]", help="define"
    )
    p.set_defaults(handler=cmd_compile)
    return p


def _defines(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for d in items:
        name, eq, val = d.partition("=")
        out[name] = val if eq else "1"
    return out


def _error(where: str, message: str) -> int:
    print(f"{where}: error: {message}", file=sys.stderr)
    return 1


def cmd_compile(args: argparse.Namespace) -> int:
    from .device_config import compile_preprocessed, device_config_from_preprocessed
    from .frontend.errors import P4Error, P4Unsupported
    from .frontend.preprocess import PreprocessError, preprocess
    from .p4info import P4InfoError, p4info_for, write_p4info

    path = Path(args.program)
    try:
        pre = preprocess(path, [Path(d) for d in args.include], _defines(args.define))
        compiled = compile_preprocessed(pre, path.stem)
        p4info = p4info_for(compiled)
    except PreprocessError as e:
        return _error(f"{e.file}:{e.line}:{e.col}", e.message)
    except P4Error as e:
        msg = f"unsupported: {e.message}" if isinstance(e, P4Unsupported) else e.message
        return _error(f"{e.file}:{e.line}:{e.col}", msg)
    except P4InfoError as e:
        return _error(str(path), str(e))
    except RecursionError:
        return _error(str(path), "program nesting too deep")
    for w in compiled.warnings:
        print(w, file=sys.stderr)
    try:
        if args.p4info:
            out = Path(args.p4info)
            if out.suffix == ".json":
                from google.protobuf import json_format

                out.write_text(json_format.MessageToJson(p4info) + "\n", encoding="utf-8")
            else:
                write_p4info(p4info, out)
        if args.output:
            Path(args.output).write_bytes(device_config_from_preprocessed(pre, path.stem))
    except OSError as e:
        return _error("softswitch compile", f"cannot write {e.filename}: {e.strerror}")
    return 0
