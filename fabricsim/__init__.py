"""fabricsim: fabric.p4 on every switch of a simulated fabric (docs/fabricsim.md).

from fabricsim import SimConfig, simulate
result = simulate(topology, SimConfig(workload="permutation", mode="spray", seed=1))
"""

from .events import EventLoop
from .jobs import Job, run_jobs
from .network import NetParams, Network
from .receivers import RECEIVERS
from .result import SimResult
from .run import MODES, SimConfig, fabric_program, simulate
from .sender import NicParams
from .switchnode import PfcParams
from .transports import TRANSPORTS
from .workloads import WORKLOADS, Flow, make_workload

__all__ = [
    "MODES",
    "RECEIVERS",
    "TRANSPORTS",
    "WORKLOADS",
    "EventLoop",
    "Flow",
    "Job",
    "NetParams",
    "NicParams",
    "Network",
    "PfcParams",
    "SimConfig",
    "SimResult",
    "fabric_program",
    "make_workload",
    "run_jobs",
    "simulate",
]
