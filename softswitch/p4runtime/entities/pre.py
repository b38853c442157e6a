"""`PacketReplicationEngineEntry`: multicast groups and clone sessions.

Spec sections followed ("PacketReplicationEngineEntry"):

* MulticastGroupEntry / CloneSessionEntry: id 0 is INVALID_ARGUMENT in writes (it is the
  read wildcard); INSERT of an existing id ALREADY_EXISTS, MODIFY/DELETE of a missing one
  NOT_FOUND. Replicas: the port is the deprecated `egress_port` (uint32) or `port`
  (bytestring), read back in the form written; it must fit v1model's 9-bit egress port,
  `instance` v1model's 16-bit `egress_rid`, and (port, instance) pairs must be distinct
  (all INVALID_ARGUMENT). Backup replicas are UNIMPLEMENTED. Group `metadata` is kept and
  read back.
* Clone sessions: `class_of_service` must fit v1model's 3-bit `priority`;
  `packet_length_bytes` 0 means no truncation (negative: INVALID_ARGUMENT).
* Reads: id 0 reads all groups / sessions, in id order.

The switch (`Switch.mc_groups`, `Switch.clone_sessions`) is the source of truth; this
module only remembers what P4Runtime carries and the switch does not.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from p4rt_proto import p4runtime_pb2

from ...v1model.switch import CloneSession
from ..bytestrings import decode_uint, encode_uint
from .codec import Code, fail

INSERT, MODIFY, DELETE = (
    p4runtime_pb2.Update.INSERT,
    p4runtime_pb2.Update.MODIFY,
    p4runtime_pb2.Update.DELETE,
)
PORT_BITS = 9  # v1model egress_port
RID_BITS = 16  # v1model egress_rid
COS_BITS = 3  # v1model priority

__all__ = ["Pre"]


@dataclass(frozen=True, slots=True)
class _Written:
    """Replicas as the client wrote them: (port, instance, port field name)."""

    replicas: tuple[tuple[int, int, str], ...]
    metadata: bytes = b""

    def pairs(self) -> list[tuple[int, int]]:
        return [(p, i) for p, i, _kind in self.replicas]


class Pre:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.switch = store.switch
        self.groups: dict[int, _Written] = {}
        self.sessions: dict[int, _Written] = {}

    def write(self, utype: int, msg: Any) -> None:
        kind = msg.WhichOneof("type")
        if kind == "multicast_group_entry":
            self._write_group(utype, msg.multicast_group_entry)
        elif kind == "clone_session_entry":
            self._write_session(utype, msg.clone_session_entry)
        else:
            raise fail(Code.INVALID_ARGUMENT, "packet replication entry: no type set")

    @staticmethod
    def _replicas(msgs: Any, what: str) -> tuple[tuple[int, int, str], ...]:
        out: list[tuple[int, int, str]] = []
        seen: set[tuple[int, int]] = set()
        for r in msgs:
            if r.backup_replicas:
                raise fail(Code.UNIMPLEMENTED, f"{what}: backup replicas")
            kind = r.WhichOneof("port_kind") or "egress_port"
            port = decode_uint(r.port, 32, f"{what}: port") if kind == "port" else r.egress_port
            if port >> PORT_BITS:
                raise fail(Code.INVALID_ARGUMENT, f"{what}: port {port} does not exist")
            if r.instance >> RID_BITS:
                raise fail(Code.INVALID_ARGUMENT, f"{what}: instance {r.instance} above 16 bits")
            if (port, r.instance) in seen:
                raise fail(
                    Code.INVALID_ARGUMENT, f"{what}: replica ({port}, {r.instance}) given twice"
                )
            seen.add((port, r.instance))
            out.append((port, r.instance, kind))
        return tuple(out)

    @staticmethod
    def _check_exists(utype: int, present: bool, what: str) -> None:
        if utype == INSERT and present:
            raise fail(Code.ALREADY_EXISTS, f"{what} exists")
        if utype in (MODIFY, DELETE) and not present:
            raise fail(Code.NOT_FOUND, f"{what} does not exist")
        if utype not in (INSERT, MODIFY, DELETE):
            raise fail(Code.INVALID_ARGUMENT, f"{what}: unknown update type {utype}")

    # ------------------------------------------------------------ multicast groups
    def _write_group(self, utype: int, m: Any) -> None:
        gid = m.multicast_group_id
        what = f"multicast group {gid}"
        if gid == 0:
            raise fail(Code.INVALID_ARGUMENT, "multicast group id 0")
        self._check_exists(utype, gid in self.switch.mc_groups, what)
        if utype == DELETE:
            del self.switch.mc_groups[gid]
            self.groups.pop(gid, None)
            return
        written = _Written(self._replicas(m.replicas, what), m.metadata)
        self.switch.mc_group_set(gid, written.pairs())
        self.groups[gid] = written

    def _write_session(self, utype: int, c: Any) -> None:
        sid = c.session_id
        what = f"clone session {sid}"
        if sid == 0:
            raise fail(Code.INVALID_ARGUMENT, "clone session id 0")
        self._check_exists(utype, sid in self.switch.clone_sessions, what)
        if utype == DELETE:
            del self.switch.clone_sessions[sid]
            self.sessions.pop(sid, None)
            return
        if c.class_of_service >> COS_BITS:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: class of service {c.class_of_service}")
        if c.packet_length_bytes < 0:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: negative packet length")
        written = _Written(self._replicas(c.replicas, what))
        session = CloneSession(written.pairs(), c.packet_length_bytes, c.class_of_service, 0)
        self.switch.clone_session_set(sid, session)
        self.sessions[sid] = written

    # ------------------------------------------------------------ reads
    def read(self, msg: Any) -> Iterator[Any]:
        kind = msg.WhichOneof("type")
        if kind == "multicast_group_entry":
            gid = msg.multicast_group_entry.multicast_group_id
            ids = [gid] if gid else sorted(self.switch.mc_groups)
            for g in ids:
                replicas = self.switch.mc_groups.get(g)
                if replicas is None:
                    continue
                out = p4runtime_pb2.PacketReplicationEngineEntry()
                m = out.multicast_group_entry
                m.multicast_group_id = g
                written = self.groups.get(g)
                self._encode_replicas(replicas, written, m.replicas)
                if written is not None:
                    m.metadata = written.metadata
                yield out
        elif kind == "clone_session_entry":
            sid = msg.clone_session_entry.session_id
            ids = [sid] if sid else sorted(self.switch.clone_sessions)
            for s in ids:
                session = self.switch.clone_sessions.get(s)
                if session is None:
                    continue
                out = p4runtime_pb2.PacketReplicationEngineEntry()
                c = out.clone_session_entry
                c.session_id = s
                self._encode_replicas(session.replicas, self.sessions.get(s), c.replicas)
                c.class_of_service = session.class_of_service
                c.packet_length_bytes = session.packet_length
                yield out
        else:
            raise fail(Code.INVALID_ARGUMENT, "packet replication entry: no type set")

    @staticmethod
    def _encode_replicas(pairs: list[tuple[int, int]], written: _Written | None, out: Any) -> None:
        if written is not None and written.pairs() == list(pairs):
            kinds = [kind for _p, _i, kind in written.replicas]
        else:  # changed behind P4Runtime's back: the 1.x default form
            kinds = ["egress_port"] * len(pairs)
        for (port, instance), kind in zip(pairs, kinds, strict=True):
            r = out.add(instance=instance)
            if kind == "port":
                r.port = encode_uint(port)
            else:
                r.egress_port = port

    # ------------------------------------------------------------ reconcile
    def reconcile_into(self, new: Any) -> None:
        """The PRE does not depend on the program: everything is kept."""
        for kind in ("multicast_group_entry", "clone_session_entry"):
            req = p4runtime_pb2.PacketReplicationEngineEntry()
            getattr(req, kind).SetInParent()
            for out in self.read(req):
                new.try_write(INSERT, "packet_replication_engine_entry", out)
