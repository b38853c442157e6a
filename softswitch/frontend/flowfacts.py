"""What the flow checks (`flowcheck.py`) know at one program point, and how it merges.

Two facts per storage location, after p4c's def-use pass (frontends/p4/simplifyDefUse):

* `uninit`: the scalar locations that may still hold no written value (a path reaches
  this point from their declaration, or from the start of a block for `out` parameters,
  without a write);
* `valid`: per header, Y (valid), N (invalid) or M (maybe), M when unknown; `quiet`:
  headers whose `isValid()` was called in the enclosing condition, which p4c treats as
  valid until their validity changes or the `if`/`switch`/table that tested them ends.

Paths name a location from a root variable (`("hdr@7", "ipv4", "ttl")`, `[i]` for a stack
element); each declaration has its own root, so shadowing names cannot collide.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from . import ast as A
from .errors import Pos
from .shapes import Shape

__all__ = ["Diagnostic", "Facts", "Place", "Ref", "Var", "join", "meet_valid"]

Path = tuple[str, ...]

YES, NO, MAYBE = "Y", "N", "M"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One warning: where and what (p4c's wording)."""

    pos: Pos
    message: str

    def __str__(self) -> str:
        return f"{self.pos}: warning: {self.message}"


@dataclass(frozen=True, slots=True)
class Var:
    """A variable or parameter: its root path element, shape and the name p4c prints."""

    root: str
    shape: Shape
    name: str
    type_name: str = ""  # the named type, to find an extern's methods (packet_in ...)


@dataclass(frozen=True, slots=True)
class Ref:
    """A name that is not storage: action, function, extern function, table, instance,
    constant."""

    kind: str
    decls: tuple[A.Decl, ...] = ()


@dataclass(frozen=True, slots=True)
class Place:
    """An l-value: the paths it may denote (several for a stack indexed at run time), its
    shape and how p4c prints it. `exact` is False when it is one of several elements."""

    paths: tuple[Path, ...]
    shape: Shape
    text: str
    exact: bool = True


@dataclass(slots=True)
class Facts:
    uninit: set[Path] = field(default_factory=set)
    valid: dict[Path, str] = field(default_factory=dict)
    quiet: set[Path] = field(default_factory=set)
    reach: bool = True

    def copy(self) -> Facts:
        return Facts(set(self.uninit), dict(self.valid), set(self.quiet), self.reach)

    def same(self, other: Facts) -> bool:
        return (
            self.uninit == other.uninit
            and self.valid == other.valid
            and self.quiet == other.quiet
            and self.reach == other.reach
        )

    def validity(self, paths: Iterable[Path]) -> str:
        """p4c's answer for a field access through any of `paths`: valid if one is."""
        out = YES
        seen = False
        for p in paths:
            v = YES if p in self.quiet else self.valid.get(p, MAYBE)
            if v == YES:
                return YES
            if not seen or v == MAYBE:
                out = v
            seen = True
        return out

    def set_valid(self, path: Path, value: str) -> None:
        self.valid[path] = value
        self.quiet.discard(path)

    def kill(self, path: Path) -> None:
        n = len(path)
        self.uninit = {u for u in self.uninit if u[:n] != path}

    def maybe_uninit(self, path: Path) -> bool:
        n = len(path)
        return any(u[:n] == path for u in self.uninit)


def meet_valid(a: dict[Path, str], b: dict[Path, str]) -> dict[Path, str]:
    """Validity after two paths join: kept where both agree, M elsewhere (p4c keeps the
    keys of the first side; a missing key means M)."""
    return {k: v if b.get(k, MAYBE) == v else MAYBE for k, v in a.items()}


def join(branches: list[Facts], quiet: set[Path]) -> Facts:
    """Merge the ends of alternative branches (at least one). Validity merges whether or
    not a branch can reach the join (as p4c does); uninitialised locations only from the
    branches that can."""
    valid = branches[0].valid
    for b in branches[1:]:
        valid = meet_valid(b.valid, valid)
    live = [b for b in branches if b.reach]
    uninit: set[Path] = set()
    for b in live:
        uninit |= b.uninit
    return Facts(uninit, dict(valid), set(quiet), bool(live))
