"""A whole fabric over P4Runtime: the controller core, sessions to every switch,
reconciliation, restarts.

`core.py` is what live fabrics and fabricsim share: the desired state of every switch and
the ordered updates each change asks for (`difference`: from what a switch was last written
to its new desired state), with no I/O; `southbound.py` writes them through gRPC sessions
(`sprayfabric up`) or in-process entity stores (fabricsim).

See `pool.py` for the concurrency model, `reconcile.py` for how desired and actual state
are compared, `switch.py` for one switch's sync, `sessions.py` for the fabric-wide
operations and the watcher that restores restarted switches.
"""

from .core import DesiredCache, FabricCore, Southbound, desired_state, difference, write_all
from .pool import FabricError, WorkerPool, default_workers
from .reconcile import Plan, content, identity, plan, wildcards
from .sessions import FabricSessions, RestoreEvent
from .southbound import FabricController, SessionsSouthbound, StoreSouthbound
from .switch import ManagedSwitch, Pipeline, SwitchTarget, SyncResult

__all__ = [
    "DesiredCache",
    "FabricController",
    "FabricCore",
    "FabricError",
    "FabricSessions",
    "ManagedSwitch",
    "Pipeline",
    "Plan",
    "RestoreEvent",
    "SessionsSouthbound",
    "Southbound",
    "StoreSouthbound",
    "SwitchTarget",
    "SyncResult",
    "WorkerPool",
    "content",
    "default_workers",
    "desired_state",
    "difference",
    "identity",
    "plan",
    "wildcards",
    "write_all",
]
