"""A v1model switch: loads a compiled program and runs packets through BMv2's pipeline.

    parser -> verifyChecksum -> ingress -> (clone / resubmit / multicast / drop)
           -> egress -> computeChecksum -> deparser -> (clone / recirculate / output)

Semantics follow BMv2 `simple_switch` (see docs in each method). The switch owns all its
state; nothing is module-level. `process()` is deterministic for a given seed and clock.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..clock import Clock, SimClock
from ..codegen.program import CompiledProgram
from ..engine.errors import InvalidArgument, NotFound
from ..engine.runtime import PacketReader, _ExitSignal, _ParserError, _Reject
from ..engine.tables import Table
from .context import DROP_PORT, PacketContext
from .externs import ActionProfile, Counter, DirectCounter, DirectMeter, Meter, Register

NORMAL, INGRESS_CLONE, EGRESS_CLONE, COALESCED, RECIRC, REPLICATION, RESUBMIT = range(7)
MAX_PASSES = 64  # resubmits/recirculations of one packet before it is dropped


@dataclass(slots=True)
class CloneSession:
    """Where clones of a session go: (port, rid) replicas, optional truncation."""

    replicas: list[tuple[int, int]]
    packet_length: int = 0
    class_of_service: int = 0


@dataclass(slots=True)
class Digest:
    receiver: int
    name: str
    data: Any


@dataclass(slots=True)
class TraceEvent:
    kind: str
    name: str
    detail: Any = None


class ValueSet:
    """A parser value set: members are tuples of (value, mask) per field."""

    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = size
        self.members: list[tuple[tuple[int, int], ...]] = []

    def match(self, key: tuple[int, ...]) -> bool:
        for m in self.members:
            if all((k & mk) == (v & mk) for k, (v, mk) in zip(key, m, strict=False)):
                return True
        return False


@dataclass(slots=True)
class _Pass:
    """One packet instance between ingress and egress."""

    hdr: Any
    meta: Any
    std: Any
    payload: bytes
    original: bytes
    truncate: int | None = None


class Switch:
    """A v1model target running one compiled program."""

    def __init__(
        self,
        program: CompiledProgram,
        *,
        seed: int = 0,
        clock: Clock | None = None,
        log_console: bool = False,
        cpu_port: int | None = None,
        trace: bool = False,
    ) -> None:
        self.program = program
        self.info = program.info
        self.clock: Clock = clock or SimClock()
        self.ctx = PacketContext(seed)
        self.ctx.log_console = log_console
        self.log_console = log_console
        self.cpu_port = cpu_port
        self.tables: dict[str, Table] = {}
        self.externs: dict[str, Any] = {}
        self.value_sets: dict[str, ValueSet] = {}
        self.mc_groups: dict[int, list[tuple[int, int]]] = {}
        self.clone_sessions: dict[int, CloneSession] = {}
        self.digests: list[Digest] = []
        self.trace_log: list[TraceEvent] = []
        self.tracing = trace
        self.trace: Callable[..., None] = self._trace if trace else _no_trace
        self.dropped = 0
        namespace: dict[str, Any] = {}
        code = compile(program.source, f"<softswitch:{program.name}>", "exec")
        exec(code, namespace)  # noqa: S102 - our own generated code
        self.pipe = namespace["build"](self)
        self._field_lists = self._collect_field_lists()

    # ------------------------------------------------------------ used by generated code
    def table(self, name: str, fns: tuple[Callable[..., Any], ...]) -> Table:
        spec = self.info.tables[name]
        t = Table(spec, fns, self.info.actions, self.ctx)
        if spec.implementation:
            prof = self.externs[spec.implementation]
            t.profile = prof
            prof.tables.append(t)
            prof.selector_widths = tuple(k.width for k in spec.selector_keys)
        if spec.direct_counter:
            dc = self.externs[spec.direct_counter]
            dc.table = t
        if spec.direct_meter:
            t.direct_meter = self.externs[spec.direct_meter]
        self.tables[name] = t
        return t

    def extern(self, name: str) -> Any:
        spec = self.info.externs[name]
        args = spec.args
        now = self.clock.now_us
        obj: Any
        if spec.kind == "register":
            width, signed = _width(spec.type_args[0]) if spec.type_args else (32, False)
            obj = Register(name, int(args[0]), width, signed)
        elif spec.kind == "counter":
            obj = Counter(name, int(args[0]), str(args[1]), self.ctx)
        elif spec.kind == "direct_counter":
            obj = DirectCounter(name, str(args[0]))
        elif spec.kind == "meter":
            obj = Meter(name, int(args[0]), str(args[1]), self.ctx, now)
        elif spec.kind == "direct_meter":
            obj = DirectMeter(name, str(args[0]), now)
        elif spec.kind == "action_profile":
            obj = ActionProfile(name, int(args[0]), None, 0)
        elif spec.kind == "action_selector":
            obj = ActionProfile(name, int(args[1]), str(args[0]), int(args[2]))
        else:
            raise InvalidArgument(f"extern {spec.kind} cannot be instantiated")
        self.externs[name] = obj
        return obj

    def value_set(self, name: str) -> ValueSet:
        vs = ValueSet(name, self.info.value_sets[name].size)
        self.value_sets[name] = vs
        return vs

    def _trace(self, kind: str, name: str, detail: Any = None) -> None:
        if kind == "extract" and detail is not None:
            detail = ", ".join(f"{f}={getattr(detail, a):#x}" for f, a in _fields(detail))
        if kind == "table" and detail is not None:
            hit, _idx, _fn, args, entry = detail
            action = entry.action if hit else f"{entry.action} (default)"
            detail = f"{'hit' if hit else 'miss'} -> {action}{tuple(args)}"
        ev = TraceEvent(kind, name, detail)
        self.trace_log.append(ev)
        if self.log_console:
            print(f"[trace] {kind} {name}{': ' + str(detail) if detail else ''}", file=sys.stderr)

    # ------------------------------------------------------------ control-plane helpers
    def table_named(self, name: str) -> Table:
        t = self.tables.get(name)
        if t is None:
            raise NotFound(f"no table named {name}")
        return t

    def mc_group_set(self, gid: int, replicas: list[tuple[int, int]]) -> None:
        """Multicast group `gid` sends one copy per (port, rid) replica."""
        self.mc_groups[gid] = list(replicas)

    def clone_session_set(self, sid: int, session: CloneSession) -> None:
        self.clone_sessions[sid] = session

    # ------------------------------------------------------------ packets
    def process(self, port: int, data: bytes) -> list[tuple[int, bytes]]:
        """Run one packet received on `port`; return the packets sent, in order."""
        out: list[tuple[int, bytes]] = []
        self._ingress(port, bytes(data), NORMAL, None, out, 0)
        return out

    def _new_pass(
        self, itype: int, port: int, data: bytes, preserved: dict[str, Any] | None
    ) -> _Pass:
        p = self.pipe
        hdr, meta, std = p["H"](), p["M"](), p["S"]()
        if preserved:
            for f, v in preserved.items():
                setattr(meta, f, v)
        std.ingress_port = port
        std.packet_length = len(data)
        std.instance_type = itype
        return _Pass(hdr, meta, std, b"", data)

    def _parse(self, ps: _Pass) -> None:
        pk = PacketReader(ps.original)
        try:
            self.pipe["parser"](pk, ps.hdr, ps.meta, ps.std)
        except _ParserError as e:
            ps.std.parser_error = e.code
        except _Reject:
            pass
        ps.payload = ps.original[pk.off :]
        self.ctx.payload = ps.payload

    def _ingress(
        self,
        port: int,
        data: bytes,
        itype: int,
        preserved: dict[str, Any] | None,
        out: list[tuple[int, bytes]],
        depth: int,
    ) -> None:
        if depth > MAX_PASSES:
            self.dropped += 1
            return
        ctx = self.ctx
        ps = self._new_pass(itype, port, data, preserved)
        std = ps.std
        std.ingress_global_timestamp = self.clock.now_us() & 0xFFFFFFFFFFFF
        ctx.reset(std, len(data))
        ctx.digests = []
        self._parse(ps)
        try:
            self.pipe["verify"](ps.hdr, ps.meta)
        except _ExitSignal:
            pass
        ctx.std = std
        try:
            self.pipe["ingress"](ps.hdr, ps.meta, std)
        except _ExitSignal:
            pass
        clone, resubmit = ctx.clone_request, ctx.resubmit_request
        ps.truncate = ctx.truncate_to
        for recv, name, d in ctx.digests:
            self.digests.append(Digest(recv, name, d))
        if clone is not None:
            self._clone_i2e(ps, clone, out, depth)
        if resubmit is not False:
            kept = self._preserve(ps.meta, resubmit)
            self._ingress(port, data, RESUBMIT, kept, out, depth + 1)
            return
        gid = std.mcast_grp
        if gid:
            for eport, rid in self.mc_groups.get(gid, ()):
                copy = _Pass(
                    ps.hdr._copy(), ps.meta._copy(), std._copy(), ps.payload, data, ps.truncate
                )
                copy.std.egress_rid = rid
                copy.std.instance_type = REPLICATION
                self._egress(eport, copy, out, depth)
            return
        if std.egress_spec == DROP_PORT:
            self.dropped += 1
            self.trace("drop", "ingress", "egress_spec is the drop port (511)")
            return
        self._egress(std.egress_spec, ps, out, depth)

    def _clone_i2e(
        self, ps: _Pass, req: tuple[str, int, int | None], out: list[tuple[int, bytes]], depth: int
    ) -> None:
        """I2E clone: the packet as received, re-parsed, metadata zero but the field list."""
        _ctype, sid, fl = req
        session = self.clone_sessions.get(sid)
        if session is None:
            return
        kept = self._preserve(ps.meta, fl)
        for eport, rid in session.replicas:
            c = self._new_pass(INGRESS_CLONE, ps.std.ingress_port, ps.original, kept)
            self.ctx.reset(c.std, len(ps.original))
            self._parse(c)
            c.std.egress_rid = rid
            self._egress(eport, c, out, depth, truncate=session.packet_length)

    def _egress(
        self, eport: int, ps: _Pass, out: list[tuple[int, bytes]], depth: int, truncate: int = 0
    ) -> None:
        ctx = self.ctx
        std = ps.std
        now = self.clock.now_us() & 0xFFFFFFFFFFFF
        std.egress_port = eport
        std.enq_timestamp = now
        std.egress_global_timestamp = now
        std.deq_timedelta = 0
        std.enq_qdepth = 0
        std.deq_qdepth = 0
        ctx.reset(std, std.packet_length)
        ctx.payload = ps.payload
        try:
            self.pipe["egress"](ps.hdr, ps.meta, std)
        except _ExitSignal:
            pass
        clone, recirc = ctx.clone_request, ctx.recirculate_request
        trunc = ctx.truncate_to if ctx.truncate_to is not None else ps.truncate
        dropped = std.egress_spec == DROP_PORT
        e2e_copy = None
        if clone is not None:
            e2e_copy = (ps.hdr._copy(), self._preserve(ps.meta, clone[2]))
        if not dropped:
            ctx.payload = ps.payload
            try:
                self.pipe["compute"](ps.hdr, ps.meta)
            except _ExitSignal:
                pass
            buf = bytearray()
            self.pipe["deparser"](buf, ps.hdr)
            data = bytes(buf) + ps.payload
            if trunc is not None:
                data = data[:trunc]
            if truncate:
                data = data[:truncate]
            if recirc is not False:
                kept = self._preserve(ps.meta, recirc)
                self._ingress(eport, data, RECIRC, kept, out, depth + 1)
            else:
                out.append((eport, data))
                self.trace("output", f"port {eport}", f"{len(data)} bytes")
        else:
            self.dropped += 1
            self.trace("drop", "egress", "egress_spec is the drop port (511)")
        if e2e_copy is not None:
            self._clone_e2e(ps, clone, e2e_copy, out, depth)  # type: ignore[arg-type]

    def _clone_e2e(
        self,
        ps: _Pass,
        req: tuple[str, int, int | None],
        copy: tuple[Any, dict[str, Any]],
        out: list[tuple[int, bytes]],
        depth: int,
    ) -> None:
        """E2E clone: the egress output (headers as egress left them) runs egress again."""
        session = self.clone_sessions.get(req[1])
        if session is None or depth > MAX_PASSES:
            return
        hdr, kept = copy
        for eport, rid in session.replicas:
            c = self._new_pass(EGRESS_CLONE, ps.std.ingress_port, ps.original, kept)
            c.hdr = hdr._copy()
            c.payload = ps.payload
            c.std.packet_length = ps.std.packet_length
            c.std.egress_rid = rid
            self._egress(eport, c, out, depth + 1, truncate=session.packet_length)

    # ------------------------------------------------------------ field lists
    def _collect_field_lists(self) -> dict[int, list[str]]:
        """`@field_list(N)` annotations on user-metadata fields -> {N: [python attrs]}."""
        from ..codegen.typeresolve import field_py

        lists: dict[int, list[str]] = {}
        mcls = self.pipe["M"]
        mname = getattr(mcls, "_p4name", None)
        annots = self.program.field_annotations.get(mname or "", {})
        for fname, fa in annots.items():
            for aname, body in fa:
                if aname == "field_list":
                    for part in body.split(","):
                        try:
                            lists.setdefault(int(part.strip(), 0), []).append(field_py(fname))
                        except ValueError:
                            continue
        return lists

    def _preserve(self, meta: Any, fl: int | None | bool) -> dict[str, Any]:
        if fl is None or fl is False or fl is True:
            return {}
        return {f: _copy_value(getattr(meta, f)) for f in self._field_lists.get(int(fl), [])}


def _no_trace(kind: str, name: str, detail: Any = None) -> None:
    """Tracing off: the generated code has no trace calls; the switch's own are no-ops."""


def _fields(h: Any) -> list[tuple[str, str]]:
    from ..codegen.typeresolve import field_py

    return [(f, field_py(f)) for f in h._fields]


def _copy_value(v: Any) -> Any:
    return v._copy() if hasattr(v, "_copy") else v


def _width(t: Any) -> tuple[int, bool]:
    from ..frontend import types as T

    t0 = T.strip_newtype(t)
    if isinstance(t0, T.BitType):
        return t0.width, t0.signed
    return T.width_of(t0), False


__all__ = ["CloneSession", "Digest", "Switch", "field"]
