"""The sprayfabric fabric in Mininet: hosts in network namespaces, P4 switch processes
(softswitch or BMv2) on their veth interfaces, programmed by the controller over P4Runtime.

The entry scripts are in the checkout's `mininet/` folder (`mininet/run.py`,
`mininet/demo.py`; their shared setup and the `sprayfabric>` prompt are in the
`sprayfabric` package, which imports this one); this package holds the reusable parts:

- `fabricnet.mn`: loading Mininet's Python package from Debian's dist-packages;
- `fabricnet.plan`: how topology nodes and links map onto Mininet (names, rates);
- `fabricnet.footprint`: what a run created (names, PIDs) and whether any of it is left;
- `fabricnet.switch`, `fabricnet.hosts`, `fabricnet.net`, `fabricnet.traffic`: the Mininet side (these import Mininet: check
  `mininet_missing_reason()` first).

Nothing in `controller/`, `fabricsim/` or `softswitch/` imports this package.
"""

from .footprint import Footprint, Leftovers
from .mn import MininetMissing, ensure_mininet, mininet_missing_reason
from .plan import LinkShape, host_prefix, interface_name, link_shape

__all__ = [
    "Footprint",
    "Leftovers",
    "LinkShape",
    "MininetMissing",
    "ensure_mininet",
    "host_prefix",
    "interface_name",
    "link_shape",
    "mininet_missing_reason",
]
