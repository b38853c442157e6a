"""The switch graph routing works on: switches as indices 0..N-1, directed edges as numpy
arrays sorted by (source, source port), hosts left out (they are reached through the
prefixes of their leaf and a /32 at that leaf)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from controller.topology import Topology, TopologyError

__all__ = ["SwitchGraph"]


@dataclass(slots=True, frozen=True, eq=False)
class SwitchGraph:
    """`src[e] -> dst[e]` leaves `src` by `port[e]` with capacity `cap[e]` (bits/s);
    edges of switch u are `indptr[u]:indptr[u + 1]`; `rev[e]` is the opposite edge.
    `leaves` are the switches that own subnets (failed switches excluded), `prefixes[i]`
    the subnets of `leaves[i]`; `hosts[u]` the (host name, IP) pairs attached to u."""

    names: tuple[str, ...]
    index: Mapping[str, int]
    failed: frozenset[str]
    src: np.ndarray
    dst: np.ndarray
    port: np.ndarray
    cap: np.ndarray
    rev: np.ndarray
    indptr: np.ndarray
    leaves: np.ndarray
    prefixes: tuple[tuple[str, ...], ...]
    hosts: tuple[tuple[tuple[str, str], ...], ...]

    @property
    def n(self) -> int:
        return len(self.names)

    @classmethod
    def build(
        cls,
        topo: Topology,
        failed_links: Iterable[tuple[str, str]] = (),
        failed_switches: Iterable[str] = (),
        link_capacity: Mapping[tuple[str, str], float] | None = None,
    ) -> SwitchGraph:
        names = topo.switch_names()
        index = {n: i for i, n in enumerate(names)}
        failed = frozenset(failed_switches)
        for s in failed:
            if s not in index:
                raise TopologyError(f"no switch named {s!r}")
        failed_pairs = list(failed_links)
        caps = dict(link_capacity or {})
        pairs = {frozenset((lk.a, lk.b)) for lk in topo.links} if failed_pairs or caps else set()
        down: set[frozenset[str]] = set()
        for a, b in failed_pairs:
            for node in (a, b):
                if node not in index:
                    raise TopologyError(f"no switch named {node!r}")
            if frozenset((a, b)) not in pairs:
                raise TopologyError(f"no link between {a} and {b}")
            down.add(frozenset((a, b)))
        for a, b in caps:
            if frozenset((a, b)) not in pairs:
                raise TopologyError(f"link capacity given for {a}->{b}, which is not a switch link")

        n = len(names)
        links = [
            lk
            for lk in topo.links
            if not (down or failed)
            or (lk.a not in failed and lk.b not in failed and frozenset((lk.a, lk.b)) not in down)
        ]
        a_idx = np.fromiter((index[lk.a] for lk in links), dtype=np.int64, count=len(links))
        b_idx = np.fromiter((index[lk.b] for lk in links), dtype=np.int64, count=len(links))
        a_port = np.fromiter((lk.a_port for lk in links), dtype=np.int64, count=len(links))
        b_port = np.fromiter((lk.b_port for lk in links), dtype=np.int64, count=len(links))
        rate = np.fromiter((lk.rate_bps for lk in links), dtype=np.int64, count=len(links))
        src_a = np.concatenate([a_idx, b_idx])
        dst_a = np.concatenate([b_idx, a_idx])
        port_a = np.concatenate([a_port, b_port])
        cap_a = np.concatenate([rate, rate])
        if caps:
            # supplied capacities (telemetry) are clamped to [1, rate]
            pos = {(int(u), int(v)): e for e, (u, v) in enumerate(zip(src_a, dst_a, strict=True))}
            for (a, b), c in caps.items():
                e = pos.get((index[a], index[b]))
                if e is not None:
                    cap_a[e] = int(min(max(c, 1), cap_a[e]))
        order = np.lexsort((port_a, src_a))
        src_a, dst_a, port_a, cap_a = src_a[order], dst_a[order], port_a[order], cap_a[order]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(src_a, minlength=n), out=indptr[1:])
        key = src_a * n + dst_a
        by_key = np.argsort(key, kind="stable")
        rev = by_key[np.searchsorted(key[by_key], dst_a * n + src_a)]

        leaves = [i for i, s in enumerate(topo.switches) if s.subnets and s.name not in failed]
        hosts: list[list[tuple[str, str]]] = [[] for _ in range(n)]
        for h in topo.hosts:
            if h.switch not in failed:
                hosts[index[h.switch]].append((h.name, h.ip))
        return cls(
            names=names,
            index=index,
            failed=failed,
            src=src_a.astype(np.int32),
            dst=dst_a.astype(np.int32),
            port=port_a.astype(np.int32),
            cap=cap_a,
            rev=rev.astype(np.int64),
            indptr=indptr,
            leaves=np.asarray(leaves, dtype=np.int64),
            prefixes=tuple(topo.switches[i].subnets for i in leaves),
            hosts=tuple(tuple(h) for h in hosts),
        )
