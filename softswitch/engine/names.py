"""How P4 names become Python names in generated code."""

from __future__ import annotations

import keyword

__all__ = ["field_py"]


def field_py(name: str) -> str:
    """The Python attribute that holds P4 field `name` (keywords and `_x` get `f_`)."""
    if keyword.iskeyword(name) or name.startswith("_") or name == "mro":
        return "f_" + name
    return name
