"""A whole fabric over P4Runtime: sessions to every switch, reconciliation, restarts.

See `pool.py` for the concurrency model, `reconcile.py` for how desired and actual state
are compared, `switch.py` for one switch's sync, `sessions.py` for the fabric-wide
operations and the watcher that restores restarted switches.
"""

from .pool import FabricError, WorkerPool, default_workers
from .reconcile import Plan, content, identity, plan, wildcards
from .sessions import FabricSessions, RestoreEvent
from .switch import ManagedSwitch, Pipeline, SwitchTarget, SyncResult

__all__ = [
    "FabricError",
    "FabricSessions",
    "ManagedSwitch",
    "Pipeline",
    "Plan",
    "RestoreEvent",
    "SwitchTarget",
    "SyncResult",
    "WorkerPool",
    "content",
    "default_workers",
    "identity",
    "plan",
    "wildcards",
]
