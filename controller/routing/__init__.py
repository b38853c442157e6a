"""Route computation: per switch and destination prefix, every shortest-path next hop
(ECMP) with capacity-derived weights (WCMP), recomputed after failures and diffed so that
only what changed is rewritten; `GroupIds` keeps each switch's group ids stable across
computations. See compute.py for the method."""

from .compute import compute_routes
from .diff import RouteDiff, diff_routes
from .graph import SwitchGraph
from .group_ids import GroupIdError, GroupIds
from .jsonout import write_routes_json
from .result import NextHops, Routes, RouteSummary, SwitchRoutes

__all__ = [
    "GroupIdError",
    "GroupIds",
    "NextHops",
    "RouteDiff",
    "RouteSummary",
    "Routes",
    "SwitchGraph",
    "SwitchRoutes",
    "compute_routes",
    "diff_routes",
    "write_routes_json",
]
