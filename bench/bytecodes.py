"""Counting the Python bytecode instructions some code executes, by a label of the code
object each runs in: a figure the machine's load does not move (both `fabric_bench` and
`fabricsim_bench` print it with `--bytecodes`)."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import CodeType, FrameType
from typing import Any

__all__ = ["counting_bytecodes"]


@contextmanager
def counting_bytecodes(counts: Counter[str], label: Callable[[CodeType], str]) -> Iterator[None]:
    """While the block runs, add to `counts[label(code)]` one per bytecode instruction
    executed in `code` (a tracing hook sees every one; labels are worked out once per
    code object)."""
    labels: dict[CodeType, str] = {}

    def trace(frame: FrameType, event: str, _arg: Any) -> Any:
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        if event == "opcode":
            code = frame.f_code
            name = labels.get(code)
            if name is None:
                name = labels[code] = label(code)
            counts[name] += 1
        return trace

    sys.settrace(trace)
    try:
        yield
    finally:
        sys.settrace(None)
