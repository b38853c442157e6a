"""P4 annotations (`@name("x")`, `@id(3)`, ...) as the parser records them.

A module of its own, apart from the AST, because compiled programs keep annotations (P4Info
echoes them): loading a saved program then needs this class but not the whole AST.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import NOWHERE, Pos

__all__ = ["Annotation", "Annots", "find_annotation"]


@dataclass(frozen=True, slots=True)
class Annotation:
    name: str
    body: str  # raw text between the brackets ("" when there is none)
    pos: Pos = NOWHERE
    structured: bool = False  # `@name[...]`: a list of expressions or of key=value pairs

    def string_value(self) -> str | None:
        """The body as a single string literal (`@name("x")` -> "x"), if it is one."""
        b = self.body.strip()
        if len(b) >= 2 and b[0] == '"' and b[-1] == '"':
            # backslash escapes undone; other characters (UTF-8 text) kept as they are
            return b[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        return None

    def int_value(self) -> int | None:
        b = self.body.strip().replace("_", "")
        try:
            return int(b, 0)
        except ValueError:
            return None


Annots = tuple[Annotation, ...]


def find_annotation(annots: Annots, name: str) -> Annotation | None:
    for a in annots:
        if a.name == name:
            return a
    return None
