"""Load-balancing policy and the one encoder of fabric.p4's run-time knobs.

- `policy.py`: the typed policy (group modes, ECN, trimming, CNP, INT, MTU);
  `policy_file.py`: the policy YAML (docs/policy.md);
- `intent.py`: what one switch must do (router MAC, port roles, route groups), filled by
  whoever computes routes;
- `encode.py`: `FabricEncoder`, policy + intent -> `controller.entities` by P4Info name;
- `wcmp.py`: weights -> member slots; `constants.py`: numbers from the P4 source;
- `flags.py`: a policy with command-line overrides on top (`PolicyFlags`);
- `from_topology.py` (imported on its own): topology + computed routes -> `SwitchIntent`.
"""

from .constants import DEFAULT_P4SRC, FabricConstants, p4_constants
from .encode import FabricEncoder, GroupLayout
from .flags import PolicyFlags, policy_with_flags
from .intent import NextHop, PortRole, RouteGroup, SwitchIntent
from .policy import (
    INT_INSTRUCTIONS,
    MODE_ALIASES,
    MODE_CHOICES,
    MODE_LABELS,
    MODES,
    SPRAY_KINDS,
    Cnp,
    EcnRed,
    EcnStep,
    GroupMode,
    IntCollector,
    IntPolicy,
    IntWatch,
    ModeLabel,
    Policy,
    Trim,
    instruction_bitmap,
    mode_label,
)
from .policy_file import PolicyError, check_policy, load_policy, parse_policy
from .wcmp import interleave, slot_counts, slots

__all__ = [
    "DEFAULT_P4SRC",
    "INT_INSTRUCTIONS",
    "MODES",
    "MODE_ALIASES",
    "MODE_CHOICES",
    "MODE_LABELS",
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
    "ModeLabel",
    "NextHop",
    "Policy",
    "PolicyError",
    "PolicyFlags",
    "PortRole",
    "RouteGroup",
    "SwitchIntent",
    "Trim",
    "check_policy",
    "instruction_bitmap",
    "interleave",
    "load_policy",
    "mode_label",
    "p4_constants",
    "parse_policy",
    "policy_with_flags",
    "slot_counts",
    "slots",
]
