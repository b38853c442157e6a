"""P4 source file -> CompiledProgram: preprocess, parse, check and generate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from .codegen import Architecture, compile_program
from .frontend import ast as A
from .frontend.errors import P4Error
from .frontend.flowcheck import check_flow
from .frontend.parse import parse_text
from .frontend.preprocess import Preprocessed, PreprocessError, preprocess, preprocess_text
from .program_info import CompiledProgram
from .v1model.arch import V1Model
from .v1model.target import TARGET_DEFINES, with_target_defines

__all__ = [
    "TARGET_DEFINES",
    "P4Error",
    "architecture_for",
    "compile_file",
    "compile_preprocessed",
    "compile_text",
    "with_target_defines",
]


def architecture_for(program: A.Program) -> Architecture:
    """The architecture of the package `main` instantiates.

    v1model is the only one softswitch has: it refuses other packages itself, with the
    position of the instance, when it generates the package.
    """
    del program
    return V1Model()


def compile_preprocessed(pre: Preprocessed, name: str, trace: bool = False) -> CompiledProgram:
    """Parse, check and generate an already preprocessed program (raises P4Error)."""

    def locate(line: int) -> tuple[str, int]:
        if line <= 0 or not pre.origins:
            return (name, 0)
        src = pre.locate(line)
        return (src.file, src.line)

    program = parse_text(pre.text, name, locate)
    compiled = compile_program(program, architecture_for(program), trace=trace)
    # p4c's uninitialised-use and invalid-header warnings (the program is valid by now)
    compiled.warnings.extend(str(w) for w in check_flow(program))
    compiled.name = name
    return compiled


def _compile(pre: Preprocessed, name: str, trace: bool) -> CompiledProgram:
    compiled = compile_preprocessed(pre, name, trace)
    compiled.name = Path(name).stem
    return compiled


def compile_file(
    path: str | Path,
    include_dirs: Sequence[Path] = (),
    defines: Mapping[str, str] | None = None,
    trace: bool = False,
) -> CompiledProgram:
    """Compile a P4_16 v1model program; raises P4Error (positioned) on a bad program."""
    path = Path(path)
    try:
        pre = preprocess(path, include_dirs, with_target_defines(defines))
    except PreprocessError as e:
        raise P4Error(e.message, e.file, e.line, e.col) from None
    return _compile(pre, str(path), trace)


def compile_text(
    text: str,
    filename: str = "<input>",
    include_dirs: Sequence[Path] = (),
    defines: Mapping[str, str] | None = None,
    trace: bool = False,
) -> CompiledProgram:
    try:
        pre = preprocess_text(text, filename, include_dirs, with_target_defines(defines))
    except PreprocessError as e:
        raise P4Error(e.message, e.file, e.line, e.col) from None
    return _compile(pre, filename, trace)
