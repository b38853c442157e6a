"""Routes as JSON, written without building the whole table as Python objects:

    {"switches": {SW: {"routes": {PREFIX: {"next_hops": [NEIGHBOUR, ...],
                                           "weights": [W, ...]}}}},
     "seconds": T}

Each group's JSON text is made once per switch and each prefix's key once overall."""

from __future__ import annotations

import json
from typing import TextIO

import numpy as np

from .result import NextHops, Routes

__all__ = ["write_routes_json"]


def _group(nh: NextHops) -> str:
    return (
        f'{{"next_hops": {json.dumps(list(nh.neighbours))}, '
        f'"weights": {json.dumps(list(nh.weights))}}}'
    )


def write_routes_json(routes: Routes, out: TextIO, seconds: float | None = None) -> None:
    """Write the JSON document above to `out` (`seconds` omitted when None)."""
    g = routes.graph
    keys: list[str] = []
    owner: list[int] = []
    for i, prefixes in enumerate(g.prefixes):
        for p in prefixes:
            keys.append(json.dumps(p) + ": ")
            owner.append(i)
    owner_a = np.asarray(owner, dtype=np.int64)
    out.write('{"switches": {')
    for u, name in enumerate(routes.switches):
        frags = [_group(nh) for nh in routes.groups_of(u)]
        gid = routes.leaf_group_ids(u)[owner_a] if len(owner_a) else owner_a
        sel = np.flatnonzero(gid >= 0).tolist()
        items = [keys[i] + frags[j] for i, j in zip(sel, gid[sel].tolist(), strict=True)]
        items.extend(json.dumps(p) + ": " + frags[j] for p, j in routes.host_routes(u))
        out.write(("" if u == 0 else ", ") + json.dumps(name) + ': {"routes": {')
        out.write(", ".join(items))
        out.write("}}")
    out.write("}")
    if seconds is not None:
        out.write(f', "seconds": {seconds:.6f}')
    out.write("}\n")
