"""Run an STF test against softswitch the way p4c's BMv2 STF runner runs it on simple_switch.

Semantics (see p4c `backends/bmv2/bmv2stf.py` and BMv2's `runtime_CLI.py`):

* commands run strictly in file order; each `packet` is processed to completion (clones,
  resubmits, recirculations and multicast copies included) before the next command;
* `add`/`setdefault` resolve the table by exact name or unique raw string suffix, the
  action among the table's actions likewise; key fields by p4c's rules (`$N` -> `[N]`,
  `.valid`/`$valid$` aliases, `.NAME` suffix); unspecified exact keys are 0, lpm/ternary
  keys wildcards; an lpm prefix length is 4 bits per written hex digit (1 per binary
  digit, `*` not counted); a ternary mask has one all-ones digit per written non-`*`
  digit; priorities are used only by tables with ternary/optional keys (larger wins,
  ties go to the earlier entry);
* what simple_switch_CLI would reject (value too wide for its bytes, duplicate entry,
  constant default, ...) only leaves the entry out (recorded as a warning), as with p4c;
  what p4c's runner itself throws on (unknown table/key/action/argument, missing argument,
  decimal ternary value, missing ternary priority) fails the test;
* observed ports = ports named in any `packet` or `expect`; each must emit exactly its
  `expect`s, in order per port; a pattern is a prefix unless it ends in `$`; `*` matches
  one hex digit; output to other ports is ignored;
* `check_counter` is ignored by p4c's BMv2 runner; here it is a real check when it has a
  condition (`packets|bytes OP N`), on an indexed counter or on a direct counter entry
  labelled with `= ID` in an `add`.
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import program_info as pinfo
from ..engine import matches as M
from ..engine.errors import SwitchError, Unimplemented
from ..frontend.errors import P4Error, P4Unsupported
from . import parser as P

__all__ = ["StfResult", "run_stf", "run_stf_commands"]

PASS, FAIL, UNSUPPORTED = "pass", "fail", "unsupported"


@dataclass(slots=True)
class StfResult:
    """Outcome of one STF test. `reason` is one line; `diff` the readable details."""

    status: str  # "pass" | "fail" | "unsupported"
    reason: str = ""
    diff: str = ""
    warnings: list[str] = field(default_factory=list)
    traceback: str = ""
    name: str = ""
    # what each observed port sent, in order (also when the test failed)
    outputs: dict[int, list[bytes]] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status == PASS

    @property
    def exit_code(self) -> int:
        return {PASS: 0, FAIL: 1}.get(self.status, 2)


class _Fail(Exception):
    """The test fails (what p4c's runner would throw on)."""


class _Unsupported(Exception):
    """The runner cannot do what the test asks."""


class _Skip(Exception):
    """simple_switch_CLI would reject the command: it has no effect (p4c keeps going)."""


# ---------------------------------------------------------------- name resolution


def _raw_suffix(name: str, names: Sequence[str], what: str, where: str = "") -> str:
    """p4c runner lookup: exact name, else a unique plain `endswith` match."""
    if name in names:
        return name
    hits = [n for n in names if n.endswith(name)]
    if len(hits) > 1:
        raise _Fail(f"{what} name {name} is ambiguous{where}: {', '.join(hits)}")
    if not hits:
        raise _Fail(f"no {what} {name}{where}")
    return hits[0]


def _dot_suffix(name: str, names: Sequence[str]) -> str | None:
    """simple_switch_CLI lookup: full name or a unique suffix of whole dotted components."""
    if name in names:
        return name
    hits = [n for n in names if n.endswith("." + name)]
    return hits[0] if len(hits) == 1 else None


def _bmv2_key_name(k: pinfo.KeySpec) -> str:
    """The name p4c gives the key in BMv2 JSON (`isValid()` is written `$valid$`)."""
    n = k.name
    if n.endswith(".isValid()"):
        return n[: -len("isValid()")] + "$valid$"
    if n == "isValid()":
        return "$valid$"
    return n


def _resolve_key(key: str, names: list[str]) -> int:
    """p4c `TableKeyInstance.set` name rules; returns the key index."""
    i = key.rfind("$")
    while i >= 0:  # the last `$<digits>` becomes `[<digits>]`
        j = i + 1
        while j < len(key) and key[j].isdigit():
            j += 1
        if j > i + 1:
            key = f"{key[:i]}[{key[i + 1 : j]}]{key[j:]}"
            break
        i = key.rfind("$", 0, i)
    cands = [key, key + "$", key + ".$valid$"]
    if key.endswith(".valid"):
        cands.append(key[:-5] + "$valid$")
    for c in cands:
        if c in names:
            return names.index(c)
    for idx, n in enumerate(names):
        if n.endswith("." + key) or n.endswith("." + key + "$"):
            return idx
        if key == "valid" and n.endswith(".$valid$"):
            return idx
    if key == "valid" and "$valid$" in names:
        return names.index("$valid$")
    raise _Fail(f"unexpected key field {key} (keys: {', '.join(names)})")


# ---------------------------------------------------------------- values


def _cli_int(text: str, what: str) -> int:
    """simple_switch_CLI reads numbers with Python `int(s, 0)`."""
    try:
        return int(text, 0)
    except ValueError:
        raise _Skip(f"{what}: invalid number {text!r}") from None


def _fit(v: int, width: int, what: str) -> int:
    """The CLI packs a value into ceil(width/8) bytes; BMv2 then masks it to `width` bits."""
    if v >= 1 << (8 * ((width + 7) // 8)):
        raise _Skip(f"{what}: value {v:#x} is too large for {width} bits")
    return v & ((1 << width) - 1)


def _lpm_value(text: str, width: int, what: str) -> M.Match:
    if "/" in text:  # extension: p4c's runner crashes on VALUE/LEN
        v, plen_s = text.split("/", 1)
        value, plen = _cli_int(v.replace("*", "0"), what), int(plen_s)
    elif text[:2] in ("0x", "0b"):
        bits = 4 if text[1] == "x" else 1
        digits = text[2:]
        plen = bits * (len(digits) - digits.count("*"))
        value = _cli_int(text[:2] + digits.replace("*", "0"), what)
    else:
        # p4c writes `0x` + hex(int(v)) = "0x0x..", which the CLI rejects
        raise _Skip(f"{what}: decimal lpm value {text} (p4c produces an invalid CLI value)")
    if plen > width:
        raise _Skip(f"{what}: prefix length {plen} exceeds the {width}-bit field")
    return M.Lpm(_fit(value, width, what), plen)


def _ternary_value(text: str, width: int, what: str) -> tuple[int, int]:
    if text.startswith("0x"):
        digit_bits, full = 4, "f"
    elif text.startswith("0b"):
        digit_bits, full = 1, "1"
    else:
        raise _Fail(f"{what}: decimal value {text} not supported for a ternary key")
    digits = text[2:]
    value = int(digits.replace("*", "0") or "0", 16 if digit_bits == 4 else 2)
    mask_digits = "".join("0" if c == "*" else full for c in digits)
    mask = int(mask_digits or "0", 16 if digit_bits == 4 else 2)
    return _fit(value, width, what), _fit(mask, width, what)


# ---------------------------------------------------------------- packets


def _nibbles(pattern: str, got: str) -> tuple[bool, int]:
    """(matches, index of first mismatching nibble or -1) for the covered part."""
    for i, c in enumerate(pattern):
        if i >= len(got):
            return False, i
        if c != "*" and c != got[i]:
            return False, i
    return True, -1


def _compare(e: P.Expect, data: bytes) -> str | None:
    """None if `data` matches the expectation, else a description of the first mismatch."""
    if e.pattern is None:
        return None
    got = data.hex().upper()
    pat = e.pattern
    if e.exact_len and len(got) > len(pat):
        return f"received packet too long ({len(got) // 2} bytes, expected {len(pat) / 2:g})"
    if len(got) < len(pat):
        return f"received packet too short ({len(got) // 2} bytes, expected {len(pat) / 2:g})"
    ok, i = _nibbles(pat, got)
    if ok:
        return None
    return f"differs at byte {i // 2} (expected {pat[i]} got {got[i]} at hex digit {i})"


def _rows(pattern: str, got: str, per_row: int = 32) -> list[str]:
    """Side-by-side hex rows of expected and received, `^` under differing digits."""
    out: list[str] = []
    n = max(len(pattern), len(got))
    step = per_row * 2
    for start in range(0, n, step):
        p = pattern[start : start + step]
        g = got[start : start + step]
        marks = "".join(
            " " if i >= len(p) or p[i] == "*" or (i < len(g) and p[i] == g[i]) else "^"
            for i in range(max(len(p), len(g)))
        )

        def spaced(s: str) -> str:
            return " ".join(s[i : i + 2] for i in range(0, len(s), 2))

        out.append(f"    {start // 2:04x} expect: {spaced(p)}")
        out.append(f"         got:    {spaced(g)}")
        if marks.strip():
            out.append(f"                 {spaced(marks)}")
    return out


# ---------------------------------------------------------------- the run


class _Run:
    def __init__(self, sw: Any, commands: list[P.Command]) -> None:
        self.sw = sw
        self.info: pinfo.ProgramInfo = sw.info
        self.commands = commands
        self.warnings: list[str] = []
        self.expects: dict[int, list[P.Expect]] = {}
        self.received: dict[int, list[bytes]] = {}
        self.unobserved: dict[int, int] = {}
        self.nodes: list[tuple[int, tuple[int, ...]]] = []  # handle -> (rid, ports)
        self.groups: dict[int, list[int]] = {}  # gid -> node handles
        self.mc_sessions: dict[int, int] = {}  # clone session -> multicast group
        self.entry_ids: dict[str, Any] = {}
        self.checks: list[str] = []
        self.observed: set[int] = set()
        for c in commands:
            if isinstance(c, P.Packet | P.Expect):
                self.observed.add(c.port)
            if isinstance(c, P.Expect):
                self.expects.setdefault(c.port, []).append(c)

    def warn(self, line: int, msg: str) -> None:
        self.warnings.append(f"line {line}: {msg}")

    def run(self) -> None:
        for c in self.commands:
            try:
                self.do(c)
            except _Skip as e:
                self.warn(c.line, f"{type(c).__name__.lower()} ignored: {e}")
            except SwitchError as e:
                if isinstance(e, Unimplemented):
                    raise
                self.warn(c.line, f"{type(c).__name__.lower()} rejected: {e}")
            except _Fail as e:
                raise _Fail(f"line {c.line}: {e}") from None
            except _Unsupported as e:
                raise _Unsupported(f"line {c.line}: {e}") from None

    # ------------------------------------------------------------ dispatch
    def do(self, c: P.Command) -> None:  # noqa: C901
        if isinstance(c, P.Packet):
            self.packet(c)
        elif isinstance(c, P.Expect | P.Wait | P.MirroringGet):
            pass
        elif isinstance(c, P.RegisterRead | P.CounterRead | P.MeterGetRates):
            pass  # p4c only prints these
        elif isinstance(c, P.Add):
            self.add(c)
        elif isinstance(c, P.SetDefault):
            self.set_default(c)
        elif isinstance(c, P.McMgrpCreate):
            if c.gid in self.groups:
                raise _Skip(f"multicast group {c.gid} exists")
            self.groups[c.gid] = []
            self.sync_groups()
        elif isinstance(c, P.McNodeCreate):
            self.nodes.append((c.rid, c.ports))
        elif isinstance(c, P.McNodeUpdate):
            raise _Skip("p4c's runner does not pass mc_node_update to the switch")
        elif isinstance(c, P.McNodeAssociate):
            if c.gid not in self.groups:
                raise _Skip(f"no multicast group {c.gid}")
            if not 0 <= c.handle < len(self.nodes):
                raise _Skip(f"no multicast node handle {c.handle}")
            if any(c.handle in hs for hs in self.groups.values()):
                raise _Skip(f"node {c.handle} is already associated")
            self.groups[c.gid].append(c.handle)
            self.sync_groups()
        elif isinstance(c, P.MirroringAdd):
            from ..v1model.switch import CloneSession

            self.mc_sessions.pop(c.session, None)
            self.sw.clone_session_set(c.session, CloneSession(replicas=[(c.port, 0)]))
        elif isinstance(c, P.MirroringAddMc):
            self.mc_sessions[c.session] = c.group
            self.sync_groups()
        elif isinstance(c, P.MirroringDelete):
            self.mc_sessions.pop(c.session, None)
            if self.sw.clone_sessions.pop(c.session, None) is None:
                raise _Skip(f"no mirroring session {c.session}")
        elif isinstance(c, P.RegisterWrite | P.RegisterReset):
            self.register(c)
        elif isinstance(c, P.CounterWrite):
            ctr = self.extern(c.name, ("counter",))
            if not 0 <= c.index < ctr.size:
                raise _Skip(f"index {c.index} out of range")
            ctr.packets[c.index] = c.packets
            ctr.bytes[c.index] = c.bytes
        elif isinstance(c, P.MeterSetRates | P.MeterArraySetRates):
            self.meter(c)
        elif isinstance(c, P.CheckCounter):
            self.check_counter(c)
        elif isinstance(c, P.NoPacket):
            raise _Unsupported("no_packet (p4c's BMv2 runner cannot run it either)")
        elif isinstance(c, P.RemoveAll):
            raise _Unsupported("remove all (p4c's STF grammar rejects it)")
        else:  # pragma: no cover - every parser command is handled above
            raise _Unsupported(f"STF command {type(c).__name__}")

    # ------------------------------------------------------------ packets
    def packet(self, c: P.Packet) -> None:
        if len(c.data) % 2:
            raise _Skip(f"invalid packet data (odd number of hex digits): {c.data}")
        for port, data in self.sw.process(c.port, bytes.fromhex(c.data)):
            if port in self.observed:
                self.received.setdefault(port, []).append(data)
            else:
                self.unobserved[port] = self.unobserved.get(port, 0) + 1

    # ------------------------------------------------------------ tables
    def table_spec(self, name: str) -> pinfo.TableSpec:
        return self.info.tables[_raw_suffix(name, list(self.info.tables), "table")]

    def action_spec(self, spec: pinfo.TableSpec, name: str) -> pinfo.ActionSpec:
        names = [a.name for a in spec.actions]
        full = _raw_suffix(name, names, "action", f" in table {spec.name}")
        a = self.info.actions.get(full)
        if a is None:
            raise _Fail(f"action {full} has no description")
        return a

    def action_args(
        self, a: pinfo.ActionSpec, args: tuple[tuple[str, str], ...]
    ) -> tuple[int, ...]:
        given: dict[str, str] = {}
        names = [p.name for p in a.params]
        for n, v in args:
            if n not in names:
                raise _Fail(f"unexpected argument {n} for action {a.name} (has {names})")
            given[n] = v
        out: list[int] = []
        for p in a.params:
            if p.name not in given:
                raise _Fail(f"missing argument {p.name} for action {a.name}")
            what = f"{a.name}({p.name})"
            out.append(_fit(_cli_int(given[p.name], what), p.width, what))
        return tuple(out)

    def add(self, c: P.Add) -> None:
        spec = self.table_spec(c.table)
        kinds = []
        for k in spec.keys:
            if k.match_kind == "range":
                raise _Unsupported(f"table {spec.name} has a range key: STF cannot fill it")
            if k.match_kind not in ("exact", "lpm", "ternary", "optional"):
                raise _Unsupported(f"table {spec.name}: match kind {k.match_kind}")
            kinds.append("ternary" if k.match_kind == "optional" else k.match_kind)
        names = [_bmv2_key_name(k) for k in spec.keys]
        given: dict[int, str] = {}
        for kname, ktext in c.keys:
            given[_resolve_key(kname, names)] = ktext
        action = self.action_spec(spec, c.action)
        args = self.action_args(action, c.args)
        ternary_kind = "ternary" in kinds
        if ternary_kind and c.priority is None:
            raise _Fail(f"table {spec.name} has ternary keys: the entry needs a priority")
        matches: list[M.Match] = []
        for i, k in enumerate(spec.keys):
            what = f"{spec.name} key {k.name}"
            text: str | None = given.get(i)
            if text is None:
                matches.append(M.Exact(0) if kinds[i] == "exact" else M.Wildcard())
            elif kinds[i] == "exact":
                matches.append(M.Exact(_fit(_cli_int(text, what), k.width, what)))
            elif kinds[i] == "lpm":
                matches.append(_lpm_value(text, k.width, what))
            else:
                value, mask = _ternary_value(text, k.width, what)
                full = (1 << k.width) - 1
                if mask == 0:
                    matches.append(M.Wildcard())
                elif k.match_kind == "optional":
                    if mask != full:
                        raise _Unsupported(f"{what}: a partial mask on an optional key")
                    matches.append(M.Optional(value))
                else:
                    matches.append(M.Ternary(value, mask))
        if spec.implementation:
            raise _Skip(f"table {spec.name} is indirect (table_add is rejected by BMv2)")
        table = self.sw.tables[spec.name]
        prio = c.priority if ternary_kind else None
        entry = table.add(matches, action.name, args, prio)
        if c.entry_id is not None:
            self.entry_ids[c.entry_id] = (table, entry)

    def set_default(self, c: P.SetDefault) -> None:
        spec = self.table_spec(c.table)
        action = self.action_spec(spec, c.action)
        args = self.action_args(action, c.args)
        # p4c then sends the names as written: simple_switch_CLI resolves them itself
        if _dot_suffix(c.table, list(self.info.tables)) is None:
            raise _Skip(f"simple_switch_CLI cannot resolve table name {c.table}")
        if _dot_suffix(c.action, list(self.info.actions)) != action.name:
            raise _Skip(f"simple_switch_CLI cannot resolve action name {c.action}")
        self.sw.tables[spec.name].set_default(action.name, args)

    # ------------------------------------------------------------ PRE and mirroring
    def replicas(self, gid: int) -> list[tuple[int, int]]:
        """BMv2 PRE order: nodes in association order, each node's ports ascending."""
        out: list[tuple[int, int]] = []
        for h in self.groups.get(gid, ()):
            rid, ports = self.nodes[h]
            out.extend((port, rid) for port in sorted(set(ports)))
        return out

    def sync_groups(self) -> None:
        from ..v1model.switch import CloneSession

        for gid in self.groups:
            self.sw.mc_group_set(gid, self.replicas(gid))
        for sid, gid in self.mc_sessions.items():
            self.sw.clone_session_set(sid, CloneSession(replicas=self.replicas(gid)))

    # ------------------------------------------------------------ externs
    def extern(self, name: str, kinds: tuple[str, ...]) -> Any:
        names = [n for n, e in self.info.externs.items() if e.kind in kinds]
        full = _dot_suffix(name, names)
        if full is None:
            raise _Skip(f"no {'/'.join(kinds)} named {name}")
        return self.sw.externs[full]

    def register(self, c: P.RegisterWrite | P.RegisterReset) -> None:
        reg = self.extern(c.name, ("register",))
        if isinstance(c, P.RegisterReset):
            reg.values[:] = [0] * reg.size
            return
        if not 0 <= c.index < reg.size:
            raise _Skip(f"index {c.index} out of range")
        v = c.value & ((1 << reg.width) - 1)
        if reg.signed and v >> (reg.width - 1):
            v -= 1 << reg.width
        reg.write(c.index, v)

    def meter(self, c: P.MeterSetRates | P.MeterArraySetRates) -> None:
        m = self.extern(c.name, ("meter",))
        if len(c.rates) != 2:
            raise _Skip(f"a v1model meter takes 2 rates, {len(c.rates)} given")
        (cir, cbs), (pir, pbs) = c.rates
        idxs = [c.index] if isinstance(c, P.MeterSetRates) else list(range(m.size))
        for i in idxs:  # CLI rates are per microsecond
            m.configure(i, cir * 1e6, cbs, pir * 1e6, pbs)

    def check_counter(self, c: P.CheckCounter) -> None:
        if c.kind is None:
            return  # no condition: nothing to check (p4c ignores check_counter)
        if c.index.startswith("$"):
            hit = self.entry_ids.get(c.index[1:])
            if hit is None:
                raise _Fail(f"check_counter: no entry labelled {c.index[1:]}")
            _table, entry = hit
            packets, nbytes = entry.packets, entry.bytes
        else:
            names = [
                n for n, e in self.info.externs.items() if e.kind in ("counter", "direct_counter")
            ]
            full = _dot_suffix(c.counter, names)
            if full is None:
                raise _Fail(f"check_counter: no counter named {c.counter}")
            ctr = self.sw.externs[full]
            idx = P._number(c.index)
            if not hasattr(ctr, "packets") or not 0 <= idx < ctr.size:
                raise _Fail(f"check_counter: {full}({c.index}) is not an indexed counter cell")
            packets, nbytes = ctr.packets[idx], ctr.bytes[idx]
        got = packets if c.kind == "packets" else nbytes
        ok = {
            "==": got == c.value,
            "!=": got != c.value,
            "<": got < c.value,
            "<=": got <= c.value,
            ">": got > c.value,
            ">=": got >= c.value,
        }[c.op]
        if not ok:
            self.checks.append(
                f"line {c.line}: check_counter {c.counter}({c.index}) {c.kind} {c.op} "
                f"{c.value} failed: it is {got}"
            )

    # ------------------------------------------------------------ verdict
    def verdict(self) -> tuple[list[str], list[str]]:
        """(one-line problems, diff lines)."""
        problems: list[str] = list(self.checks)
        diff: list[str] = list(self.checks)
        for port in sorted(self.observed):
            exp = self.expects.get(port, [])
            got = self.received.get(port, [])
            bad = [
                _compare(e, g) if e is not None and g is not None else None
                for e, g in zip(exp, got, strict=False)
            ]
            if len(exp) == len(got) and not any(bad):
                continue
            lines: list[str] = []
            if len(exp) != len(got):
                msg = f"expected {len(exp)} packets on port {port} got {len(got)}"
                problems.append(msg)
                lines.append(f"  {msg}")
            for i in range(max(len(exp), len(got))):
                e = exp[i] if i < len(exp) else None
                g = got[i] if i < len(got) else None
                head = f"  packet {i}"
                if e is not None:
                    head += f" (expect at line {e.line})"
                why = bad[i] if i < len(bad) else None
                if why:
                    problems.append(f"port {port} packet {i} {why}")
                    head += f": {why}"
                elif e is None:
                    head += ": not expected"
                elif g is None:
                    head += ": not received"
                else:
                    lines.append(head + ": ok")
                    continue
                lines.append(head)
                if e is None or e.pattern is None:
                    lines.append(f"    expect: {'(any packet)' if e is not None else '-'}")
                    lines.append(f"    got:    {g.hex().upper() if g is not None else '-'}")
                else:
                    lines.extend(_rows(e.pattern, g.hex().upper() if g is not None else ""))
                    if e.exact_len:
                        lines.append("    (exact length: the expect ends in $)")
            diff.append(f"port {port}:")
            diff.extend(lines)
        if problems and self.unobserved:
            ports = ", ".join(f"{p} ({n})" for p, n in sorted(self.unobserved.items()))
            diff.append(f"ignored output to unobserved ports (port (packets)): {ports}")
        if problems and self.warnings:
            diff.append("warnings:")
            diff.extend(f"  {w}" for w in self.warnings)
        return problems, diff


# ---------------------------------------------------------------- entry points


def run_stf_commands(program: Any, commands: list[P.Command]) -> StfResult:
    """Run parsed STF commands on a fresh switch loaded with a compiled program."""
    from ..v1model.switch import Switch

    try:
        sw = Switch(program)
        run = _Run(sw, commands)
        run.run()
    except (P4Unsupported, Unimplemented, _Unsupported) as e:
        return StfResult(UNSUPPORTED, str(e))
    except _Fail as e:
        return StfResult(FAIL, str(e))
    problems, diff = run.verdict()
    outputs = {port: list(run.received.get(port, [])) for port in sorted(run.observed)}
    if problems:
        reason = "; ".join(problems[:3]) + (
            f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
        )
        return StfResult(FAIL, reason, "\n".join(diff), run.warnings, outputs=outputs)
    return StfResult(PASS, "", "", run.warnings, outputs=outputs)


def run_stf(
    p4_path: str | Path,
    stf_path: str | Path | None = None,
    include_dirs: Sequence[str | Path] = (),
    defines: Mapping[str, str] | None = None,
) -> StfResult:
    """Compile `p4_path`, run `stf_path` (default: same name with .stf) and compare.

    Never raises for a test problem: compile errors, STF errors and unexpected exceptions
    all come back as a result (`internal error: ...` with the traceback attached).
    """
    from ..compiler import compile_file

    p4_path = Path(p4_path)
    stf = Path(stf_path) if stf_path is not None else p4_path.with_suffix(".stf")
    name = p4_path.stem
    try:
        try:
            program = compile_file(p4_path, [Path(d) for d in include_dirs], dict(defines or {}))
        except P4Unsupported as e:
            return StfResult(UNSUPPORTED, str(e), name=name)
        except Unimplemented as e:
            return StfResult(UNSUPPORTED, str(e), name=name)
        except P4Error as e:
            return StfResult(FAIL, str(e), name=name)
        try:
            commands = P.parse_stf_file(stf)
        except P.StfError as e:
            return StfResult(FAIL, f"stf: {e}", name=name)
        except OSError as e:
            return StfResult(FAIL, f"stf: {e}", name=name)
        result = run_stf_commands(program, commands)
    except Exception as e:  # noqa: BLE001 - a test must never crash the whole run
        return StfResult(
            FAIL,
            f"internal error: {type(e).__name__}: {e}",
            traceback=traceback.format_exc(),
            name=name,
        )
    result.name = name
    return result
