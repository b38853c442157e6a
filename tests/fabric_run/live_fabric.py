"""The live fabric the fault and report tests probe: softswitch processes on UDP cables
(no root), one host per leaf, ECMP groups (a probe 5-tuple keeps its path), the default
policy's INT on the probes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from controller.fabric.desired import fabric_desired_state
from controller.fabric.runner import FabricRun
from controller.lb.policy import GroupMode
from controller.lb.policy_file import load_policy
from controller.topology.generators import leaf_spine

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def live_fabric(leaves: int, workdir: Path, control: bool) -> Iterator[FabricRun]:
    """A `leaves` x 2 leaf-spine running for the block; stopped after it."""
    policy = load_policy(ROOT / "topologies" / "policy-default.yaml")
    run = FabricRun(
        leaf_spine(leaves, 2, 1, name=f"ls-{leaves}x2"),
        workdir=workdir / ".sprayfabric",
        desired_state=fabric_desired_state,
        fixed_addresses=False,  # other tests may run fabrics at the same time
        policy=policy.with_mode(GroupMode.parse("ecmp", 100)),
        poll_interval=1.0,
        watch_interval=0.2,
    )
    run.start(control=control)
    try:
        yield run
    finally:
        run.stop()  # stops exactly the switch processes it started, by PID
