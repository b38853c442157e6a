"""A policy with command-line overrides on top: `--policy FILE` first, then each flag
overrides its part of it. The `sprayfabric` subcommands that program a fabric (`fabric up`,
`lb set`) and mininet/run.py parse the flags (sprayfabric.policy_args) into `PolicyFlags`:

    --policy FILE                  a policy YAML (docs/policy.md)
    --lb-mode MODE                 a group-mode label (MODE_CHOICES in policy.py)
    --flowlet-gap-us N
    --ecn-step K | --ecn-red KMIN,KMAX,PMAX
    --trim THRESHOLD[,DSCP[,PRIORITY]]
    --cnp THRESHOLD[,INTERVAL_US[,DSCP]]
    --mtu N

A bad value is a PolicyError naming the flag (the CLI prints it and exits 1).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .policy import Cnp, EcnRed, EcnStep, GroupMode, Policy, Trim
from .policy_file import PolicyError, load_policy

__all__ = ["PolicyFlags", "policy_with_flags"]


@dataclass(slots=True, frozen=True)
class PolicyFlags:
    """The policy flags as given (None: not given); lists of numbers still as text."""

    policy: str | None = None
    lb_mode: str | None = None
    flowlet_gap_us: int | None = None
    ecn_step: int | None = None
    ecn_red: str | None = None
    trim: str | None = None
    cnp: str | None = None
    mtu: int | None = None


def _ints(flag: str, text: str, low: int, high: int) -> list[int]:
    parts = text.split(",")
    if not low <= len(parts) <= high:
        many = str(low) if low == high else f"{low} to {high}"
        raise PolicyError("command line", flag, f"{text!r}: expected {many} numbers")
    try:
        return [int(p, 0) for p in parts]
    except ValueError:
        raise PolicyError("command line", flag, f"{text!r}: not a list of integers") from None


def _build(flag: str, make):  # type: ignore[no-untyped-def]
    try:
        return make()
    except ValueError as e:
        raise PolicyError("command line", flag, str(e)) from None


def policy_with_flags(flags: PolicyFlags, base: Policy | None = None) -> Policy:
    """The policy the flags describe (on top of `--policy`, else `base`, else defaults)."""
    p = load_policy(flags.policy) if flags.policy else (base or Policy())
    if flags.lb_mode is not None or flags.flowlet_gap_us is not None:
        gap = p.mode.gap_us if flags.flowlet_gap_us is None else flags.flowlet_gap_us
        label = p.mode.label if flags.lb_mode is None else flags.lb_mode
        mode = _build("--lb-mode", lambda: GroupMode.parse(label, gap))
        p = replace(p, mode=mode)
    if flags.ecn_step is not None:
        step = flags.ecn_step
        p = replace(p, ecn=_build("--ecn-step", lambda: EcnStep(step)))
    if flags.ecn_red is not None:
        v = _ints("--ecn-red", flags.ecn_red, 3, 3)
        p = replace(p, ecn=_build("--ecn-red", lambda: EcnRed(*v)))
    if flags.trim is not None:
        v = _ints("--trim", flags.trim, 1, 3)
        p = replace(p, trim=_build("--trim", lambda: Trim(*v)))
    if flags.cnp is not None:
        v = _ints("--cnp", flags.cnp, 1, 3)
        p = replace(p, cnp=_build("--cnp", lambda: Cnp(*v)))
    if flags.mtu is not None:
        mtu = flags.mtu
        p = replace(p, mtu=_build("--mtu", lambda: Policy(mtu=mtu).mtu))
    return p
