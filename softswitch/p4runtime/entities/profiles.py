"""`ActionProfileMember`, `ActionProfileGroup` and one-shot action selector programming.

Spec sections followed ("ActionProfileMember & ActionProfileGroup"):

* Member Programming: member id non-zero (INVALID_ARGUMENT); INSERT of an existing id
  ALREADY_EXISTS, a full profile RESOURCE_EXHAUSTED; MODIFY/DELETE of a missing id
  NOT_FOUND; DELETE of a member still in a group or referenced by a table entry
  FAILED_PRECONDITION. The action must be one of the profile's tables' actions.
* Group Programming: only on selectors; members must exist (NOT_FOUND) and appear once
  (INVALID_ARGUMENT); weights must be > 0 (exactly 0 with `weights_disallowed`);
  `max_size` may not exceed the P4Info `max_group_size` (INVALID_ARGUMENT) nor change in a
  MODIFY (INVALID_ARGUMENT, except that 0 means "unchanged", as BMv2's PI accepts); the
  sum of weights (or, with `sum_of_members`, the member count) above `max_size` (else
  `max_group_size`) is RESOURCE_EXHAUSTED; a group referenced by an entry cannot be
  deleted (FAILED_PRECONDITION).
* Weights: as BMv2's PI does, a member of weight w appears w times in the selection list
  the data plane hashes into (members by ascending id, copies consecutive).
* Watch ports are stored and read back as written (`watch_port` bytes or the deprecated
  `watch` integer); softswitch has no port status, so they never exclude a member.
* One Shot Action Selector Programming: supported. Each one-shot entry gets a group and
  members of its own, with ids above 2^32 that no client id can collide with, hidden from
  member/group reads; reads return the action set as written (canonical bytestrings).
  `group_action` and non-default selection mode / size semantics are UNIMPLEMENTED;
  mixing one-shot and member/group programming on one selector is INVALID_ARGUMENT; the
  one-shot size limits (`max_group_size`, `max_member_weight`) are INVALID_ARGUMENT.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from p4rt_proto import p4runtime_pb2

from ..bytestrings import decode_uint, encode_uint
from .codec import Code, decode_action, encode_action, fail
from .info import ActionInfo, ProfileInfo, TableInfo

INSERT, MODIFY, DELETE = (
    p4runtime_pb2.Update.INSERT,
    p4runtime_pb2.Update.MODIFY,
    p4runtime_pb2.Update.DELETE,
)
HIDDEN_IDS = 1 << 32  # one-shot members and groups: above any uint32 id

__all__ = ["HIDDEN_IDS", "OneShot", "Profiles", "Watch"]


@dataclass(frozen=True, slots=True)
class Watch:
    """A member's watch port as the client wrote it: `watch_port` bytes (kept as an int,
    written back canonically) or the deprecated int32 `watch`."""

    kind: str | None = None  # "watch_port", "watch" or None
    port: int = 0

    @classmethod
    def of(cls, msg: Any, what: str) -> Watch:
        kind = msg.WhichOneof("watch_kind")
        if kind == "watch_port":
            return cls(kind, decode_uint(msg.watch_port, 32, f"{what}: watch_port"))
        if kind == "watch":
            return cls(kind, msg.watch)
        return cls()

    def encode(self, out: Any) -> None:
        if self.kind == "watch_port":
            out.watch_port = encode_uint(self.port)
        elif self.kind == "watch":
            out.watch = self.port


@dataclass(slots=True)
class _Group:
    members: list[tuple[int, int, Watch]]  # (member id, weight, watch) as written
    max_size: int


@dataclass(slots=True)
class OneShot:
    """The hidden group behind a one-shot table entry."""

    profile: str
    group: int
    members: list[int]
    actions: list[tuple[ActionInfo, tuple[int, ...], int, Watch]]


@dataclass(slots=True)
class _ProfileState:
    groups: dict[int, _Group] = field(default_factory=dict)
    oneshots: dict[int, OneShot] = field(default_factory=dict)


class Profiles:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.switch = store.switch
        self.index = store.index
        self.state: dict[str, _ProfileState] = {}
        self._next_hidden = HIDDEN_IDS

    # ------------------------------------------------------------ helpers
    def profile(self, ap_id: int, what: str) -> tuple[ProfileInfo, Any]:
        info = self.index.profiles.get(ap_id)
        if info is None:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: unknown action profile id {ap_id}")
        engine = self.switch.externs.get(info.name)
        if engine is None:
            raise fail(Code.FAILED_PRECONDITION, f"action profile {info.name} is not instantiated")
        return info, engine

    def _state(self, name: str) -> _ProfileState:
        return self.state.setdefault(name, _ProfileState())

    def _action(self, info: ProfileInfo, msg: Any, what: str) -> tuple[ActionInfo, tuple[int, ...]]:
        a, args = decode_action(self.index, msg, what)
        scopes = [self.index.tables[t].scopes.get(a.id) for t in info.table_ids]
        scopes = [s for s in scopes if s is not None]
        if not scopes:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: {a.name} is not an action of its tables")
        if all(s == "DEFAULT_ONLY" for s in scopes):
            raise fail(Code.PERMISSION_DENIED, f"{what}: {a.name} is a default-only action")
        return a, args

    @staticmethod
    def _manual(engine: Any) -> bool:
        return any(m < HIDDEN_IDS for m in engine.members) or any(
            g < HIDDEN_IDS for g in engine.groups
        )

    def _referenced(self, engine: Any, member: int | None = None, group: int | None = None) -> bool:
        for table in engine.tables:
            for e in table.entries.values():
                if member is not None and e.member == member:
                    return True
                if group is not None and e.group == group:
                    return True
        return False

    def check_member_ref(self, ap_id: int, mid: int) -> None:
        info, engine = self.profile(ap_id, "table entry")
        if mid == 0 or mid >= HIDDEN_IDS or mid not in engine.members:
            raise fail(Code.NOT_FOUND, f"{info.name}: no member {mid}")

    def check_group_ref(self, ap_id: int, gid: int) -> None:
        info, engine = self.profile(ap_id, "table entry")
        if not info.with_selector:
            raise fail(Code.INVALID_ARGUMENT, f"{info.name} is an action profile without groups")
        if gid == 0 or gid >= HIDDEN_IDS or gid not in engine.groups:
            raise fail(Code.NOT_FOUND, f"{info.name}: no group {gid}")

    # ------------------------------------------------------------ members
    def write_member(self, utype: int, msg: Any) -> None:
        if msg.action_profile_id == 0:
            raise fail(Code.INVALID_ARGUMENT, "member: action profile id missing")
        info, engine = self.profile(msg.action_profile_id, "member")
        mid = msg.member_id
        if mid == 0:
            raise fail(Code.INVALID_ARGUMENT, f"{info.name}: member id 0")
        if utype == DELETE:
            if mid not in engine.members:
                raise fail(Code.NOT_FOUND, f"{info.name}: no member {mid}")
            if any(mid in g.members for g in engine.groups.values()):
                raise fail(Code.FAILED_PRECONDITION, f"{info.name}: member {mid} is in a group")
            if self._referenced(engine, member=mid):
                raise fail(Code.FAILED_PRECONDITION, f"{info.name}: member {mid} is in use")
            engine.delete_member(mid)
            return
        if utype not in (INSERT, MODIFY):
            raise fail(Code.INVALID_ARGUMENT, f"{info.name}: unknown update type {utype}")
        if not msg.HasField("action"):
            raise fail(Code.INVALID_ARGUMENT, f"{info.name}: member {mid} needs an action")
        if self._state(info.name).oneshots:
            raise fail(Code.INVALID_ARGUMENT, f"{info.name} is programmed with one-shot entries")
        a, args = self._action(info, msg.action, f"{info.name}: member {mid}")
        if utype == INSERT:
            engine.add_member(mid, a.name, args)
        else:
            engine.modify_member(mid, a.name, args)

    def read_members(self, msg: Any) -> Iterator[Any]:
        for info, engine in self._selected(msg.action_profile_id, "member"):
            ids = [msg.member_id] if msg.member_id else sorted(engine.members)
            for mid in ids:
                m = engine.members.get(mid)
                if m is None or mid >= HIDDEN_IDS:
                    continue
                out = p4runtime_pb2.ActionProfileMember(action_profile_id=info.id, member_id=mid)
                a = self.index.action_names.get(m.action)
                if a is not None:
                    encode_action(a, m.args, out.action)
                yield out

    def _selected(self, ap_id: int, what: str) -> list[tuple[ProfileInfo, Any]]:
        if ap_id:
            return [self.profile(ap_id, what)]
        out = []
        for info in self.index.profiles.values():
            engine = self.switch.externs.get(info.name)
            if engine is not None:
                out.append((info, engine))
        return out

    # ------------------------------------------------------------ groups
    def write_group(self, utype: int, msg: Any) -> None:
        if msg.action_profile_id == 0:
            raise fail(Code.INVALID_ARGUMENT, "group: action profile id missing")
        info, engine = self.profile(msg.action_profile_id, "group")
        gid = msg.group_id
        if not info.with_selector:
            raise fail(Code.INVALID_ARGUMENT, f"{info.name} is an action profile without groups")
        if gid == 0:
            raise fail(Code.INVALID_ARGUMENT, f"{info.name}: group id 0")
        state = self._state(info.name)
        if utype == DELETE:
            if gid not in engine.groups:
                raise fail(Code.NOT_FOUND, f"{info.name}: no group {gid}")
            if self._referenced(engine, group=gid):
                raise fail(Code.FAILED_PRECONDITION, f"{info.name}: group {gid} is in use")
            engine.delete_group(gid)
            state.groups.pop(gid, None)
            return
        if utype not in (INSERT, MODIFY):
            raise fail(Code.INVALID_ARGUMENT, f"{info.name}: unknown update type {utype}")
        if state.oneshots:
            raise fail(Code.INVALID_ARGUMENT, f"{info.name} is programmed with one-shot entries")
        max_size = msg.max_size
        if max_size < 0 or (info.max_group_size and max_size > info.max_group_size):
            raise fail(
                Code.INVALID_ARGUMENT,
                f"{info.name}: max_size {max_size} (max_group_size {info.max_group_size})",
            )
        if utype == INSERT:
            if gid in engine.groups:
                raise fail(Code.ALREADY_EXISTS, f"{info.name}: group {gid} exists")
        else:
            if gid not in engine.groups:
                raise fail(Code.NOT_FOUND, f"{info.name}: no group {gid}")
            old = state.groups.get(gid)
            old_size = old.max_size if old is not None else 0
            if max_size and max_size != old_size:
                raise fail(Code.INVALID_ARGUMENT, f"{info.name}: max_size cannot change")
            max_size = old_size
        members = self._group_members(info, engine, msg)
        self._check_size(info, [w for _m, w, _w in members], max_size, Code.RESOURCE_EXHAUSTED)
        weights = {m: max(w, 1) for m, w, _watch in members}
        selection = [m for m in sorted(weights) for _ in range(weights[m])]
        engine.set_group(gid, selection, weights, create=utype == INSERT)
        state.groups[gid] = _Group(members, max_size)

    def _group_members(
        self, info: ProfileInfo, engine: Any, msg: Any
    ) -> list[tuple[int, int, Watch]]:
        out: list[tuple[int, int, Watch]] = []
        seen: set[int] = set()
        for m in msg.members:
            what = f"{info.name}: group {msg.group_id}: member {m.member_id}"
            if m.member_id in seen:
                raise fail(Code.INVALID_ARGUMENT, f"{what} listed twice (use a weight)")
            seen.add(m.member_id)
            self._check_weight(info, m.weight, what)
            if m.member_id not in engine.members or m.member_id >= HIDDEN_IDS:
                raise fail(Code.NOT_FOUND, f"{what} does not exist")
            out.append((m.member_id, m.weight, Watch.of(m, what)))
        return out

    @staticmethod
    def _check_weight(info: ProfileInfo, weight: int, what: str) -> None:
        if info.weights_disallowed:
            if weight != 0:
                raise fail(Code.INVALID_ARGUMENT, f"{what}: weights are disallowed")
        elif weight <= 0:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: weight must be > 0")
        elif info.sum_of_members and info.max_member_weight and weight > info.max_member_weight:
            raise fail(
                Code.INVALID_ARGUMENT,
                f"{what}: weight above max_member_weight {info.max_member_weight}",
            )

    @staticmethod
    def _check_size(info: ProfileInfo, weights: list[int], max_size: int, code: Any) -> None:
        size = len(weights) if info.sum_of_members else sum(max(w, 1) for w in weights)
        limit = max_size or info.max_group_size
        if limit and size > limit:
            raise fail(code, f"{info.name}: group size {size} above {limit}")

    def read_groups(self, msg: Any) -> Iterator[Any]:
        for info, engine in self._selected(msg.action_profile_id, "group"):
            if not info.with_selector:
                continue
            state = self._state(info.name)
            ids = [msg.group_id] if msg.group_id else sorted(engine.groups)
            for gid in ids:
                g = engine.groups.get(gid)
                if g is None or gid >= HIDDEN_IDS:
                    continue
                out = p4runtime_pb2.ActionProfileGroup(action_profile_id=info.id, group_id=gid)
                rec = state.groups.get(gid)
                if rec is None:  # not written through P4Runtime: weights from the list
                    rec = _Group(
                        [(m, g.members.count(m), Watch()) for m in dict.fromkeys(g.members)], 0
                    )
                for mid, weight, watch in rec.members:
                    om = out.members.add(member_id=mid, weight=weight)
                    watch.encode(om)
                out.max_size = rec.max_size
                yield out

    # ------------------------------------------------------------ one-shot
    def oneshot_prepare(self, t: TableInfo, aps: Any) -> list[Any]:
        """Validate a one-shot action set for table `t`; nothing is created yet."""
        from .tables import check_scope

        info, engine = self.profile(t.profile, t.name)
        if not info.with_selector:
            raise fail(Code.INVALID_ARGUMENT, f"{t.name}: one-shot needs an action selector")
        if aps.HasField("group_action"):
            raise fail(Code.UNIMPLEMENTED, f"{t.name}: one-shot group_action")
        if aps.action_selection_mode or aps.size_semantics:
            raise fail(Code.UNIMPLEMENTED, f"{t.name}: per-group selection mode / size semantics")
        if self._manual(engine):
            raise fail(Code.INVALID_ARGUMENT, f"{info.name} is programmed with members and groups")
        actions = []
        for i, apa in enumerate(aps.action_profile_actions):
            what = f"{t.name}: one-shot action {i}"
            a, args = decode_action(self.index, apa.action, what)
            check_scope(t, a.id, a.name, default=False)
            self._check_weight(info, apa.weight, what)
            actions.append((a, args, apa.weight, Watch.of(apa, what)))
        self._check_size(info, [w for _a, _x, w, _w in actions], 0, Code.INVALID_ARGUMENT)
        return actions

    def oneshot_create(self, ap_id: int, actions: list[Any]) -> OneShot:
        info, engine = self.profile(ap_id, "one-shot")
        created: list[int] = []
        try:
            for a, args, _weight, _watch in actions:
                mid = self._hidden_id()
                engine.add_member(mid, a.name, args)
                created.append(mid)
            weights = {
                m: max(w, 1) for m, (_a, _x, w, _watch) in zip(created, actions, strict=True)
            }
            selection = [m for m in created for _ in range(weights[m])]
            gid = self._hidden_id()
            engine.set_group(gid, selection, weights, create=True)
        except Exception:
            for mid in created:
                engine.delete_member(mid)
            raise
        oneshot = OneShot(info.name, gid, created, list(actions))
        self._state(info.name).oneshots[gid] = oneshot
        return oneshot

    def oneshot_release(self, oneshot: OneShot) -> None:
        engine = self.switch.externs.get(oneshot.profile)
        self._state(oneshot.profile).oneshots.pop(oneshot.group, None)
        if engine is None:
            return
        engine.groups.pop(oneshot.group, None)
        for mid in oneshot.members:
            engine.members.pop(mid, None)

    @staticmethod
    def oneshot_encode(oneshot: OneShot, out: Any) -> None:
        for a, args, weight, watch in oneshot.actions:
            apa = out.action_profile_actions.add(weight=weight)
            encode_action(a, args, apa.action)
            watch.encode(apa)

    def _hidden_id(self) -> int:
        self._next_hidden += 1
        return self._next_hidden

    # ------------------------------------------------------------ reconcile
    def reconcile_into(self, new: Any) -> None:
        """Members, then groups, of every profile the new P4Info still has (by name)."""
        from .reconcile import remap_action

        new_profiles = new.index.by_name("profiles")
        for info in self.index.profiles.values():
            target = new_profiles.get(info.name)
            engine = self.switch.externs.get(info.name)
            if target is None or engine is None:
                continue
            for m in self.read_members(
                p4runtime_pb2.ActionProfileMember(action_profile_id=info.id)
            ):
                action = remap_action(self.index, new.index, m.action)
                if action is None:
                    continue
                m.action.CopyFrom(action)
                m.action_profile_id = target.id
                new.try_write(INSERT, "action_profile_member", m)
            for g in self.read_groups(p4runtime_pb2.ActionProfileGroup(action_profile_id=info.id)):
                g.action_profile_id = target.id
                new.try_write(INSERT, "action_profile_group", g)
