"""Constants of p4src/fabric.p4 the controller needs, read from the program's own source.

P4Info carries names, ids and widths but not `const` values or macros, so the CPU port,
clone sessions, drop reasons and group limits are parsed out of `p4src/include/define.p4`
and `size.p4` (the one place they are written), never retyped here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

__all__ = ["DEFAULT_P4SRC", "FabricConstants", "p4_constants"]

DEFAULT_P4SRC = Path(__file__).resolve().parents[2] / "p4src"

_CONST = re.compile(r"const\s+\w+(?:<\d+>)?\s+(\w+)\s*=\s*(\w+)\s*;")
_CONST_TYPED = re.compile(r"const\s+drop_reason_t\s+DROP_(\w+)\s*=\s*(\w+)\s*;")
_DEFINE = re.compile(r"^\s*#define\s+(\w+)\s+(\d+|0x[0-9a-fA-F]+)\b", re.MULTILINE)


def p4_constants(*files: Path) -> dict[str, int]:
    """Every `const <type> NAME = number;` and `#define NAME number` in `files`
    (later files win)."""
    out: dict[str, int] = {}
    for f in files:
        text = f.read_text()
        for name, value in _CONST.findall(text):
            try:
                out[name] = int(value, 0)
            except ValueError:  # a const defined from another name: not a number
                continue
        out |= {name: int(value, 0) for name, value in _DEFINE.findall(text)}
    return out


@dataclass(slots=True, frozen=True)
class FabricConstants:
    """The numbers the encoder and the tests take from the P4 source."""

    cpu_port: int
    int_report_session: int
    cnp_session_base: int
    max_groups_stateful: int  # groups with ids below this keep flowlet/RR/adaptive state
    drop_reasons: Mapping[str, int]  # "NO_ROUTE" -> 2 ...
    values: Mapping[str, int]  # every constant, by its P4 name

    @classmethod
    def load(cls, p4src: Path = DEFAULT_P4SRC, cpu_port: int | None = None) -> FabricConstants:
        """From `p4src/include/define.p4` and `size.p4`; `cpu_port` overrides the default
        (a build with `-DCPU_PORT=N`)."""
        inc = p4src / "include"
        v = p4_constants(inc / "define.p4", inc / "size.p4")
        missing = [
            n
            for n in ("CPU_PORT", "INT_REPORT_SESSION", "CNP_SESSION_BASE", "LB_MAX_GROUPS")
            if n not in v
        ]
        if missing:
            raise ValueError(f"{inc}: constants {', '.join(missing)} not found")
        reasons = _CONST_TYPED.findall((inc / "define.p4").read_text())
        drops = {n: int(x, 0) for n, x in reasons}
        return cls(
            cpu_port=v["CPU_PORT"] if cpu_port is None else cpu_port,
            int_report_session=v["INT_REPORT_SESSION"],
            cnp_session_base=v["CNP_SESSION_BASE"],
            max_groups_stateful=v["LB_MAX_GROUPS"],
            drop_reasons=MappingProxyType(drops),
            values=MappingProxyType(v),
        )

    def __getitem__(self, name: str) -> int:
        """`c["DROP_NO_ROUTE"]`, `c["CNP_SESSION_BASE"]`: any constant by its P4 name."""
        return self.values[name]

    def cnp_session(self, port: int) -> int:
        """The clone session that sends CNPs back out of `port`."""
        return self.cnp_session_base + port
