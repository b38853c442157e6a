"""Load-balancing policy and the one encoder of fabric.p4's run-time knobs.

- `policy.py`: the typed policy (group modes, ECN, trimming, CNP, INT, MTU);
  `policy_file.py`: the policy YAML (docs/policy.md);
- `intent.py`: what one switch must do (router MAC, port roles, route groups), filled by
  whoever computes routes;
- `encode.py`: `FabricEncoder`, policy + intent -> `controller.entities` by P4Info name;
- `wcmp.py`: weights -> member slots; `constants.py`: numbers from the P4 source;
- `cli_args.py`: the policy flags of the `sprayfabric` command;
- `from_topology.py` (imported on its own): topology + computed routes -> `SwitchIntent`.
"""

from .cli_args import add_policy_arguments, policy_from_args
from .constants import DEFAULT_P4SRC, FabricConstants, p4_constants
from .encode import FabricEncoder, GroupLayout
from .intent import NextHop, PortRole, RouteGroup, SwitchIntent
from .policy import (
    INT_INSTRUCTIONS,
    MODES,
    SPRAY_KINDS,
    Cnp,
    EcnRed,
    EcnStep,
    GroupMode,
    IntCollector,
    IntPolicy,
    IntWatch,
    Policy,
    Trim,
    instruction_bitmap,
)
from .policy_file import PolicyError, check_policy, load_policy, parse_policy
from .wcmp import interleave, slot_counts, slots

__all__ = [
    "DEFAULT_P4SRC",
    "INT_INSTRUCTIONS",
    "MODES",
    "SPRAY_KINDS",
    "Cnp",
    "EcnRed",
    "EcnStep",
    "FabricConstants",
    "FabricEncoder",
    "GroupLayout",
    "GroupMode",
    "IntCollector",
    "IntPolicy",
    "IntWatch",
    "NextHop",
    "Policy",
    "PolicyError",
    "PortRole",
    "RouteGroup",
    "SwitchIntent",
    "Trim",
    "add_policy_arguments",
    "check_policy",
    "instruction_bitmap",
    "interleave",
    "load_policy",
    "p4_constants",
    "parse_policy",
    "policy_from_args",
    "slot_counts",
    "slots",
]
