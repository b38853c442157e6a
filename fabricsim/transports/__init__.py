"""Transports: one module per congestion control, all implementing `CongestionControl`.

    cc = make_transport("dcqcn", path, {"g": 1 / 128})

`TRANSPORTS` names them: `dcqcn`, `dctcp`, `hpcc`, `ndp`, and `none` (a fixed window of
one bandwidth-delay product, no reaction: the baseline). Overrides are fields of the
transport's parameter class; an unknown one is refused with the list of known ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from .base import CongestionControl, FixedWindow, IntHop, PathInfo
from .dcqcn import Dcqcn, DcqcnParams
from .dctcp import Dctcp, DctcpParams
from .hpcc import Hpcc, HpccParams
from .ndp import Ndp, NdpParams

__all__ = [
    "TRANSPORTS",
    "CongestionControl",
    "IntHop",
    "PathInfo",
    "make_transport",
    "reads_int",
    "transport_params",
]


@dataclasses.dataclass(slots=True, frozen=True)
class NoneParams:
    window: float | None = None  # packets; None: the path's BDP plus one


def _none(path: PathInfo, p: NoneParams) -> FixedWindow:
    return FixedWindow(path, p.window)


TRANSPORTS: dict[str, tuple[Callable[[PathInfo, Any], CongestionControl], type]] = {
    "dcqcn": (Dcqcn, DcqcnParams),
    "dctcp": (Dctcp, DctcpParams),
    "hpcc": (Hpcc, HpccParams),
    "ndp": (Ndp, NdpParams),
    "none": (_none, NoneParams),
}


def transport_params(name: str, overrides: Mapping[str, float] | None = None) -> Any:
    """The parameter object of transport `name` with `overrides` applied (ValueError on an
    unknown transport or field)."""
    try:
        _make, cls = TRANSPORTS[name]
    except KeyError:
        raise ValueError(f"transport {name!r}: one of {', '.join(TRANSPORTS)}") from None
    fields = {f.name: f for f in dataclasses.fields(cls)}
    kw: dict[str, Any] = {}
    for key, value in (overrides or {}).items():
        f = fields.get(key)
        if f is None:
            known = ", ".join(fields) or "none"
            raise ValueError(f"transport {name}: no parameter {key!r} (known: {known})")
        default = f.default
        kw[key] = (
            int(value) if isinstance(default, int) and not isinstance(default, bool) else value
        )
    return cls(**kw)


def reads_int(name: str) -> bool:
    """Whether transport `name` reacts to INT records echoed in ACKs (HPCC)."""
    entry = TRANSPORTS.get(name)
    return entry is not None and bool(getattr(entry[0], "reads_int", False))


def make_transport(
    name: str, path: PathInfo, overrides: Mapping[str, float] | None = None
) -> CongestionControl:
    params = transport_params(name, overrides)
    make, _cls = TRANSPORTS[name]
    return make(path, params)
