"""Match-action tables: entries, lookups, default actions, direct resources.

Lookups avoid linear scans where the key allows it: all-exact keys use one dict; exact keys
plus one lpm key use one dict per prefix length, longest first; ternary, range and optional
keys use a list kept in priority order (larger priority first, as P4Runtime defines it; equal
priorities keep insertion order).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import and_
from typing import Any

from .. import program_info as pinfo
from . import matches as M
from .errors import AlreadyExists, InvalidArgument, NotFound, PermissionDenied, ResourceExhausted

Result = tuple[bool, int, Callable[..., Any], tuple[int, ...], Any]


@dataclass(slots=True, eq=False)
class Entry:
    matches: tuple[M.Match, ...]
    priority: int
    action: str
    args: tuple[int, ...]
    member: int | None = None  # action profile member id (indirect tables)
    group: int | None = None  # action profile group id (indirect tables)
    seq: int = 0
    packets: int = 0
    bytes: int = 0
    meter: Any = None
    timeout_ns: int = 0
    last_hit_us: int = 0
    const: bool = False
    result: Result | None = field(default=None, repr=False)


class Table:
    """One table of a loaded program."""

    def __init__(
        self,
        spec: pinfo.TableSpec,
        fns: Sequence[Callable[..., Any]],
        actions: dict[str, pinfo.ActionSpec],
        context: Any = None,
    ) -> None:
        self.spec = spec
        self.name = spec.name
        self.context = context
        self.kinds = tuple(k.match_kind for k in spec.keys)
        self.widths = tuple(k.width for k in spec.keys)
        self.action_names = tuple(a.name for a in spec.actions)
        self.action_fns = dict(zip(self.action_names, fns, strict=True))
        self._action_pos = {name: i for i, name in enumerate(self.action_names)}
        # action -> (position, function) of a hit's result (add_plain)
        self._hit = {a: (i, self.action_fns[a]) for a, i in self._action_pos.items()}
        self._has_priority = spec.has_priority
        self._size = spec.size
        self.action_specs = actions
        self.scopes = {a.name: a.scope for a in spec.actions}
        self.profile: Any = None  # set for tables with an action profile/selector
        self.clock: Any = None  # set for tables that support idle timeout (hit times)
        self.direct_counter = spec.direct_counter is not None
        self.direct_meter: Any = None
        self.meter_color = 0
        self._seq = 0
        self.entries: dict[tuple[Any, ...], Entry] = {}
        self.all_exact = all(k == "exact" for k in self.kinds)
        lpms = [i for i, k in enumerate(self.kinds) if k == "lpm"]
        self.lpm_index = (
            lpms[0] if len(lpms) == 1 and all(k in ("exact", "lpm") for k in self.kinds) else None
        )
        self._one_lpm = self.kinds == ("lpm",)
        self._exact: dict[tuple[int, ...], Entry] = {}
        self._by_plen: dict[int, dict[tuple[int, ...], Entry]] = {}
        self._plens: list[tuple[int, int]] = []  # (prefix length, mask), longest first
        self._ordered: list[Entry] = []
        self.default = Entry((), 0, "", ())
        # what generated code calls: `empty` is the default result while the table has no
        # entries (the key need not even be built), `hot` the lookup specialised for this
        # table's match kinds and features; both are rebuilt by every change (`refresh`)
        self.empty: Result | None = None
        self.hot: Callable[[tuple[int, ...]], Result] = self.lookup
        self._find: Callable[[tuple[int, ...]], Entry | None] | None = None
        self._exact_results = _ExactResults(self)
        self.set_default(spec.default_action, spec.default_args, initial=True)
        if spec.const_entries:
            self._add_const_entries(spec.const_entries)
        self.refresh()

    def refresh(self) -> None:
        """Rebind `empty` and `hot` after entries, the default action or the table's
        attachments (profile, direct meter, idle-timeout clock) changed."""
        self.empty = None if self.entries else self.default.result
        self._find = None  # rebuilt on the next lookup (a bulk insert builds it once)
        plain = self.profile is None and self.clock is None and self.direct_meter is None
        if plain and not self.direct_counter and self.all_exact:
            self.hot = self._exact_results.__getitem__
        elif (
            plain
            and not self.direct_counter
            and self.lpm_index is not None
            and len(self.kinds) == 1
        ):
            self.hot = self._lpm_lookup()
        elif plain:
            self.hot = self._build_hot
        else:
            self.hot = self.lookup

    def _build_hot(self, key: tuple[int, ...]) -> Result:
        """The first lookup after a change: specialise `hot`, then look up."""
        find = self._entry_finder()
        default = self.default
        if self.direct_counter:
            ctx = self.context

            def hot(key: tuple[int, ...]) -> Result:
                e = find(key)
                if e is None:
                    return default.result  # type: ignore[return-value]
                e.packets += 1
                e.bytes += ctx.packet_length if ctx is not None else 0
                return e.result  # type: ignore[return-value]

        else:

            def hot(key: tuple[int, ...]) -> Result:
                e = find(key)
                return default.result if e is None else e.result  # type: ignore[return-value]

        self.hot = hot
        return hot(key)

    def _lpm_lookup(self) -> Callable[[tuple[int, ...]], Result]:
        """One-key LPM: one dict per prefix length, longest first, masks precomputed."""
        levels = [(mask, self._by_plen[plen]) for plen, mask in self._plens]
        default = self.default

        def lookup(key: tuple[int, ...]) -> Result:
            v = key[0]
            for mask, entries in levels:
                e = entries.get((v & mask,))
                if e is not None:
                    return e.result  # type: ignore[return-value]
            return default.result  # type: ignore[return-value]

        return lookup

    # ------------------------------------------------------------ lookup
    def _entry_finder(self) -> Callable[[tuple[int, ...]], Entry | None]:
        """key -> the entry it hits (None: a miss), specialised for the current entries."""
        if self._find is None:
            if self.all_exact:
                self._find = self._exact.get
            elif self.lpm_index is not None:
                self._find = self._lpm_finder()
            else:
                self._find = _masked_finder(self._ordered, self.kinds, self.widths) or (self._scan)
        return self._find

    def _lpm_finder(self) -> Callable[[tuple[int, ...]], Entry | None]:
        p = self.lpm_index
        assert p is not None
        levels = [(mask, self._by_plen[plen]) for plen, mask in self._plens]

        def find(key: tuple[int, ...]) -> Entry | None:
            v = key[p]
            for mask, by_key in levels:
                e = by_key.get((*key[:p], v & mask, *key[p + 1 :]))
                if e is not None:
                    return e
            return None

        return find

    def _scan(self, key: tuple[int, ...]) -> Entry | None:
        for cand in self._ordered:
            if self._covers(cand, key):
                return cand
        return None

    def lookup(self, key: tuple[int, ...], sel: tuple[int, ...] = ()) -> Result:
        e = (self._find or self._entry_finder())(key)
        if e is None:
            return self.default.result  # type: ignore[return-value]
        if self.clock is not None:
            e.last_hit_us = self.clock.now_us()
        if self.direct_counter or self.direct_meter is not None:
            self._count(e)
        if e.group is not None or e.member is not None:
            return self.profile.resolve(self, e, sel)
        return e.result  # type: ignore[return-value]

    def _covers(self, e: Entry, key: tuple[int, ...]) -> bool:
        for m, v, kind, w in zip(e.matches, key, self.kinds, self.widths, strict=True):
            if not M.covers(m, kind, w, v):
                return False
        return True

    def _count(self, e: Entry) -> None:
        ctx = self.context
        length = ctx.packet_length if ctx is not None else 0
        if self.direct_counter:
            e.packets += 1
            e.bytes += length
        if self.direct_meter is not None:
            self.meter_color = self.direct_meter.execute_entry(e, length)

    # ------------------------------------------------------------ entries
    def _result(self, action: str, args: tuple[int, ...], hit: bool, e: Entry) -> Result:
        return (hit, self._action_pos[action], self.action_fns[action], args, e)

    def check_action(self, action: str, args: Sequence[int], default: bool) -> None:
        if action not in self.action_fns:
            raise InvalidArgument(f"action {action} is not an action of table {self.name}")
        scope = self.scopes[action]
        if default and scope == "TABLE_ONLY":
            raise PermissionDenied(f"action {action} cannot be the default of {self.name}")
        if not default and scope == "DEFAULT_ONLY":
            raise InvalidArgument(f"action {action} can only be the default of {self.name}")
        params = self.action_specs[action].params if action in self.action_specs else ()
        if len(args) != len(params):
            raise InvalidArgument(
                f"action {action} takes {len(params)} arguments, {len(args)} given"
            )
        for p, a in zip(params, args, strict=True):
            if not 0 <= a < (1 << p.width):
                raise InvalidArgument(f"argument {p.name}={a} does not fit in {p.width} bits")

    def canonical(self, matches: Sequence[M.Match]) -> tuple[M.Match, ...]:
        """Validate matches against the key and mask their values."""
        if len(matches) != len(self.kinds):
            raise InvalidArgument(f"{len(matches)} match fields for {len(self.kinds)} keys")
        out: list[M.Match] = []
        for m, kind, w in zip(matches, self.kinds, self.widths, strict=True):
            full = (1 << w) - 1
            if isinstance(m, M.Wildcard):
                if kind == "exact":
                    raise InvalidArgument("exact match fields cannot be wildcards")
                out.append(m)
            elif isinstance(m, M.Exact) and kind in ("exact", "optional"):
                self._fits(m.value, w)
                out.append(m if kind == "exact" else M.Optional(m.value))
            elif isinstance(m, M.Exact) and kind == "ternary":
                self._fits(m.value, w)
                out.append(M.Ternary(m.value, full))
            elif isinstance(m, M.Exact) and kind == "lpm":
                self._fits(m.value, w)
                out.append(M.Lpm(m.value, w))
            elif isinstance(m, M.Exact) and kind == "range":
                self._fits(m.value, w)
                out.append(M.Range(m.value, m.value))
            elif isinstance(m, M.Optional) and kind == "optional":
                self._fits(m.value, w)
                out.append(m)
            elif isinstance(m, M.Lpm) and kind == "lpm":
                if not 0 <= m.prefix_len <= w:
                    raise InvalidArgument(f"prefix length {m.prefix_len} out of range")
                self._fits(m.value, w)
                out.append(M.Lpm(m.value & M.lpm_mask(m.prefix_len, w), m.prefix_len))
            elif isinstance(m, M.Ternary) and kind == "ternary":
                self._fits(m.value, w)
                self._fits(m.mask, w)
                out.append(M.Ternary(m.value & m.mask, m.mask))
            elif isinstance(m, M.Range) and kind == "range":
                self._fits(m.low, w)
                self._fits(m.high, w)
                if m.low > m.high:
                    raise InvalidArgument("range low bound above high bound")
                out.append(m)
            else:
                raise InvalidArgument(f"{type(m).__name__} match for a {kind} key")
        return tuple(out)

    @staticmethod
    def _fits(v: int, w: int) -> None:
        if not 0 <= v < (1 << w):
            raise InvalidArgument(f"value {v:#x} does not fit in {w} bits")

    def _entry_key(self, matches: tuple[M.Match, ...], priority: int) -> tuple[Any, ...]:
        return (*matches, priority if self.spec.has_priority else 0)

    def add(
        self,
        matches: Sequence[M.Match],
        action: str,
        args: Sequence[int] = (),
        priority: int | None = None,
        *,
        member: int | None = None,
        group: int | None = None,
        const: bool = False,
        checked: bool = False,
        refresh: bool = True,
    ) -> Entry:
        """Insert an entry. `checked=True`: the caller (the P4Runtime layer) has already
        validated and canonicalised the matches and the action arguments. `refresh=False`:
        the caller calls `refresh()` itself before any packet looks the table up (after a
        batch of changes made under the switch's lock)."""
        ms = tuple(matches) if checked else self.canonical(matches)
        if self.spec.has_priority:
            if priority is None:
                raise InvalidArgument(f"table {self.name} needs a priority for its entries")
        else:
            priority = 0
        if member is None and group is None and not checked:
            self.check_action(action, args, default=False)
        k = self._entry_key(ms, priority)
        if k in self.entries:
            raise AlreadyExists(f"entry already exists in {self.name}")
        if len(self.entries) >= self.spec.size and not const:
            raise ResourceExhausted(f"table {self.name} is full ({self.spec.size} entries)")
        self._seq += 1
        e = Entry(ms, priority, action, tuple(args), member, group, self._seq, const=const)
        if self.clock is not None:
            e.last_hit_us = self.clock.now_us()
        if member is None and group is None:
            e.result = self._result(action, e.args, True, e)
        self.entries[k] = e
        self._index(e)
        if refresh:
            self.refresh()
        return e

    def add_plain(
        self, matches: tuple[M.Match, ...], priority: int, action: str, args: tuple[int, ...]
    ) -> Entry:
        """`add(matches, action, args, priority, checked=True, refresh=False)` of a direct
        action (the P4Runtime layer's bulk path): the same entry and the same errors, with
        the entry key hashed once. The caller checked the matches, the priority and the
        action, and calls `refresh()` before any packet looks the table up."""
        if not self._has_priority:
            priority = 0
        k = (*matches, priority)
        entries = self.entries
        if len(entries) >= self._size:
            if k in entries:
                raise AlreadyExists(f"entry already exists in {self.name}")
            raise ResourceExhausted(f"table {self.name} is full ({self.spec.size} entries)")
        seq = self._seq + 1
        e = Entry(matches, priority, action, args, None, None, seq)
        if entries.setdefault(k, e) is not e:
            raise AlreadyExists(f"entry already exists in {self.name}")
        self._seq = seq
        if self.clock is not None:
            e.last_hit_us = self.clock.now_us()
        pos, fn = self._hit[action]
        e.result = (True, pos, fn, args, e)
        if self._one_lpm and type(matches[0]) is M.Lpm:  # the common case of _index, in line
            m = matches[0]
            by_key = self._by_plen.get(m.prefix_len)
            if by_key is None:
                by_key = self._by_plen[m.prefix_len] = {}
                self._sort_plens()
            by_key[(m.value,)] = e
        else:
            self._index(e)
        return e

    def delete_plain(self, matches: tuple[M.Match, ...], priority: int) -> Entry:
        """Remove the entry of canonical `matches` and `priority` (NotFound,
        PermissionDenied for a constant entry) without a refresh: `delete` after its
        checks, and the P4Runtime layer's bulk path, which calls `refresh()` before any
        packet looks the table up."""
        if not self._has_priority:
            priority = 0
        k = (*matches, priority)
        entries = self.entries
        e = entries.get(k)
        if e is None:
            raise NotFound(f"no such entry in {self.name}")
        if e.const:
            raise PermissionDenied(f"table {self.name} has constant entries")
        del entries[k]
        m = matches[0]
        if self._one_lpm and type(m) is M.Lpm:  # the common case of _unindex, in line
            plen = m.prefix_len
            by_key = self._by_plen[plen]
            del by_key[(m.value,)]
            if not by_key:
                del self._by_plen[plen]
                self._sort_plens()
        else:
            self._unindex(e)
        # the result refers back to the entry: drop it so that reference counting frees a
        # deleted entry at once instead of leaving a cycle for the garbage collector
        e.result = None
        return e

    def _index(self, e: Entry) -> None:
        if self.all_exact:
            k = tuple(m.value for m in e.matches)  # type: ignore[union-attr]
            self._exact[k] = e
            if e.result is not None:
                self._exact_results[k] = e.result
        elif self.lpm_index is not None:
            lpm = e.matches[self.lpm_index]
            plen = lpm.prefix_len if isinstance(lpm, M.Lpm) else 0
            key = _lpm_key(e.matches)
            by_key = self._by_plen.get(plen)
            if by_key is None:
                by_key = self._by_plen[plen] = {}
                self._sort_plens()
            by_key[key] = e
        else:  # priority order (larger first), then insertion order: one binary search
            bisect.insort(self._ordered, e, key=_rank)

    def _sort_plens(self) -> None:
        w = self.widths[self.lpm_index]  # type: ignore[index]
        self._plens = [(n, M.lpm_mask(n, w)) for n in sorted(self._by_plen, reverse=True)]

    def _unindex(self, e: Entry) -> None:
        if self.all_exact:
            k = tuple(m.value for m in e.matches)  # type: ignore[union-attr]
            del self._exact[k]
            self._exact_results.pop(k, None)
        elif self.lpm_index is not None:
            lpm = e.matches[self.lpm_index]
            plen = lpm.prefix_len if isinstance(lpm, M.Lpm) else 0
            key = _lpm_key(e.matches)
            del self._by_plen[plen][key]
            if not self._by_plen[plen]:
                del self._by_plen[plen]
                self._sort_plens()
        else:
            self._ordered.remove(e)

    def find(
        self, matches: Sequence[M.Match], priority: int | None = None, checked: bool = False
    ) -> Entry:
        """The entry with these matches (NotFound); `checked` as for `add`."""
        ms = tuple(matches) if checked else self.canonical(matches)
        e = self.entries.get(self._entry_key(ms, priority or 0))
        if e is None:
            raise NotFound(f"no such entry in {self.name}")
        return e

    def modify(
        self,
        matches: Sequence[M.Match],
        action: str,
        args: Sequence[int] = (),
        priority: int | None = None,
        *,
        member: int | None = None,
        group: int | None = None,
    ) -> Entry:
        e = self.find(matches, priority)
        if e.const:
            raise PermissionDenied(f"table {self.name} has constant entries")
        if member is None and group is None:
            self.check_action(action, args, default=False)
        e.action, e.args, e.member, e.group = action, tuple(args), member, group
        e.result = (
            self._result(action, e.args, True, e) if member is None and group is None else None
        )
        if self.all_exact:
            self._unindex(e)
            self._index(e)
        self.refresh()
        return e

    def delete(
        self,
        matches: Sequence[M.Match],
        priority: int | None = None,
        *,
        checked: bool = False,
        refresh: bool = True,
    ) -> Entry:
        """Remove an entry (NotFound); `checked` and `refresh` as for `add`."""
        e = self.find(matches, priority, checked)  # canonical matches, NotFound
        self.delete_plain(e.matches, e.priority)
        if refresh:
            self.refresh()
        return e

    def clear(self) -> None:
        for e in [e for e in self.entries.values() if not e.const]:
            self.delete(e.matches, e.priority)

    def set_default(self, action: str, args: Sequence[int] = (), initial: bool = False) -> None:
        if not initial and self.spec.default_const:
            raise PermissionDenied(f"the default action of {self.name} is constant")
        if not initial:
            self.check_action(action, args, default=True)
        self.default.action = action
        self.default.args = tuple(args)
        self.default.result = self._result(action, tuple(args), False, self.default)
        self.refresh()

    def reset_default(self) -> None:
        self.set_default(self.spec.default_action, self.spec.default_args, initial=True)

    def _add_const_entries(self, entries: tuple[pinfo.ConstEntrySpec, ...]) -> None:
        """Entries in program order, as BMv2 runs them: p4c's BMv2 back end numbers them by
        their 1-based position (the smallest number wins) and leaves `priority = N` out;
        `@priority(N)` arrives negated and takes the place of the position. The numbers
        are turned around here so that the largest priority wins, as P4Runtime reads
        them. An entry is constant when the table's entries are, or it is marked `const`.
        """
        bmv2 = [
            -ce.priority if ce.priority is not None and ce.priority < 0 else i + 1
            for i, ce in enumerate(entries)
        ]
        top = max(bmv2, default=0) + 1
        for ce, b in zip(entries, bmv2, strict=True):
            const = self.spec.entries_const or ce.is_const
            self.add(ce.matches, ce.action, ce.args, top - b, const=const)


def _lpm_key(matches: tuple[M.Match, ...]) -> tuple[int, ...]:
    """The values of an exact-and-lpm entry, as its prefix length's dict holds them (a
    don't-care lpm field: 0)."""
    if len(matches) == 1:
        m = matches[0]
        return (m.value if isinstance(m, M.Lpm) else 0,)
    return tuple((m.value if isinstance(m, M.Exact | M.Lpm) else 0) for m in matches)


def _rank(e: Entry) -> tuple[int, int]:
    """Where an entry goes in a table searched in order: larger priority first, then
    older first."""
    return (-e.priority, e.seq)


class _ExactResults(dict):  # type: ignore[type-arg]
    """Exact key -> the result of its entry; a missing key is the table's default result."""

    __slots__ = ("table",)

    def __init__(self, table: Table) -> None:
        super().__init__()
        self.table = table

    def __missing__(self, key: tuple[int, ...]) -> Result:
        return self.table.default.result  # type: ignore[return-value]


def _masked_finder(
    ordered: list[Entry], kinds: tuple[str, ...], widths: tuple[int, ...]
) -> Callable[[tuple[int, ...]], Entry | None] | None:
    """Ternary/optional/lpm entries (in priority order) as a tuple-space search: entries
    with the same mask per key field share one dict of masked values, so a lookup is one
    dict probe per distinct mask tuple instead of a match test per entry. The dicts are
    probed in the order of their best entry; the search stops once no dict left can hold a
    better entry than the one found. None when an entry is not a mask (a range)."""
    groups: dict[tuple[int, ...], tuple[int, dict[tuple[int, ...], tuple[int, Entry]]]] = {}
    for rank, e in enumerate(ordered):
        masks: list[int] = []
        values: list[int] = []
        for m, kind, w in zip(e.matches, kinds, widths, strict=True):
            if isinstance(m, M.Wildcard):
                masks.append(0)
                values.append(0)
            elif isinstance(m, M.Exact | M.Optional):
                masks.append((1 << w) - 1)
                values.append(m.value)
            elif isinstance(m, M.Ternary):
                masks.append(m.mask)
                values.append(m.value & m.mask)
            elif isinstance(m, M.Lpm) and kind == "lpm":
                mk = M.lpm_mask(m.prefix_len, w)
                masks.append(mk)
                values.append(m.value & mk)
            else:
                return None
        mt = tuple(masks)
        if mt not in groups:
            groups[mt] = (rank, {})
        by_value = groups[mt][1]
        by_value.setdefault(tuple(values), (rank, e))  # the first in order wins
    probes = sorted(((top, mt, d) for mt, (top, d) in groups.items()), key=lambda g: g[0])
    if len(probes) == 1:
        (_top, mt1, d1) = probes[0]

        def find_one(key: tuple[int, ...]) -> Entry | None:
            hit = d1.get(tuple(map(and_, key, mt1)))
            return None if hit is None else hit[1]

        return find_one

    def find(key: tuple[int, ...]) -> Entry | None:
        best: tuple[int, Entry] | None = None
        for top, mt, d in probes:
            if best is not None and best[0] < top:
                break
            hit = d.get(tuple(map(and_, key, mt)))
            if hit is not None and (best is None or hit[0] < best[0]):
                best = hit
        return None if best is None else best[1]

    return find
