"""fabricsim: fabric.p4 on every switch of a simulated fabric (docs/fabricsim.md).

from fabricsim import SimConfig, simulate
result = simulate(topology, SimConfig(workload="permutation", mode="spray", seed=1))
"""

from .events import EventLoop
from .jobs import Job, run_jobs
from .network import NetParams, Network
from .run import MODES, SimConfig, fabric_program, simulate
from .switchnode import PfcParams
from .transport import CcParams
from .workloads import WORKLOADS, Flow, make_workload

__all__ = [
    "MODES",
    "WORKLOADS",
    "CcParams",
    "EventLoop",
    "Flow",
    "Job",
    "NetParams",
    "Network",
    "PfcParams",
    "SimConfig",
    "fabric_program",
    "make_workload",
    "run_jobs",
    "simulate",
]
