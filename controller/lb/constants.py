"""Constants of p4src/fabric.p4 the controller needs, read from the program's own source.

P4Info carries names, ids and widths but not `const` values or macros, so the CPU port,
clone sessions, drop reasons and group limits are parsed out of `p4src/include/define.p4`
and `size.p4` (the one place they are written), never retyped here. The TNA build
(`p4src/tna`) numbers its mirror sessions differently (`tna/include/cnp.p4`,
`adaptive.p4`, `trim.p4`, `metadata.p4`): `target="tofino"` or `"tofino2"` reads those
too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

__all__ = ["DEFAULT_P4SRC", "TARGETS", "FabricConstants", "p4_constants"]

DEFAULT_P4SRC = Path(__file__).resolve().parents[2] / "p4src"

_CONST = re.compile(r"const\s+\w+(?:<\d+>)?\s+(\w+)\s*=\s*(\w+)\s*;")
_CONST_TYPED = re.compile(r"const\s+drop_reason_t\s+DROP_(\w+)\s*=\s*(\w+)\s*;")
TARGETS = ("v1model", "tofino", "tofino2")
# Tofino 1 cannot cut a CNP in egress: its mirror session keeps an IPv6 CNP's 74 bytes
# (tna/include/cnp.p4); Tofino 2 cuts the copy itself
TOFINO1_CNP_TRUNCATE = 74
# a depth report recirculates: its 10 bytes in front of the mirrored packet, cut to the
# minimum frame (ingress on the recirculation port reads the report and drops the rest)
DEPTH_REPORT_TRUNCATE = 64
# Tofino 1's trimmed copies carry a 1-byte mirror header (trim_mirror_h) in front
TRIM_MIRROR_HEADER_BYTES = 1
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
    target: str = "v1model"  # or "tofino", "tofino2": the pipeline's mirror sessions
    depth_report_port: int | None = None  # TNA: the recirculation port depth reports use

    @classmethod
    def load(
        cls,
        p4src: Path = DEFAULT_P4SRC,
        cpu_port: int | None = None,
        target: str = "v1model",
        depth_report_port: int | None = None,
    ) -> FabricConstants:
        """From `p4src/include/define.p4` and `size.p4` (and, for a TNA target,
        `p4src/tna/include/cnp.p4`, `adaptive.p4`, `trim.p4` and `metadata.p4`); `cpu_port` and `depth_report_port`
        override the defaults (a build with `-DCPU_PORT=N`, `-DDEPTH_REPORT_PORT=N`)."""
        if target not in TARGETS:
            raise ValueError(f"target {target!r}: one of {', '.join(TARGETS)}")
        if target == "v1model" and depth_report_port is not None:
            raise ValueError("depth_report_port: the TNA build's (target tofino or tofino2)")
        inc = p4src / "include"
        files = [inc / "define.p4", inc / "size.p4"]
        if target != "v1model":  # only the TNA build defines DEPTH_REPORT_PORT
            files += [
                p4src / "tna" / "include" / f
                for f in ("cnp.p4", "adaptive.p4", "trim.p4", "metadata.p4")
            ]
        v = p4_constants(*files)
        missing = [
            n
            for n in ("CPU_PORT", "INT_REPORT_SESSION", "CNP_SESSION_BASE", "LB_MAX_GROUPS")
            if n not in v
        ]
        if target != "v1model":
            missing += [
                n
                for n in (
                    "CNP_SESSION_BASE_TNA",
                    "DEPTH_REPORT_SESSION",
                    "DEPTH_REPORT_PORT",
                    "TRIM_SESSION_BASE_TNA",
                    "TRIM_KEEP_BYTES_TNA",
                    "INT_ALERT_SESSION_TNA",
                    "ALERT_MIRROR_BYTES",
                )
                if n not in v
            ]
        if missing:
            raise ValueError(f"{p4src}: constants {', '.join(missing)} not found")
        reasons = _CONST_TYPED.findall((inc / "define.p4").read_text())
        drops = {n: int(x, 0) for n, x in reasons}
        return cls(
            cpu_port=v["CPU_PORT"] if cpu_port is None else cpu_port,
            int_report_session=v["INT_REPORT_SESSION"],
            cnp_session_base=v["CNP_SESSION_BASE"],
            max_groups_stateful=v["LB_MAX_GROUPS"],
            drop_reasons=MappingProxyType(drops),
            values=MappingProxyType(v),
            target=target,
            depth_report_port=v.get("DEPTH_REPORT_PORT")
            if depth_report_port is None
            else depth_report_port,
        )

    def __getitem__(self, name: str) -> int:
        """`c["DROP_NO_ROUTE"]`, `c["CNP_SESSION_BASE"]`: any constant by its P4 name."""
        return self.values[name]

    def cnp_session(self, port: int) -> int:
        """The clone (mirror) session that sends CNPs back out of `port`: v1model's
        CNP_SESSION_BASE + port; Tofino 1's CNP_SESSION_BASE_TNA + port (10-bit ids);
        Tofino 2's 128 + the port's low 7 bits (8-bit ids: ports with the same low bits in
        different pipes share one)."""
        if self.target == "tofino":
            return self.values["CNP_SESSION_BASE_TNA"] + port
        if self.target == "tofino2":
            return 128 | (port & 0x7F)
        return self.cnp_session_base + port

    def trim_session(self, port: int) -> int:
        """Tofino 1 only (Tofino 2 and v1model cut in the pipeline): the mirror session a
        packet trimmed on its way out of `port` goes to, TRIM_SESSION_BASE_TNA + pipe * 64
        + the port's low 6 bits (tna/include/trim.p4). Only front-panel ports (0-63 of a
        pipe) have one: other ports would share a session with a front-panel one."""
        if self.target != "tofino":
            raise ValueError("trim sessions exist on Tofino 1 only (target tofino)")
        if not 0 <= port < 512 or port & 0x7F >= 64:
            raise ValueError(
                f"port {port}: Tofino 1 trims on front-panel ports only (0-63 per pipe)"
            )
        return self.values["TRIM_SESSION_BASE_TNA"] + ((port >> 7) << 6) + (port & 0x3F)

    @property
    def trim_truncate_bytes(self) -> int:
        """What a Tofino 1 trim session keeps: the 1-byte mirror header and the kept
        headers (TRIM_KEEP_BYTES_TNA)."""
        return TRIM_MIRROR_HEADER_BYTES + self.values["TRIM_KEEP_BYTES_TNA"]

    @property
    def alert_session(self) -> int | None:
        """TNA only (None on v1model, whose drop and queue reports use the INT report
        session): the mirror session of drop and queue report copies,
        INT_ALERT_SESSION_TNA (tna/include/metadata.p4)."""
        if self.target == "v1model":
            return None
        return self.values["INT_ALERT_SESSION_TNA"]

    @property
    def alert_truncate_bytes(self) -> int:
        """What the TNA alert session keeps of a copy: its mirror header
        (ALERT_MIRROR_BYTES) and the DROP_REPORT_INNER_BYTES of the packet a report
        carries."""
        if self.target == "v1model":
            raise ValueError("the alert session exists on the TNA pipeline only")
        return self.values["ALERT_MIRROR_BYTES"] + self.values["DROP_REPORT_INNER_BYTES"]

    @property
    def cnp_truncate_bytes(self) -> int:
        """What a CNP session keeps of the copy (0: all of it)."""
        return TOFINO1_CNP_TRUNCATE if self.target == "tofino" else 0
