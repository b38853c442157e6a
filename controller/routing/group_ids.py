"""Group ids that stay put across route computations.

A route computation numbers each switch's next-hop groups afresh; written as they come,
one link failure would renumber most groups of most switches and rewrite nearly every
route. `GroupIds` keeps, per switch, the id of each next-hop set (its key: the members
and weights) from one computation to the next:

- a key that is in the previous assignment and in this one keeps its id;
- a key that disappears frees its id, but the id is *pending*: the switch may still hold
  the old group and routes pointing at it, so the id is not given to another key until
  the caller says those users are gone (`release(switch)`, after the state that dropped
  the key has been written);
- a new key takes, in this order: the id it held last time, if that id is free or still
  pending for it (a link that comes back gets its old groups back); the lowest free id no
  other key held last; the lowest free id; the next id never used;
- keys are taken in the order given, so the same sequence of inputs gives the same ids.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = ["GroupIdError", "GroupIds"]

K = TypeVar("K", bound=Hashable)


class GroupIdError(ValueError):
    """A switch needs more group ids than the allocator may hand out."""


@dataclass(slots=True)
class _SwitchIds(Generic[K]):
    live: dict[K, int] = field(default_factory=dict)  # the last assignment
    pending: set[int] = field(default_factory=set)  # freed, maybe still used on the switch
    free: set[int] = field(default_factory=set)  # freed and released: reusable
    next_id: int = 0
    last_id: dict[K, int] = field(default_factory=dict)  # a freed key -> its id
    last_key: dict[int, K] = field(default_factory=dict)  # that id -> the key


class GroupIds(Generic[K]):
    """Per-switch ids for next-hop keys (see the module docstring). Ids run from
    `first_id`; `limit` (exclusive) bounds them, None: unbounded."""

    def __init__(self, first_id: int = 0, limit: int | None = None) -> None:
        if first_id < 0 or (limit is not None and limit <= first_id):
            raise ValueError(f"group ids from {first_id} below {limit}: an empty range")
        self.first_id = first_id
        self.limit = limit
        self._switches: dict[str, _SwitchIds[K]] = {}

    def _of(self, switch: str) -> _SwitchIds[K]:
        st = self._switches.get(switch)
        if st is None:
            st = self._switches[switch] = _SwitchIds(next_id=self.first_id)
        return st

    def assign(self, switch: str, keys: Iterable[K]) -> dict[K, int]:
        """The ids of `keys` at `switch` (a key given twice counts once); the keys of the
        previous assignment that are not among them free their ids (pending)."""
        st = self._of(switch)
        wanted = list(dict.fromkeys(keys))
        keep = set(wanted)
        for key in [k for k in st.live if k not in keep]:
            gid = st.live.pop(key)
            st.pending.add(gid)
            st.last_id[key] = gid
            st.last_key[gid] = key
        for key in wanted:
            if key not in st.live:
                st.live[key] = self._take(switch, st, key)
        return {k: st.live[k] for k in wanted}

    def _take(self, switch: str, st: _SwitchIds[K], key: K) -> int:
        old = st.last_id.get(key)
        if old is not None and (old in st.free or old in st.pending):
            gid = old
        elif st.free:
            unclaimed = [i for i in st.free if i not in st.last_key]
            gid = min(unclaimed) if unclaimed else min(st.free)
        else:
            gid = st.next_id
            if self.limit is not None and gid >= self.limit:
                raise GroupIdError(
                    f"switch {switch}: more than {self.limit - self.first_id} next-hop "
                    f"groups at once (ids {self.first_id}..{self.limit - 1})"
                )
            st.next_id += 1
        st.free.discard(gid)
        st.pending.discard(gid)
        owner = st.last_key.pop(gid, None)
        if owner is not None:
            st.last_id.pop(owner, None)
        return gid

    def release(self, switch: str) -> None:
        """`switch` now holds only its last assignment: ids freed before become reusable."""
        st = self._switches.get(switch)
        if st is not None:
            st.free |= st.pending
            st.pending.clear()

    def release_all(self) -> None:
        for name in self._switches:
            self.release(name)

    def ids(self, switch: str) -> Mapping[K, int]:
        """The last assignment of `switch` (key -> id)."""
        st = self._switches.get(switch)
        return dict(st.live) if st is not None else {}

    def pending(self, switch: str) -> frozenset[int]:
        """Ids freed at `switch` and not yet released."""
        st = self._switches.get(switch)
        return frozenset(st.pending) if st is not None else frozenset()
