"""Keeping a switch process's long-lived objects out of the garbage collector's scans.

A `softswitch` process holds a large, long-lived heap: modules, the protobuf descriptors,
the compiled program and its tables. Python's cyclic collector walks all of it at every
full collection, and the objects that packets and P4Runtime writes allocate trigger full
collections again and again. `gc.freeze()` moves every object tracked at the time into a
permanent generation that collections skip. Objects in it are still freed by reference
counting, but a cycle in it is never collected: so the heap is frozen only when what it
holds is meant to live (after start-up, after a pipeline is committed), and thawed before
the next freeze so that what was dropped in between (the program a new pipeline replaced)
is collected first.

Only the process's entry point calls these: a library that froze its caller's heap would
keep the caller's cycles alive.
"""

from __future__ import annotations

import gc

__all__ = ["freeze_heap", "refreeze_heap"]


def freeze_heap() -> None:
    """Move every object tracked now into the permanent generation (at start-up)."""
    gc.freeze()


def refreeze_heap() -> None:
    """After the long-lived objects changed (a pipeline was committed): thaw the permanent
    generation, collect what is no longer reachable (the replaced program), and freeze
    what remains."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
