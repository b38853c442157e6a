"""Policy from command-line flags, for the `sprayfabric` subcommands that program a fabric
(`up`, `set-lb`): `--policy FILE` first, then each flag overrides its part of it.

    --policy FILE                  a policy YAML (docs/policy.md)
    --lb-mode MODE                 ecmp | flowlet | spray | spray_round_robin | adaptive
    --flowlet-gap-us N
    --ecn-step K | --ecn-red KMIN,KMAX,PMAX
    --trim THRESHOLD[,DSCP[,PRIORITY]]
    --cnp THRESHOLD[,INTERVAL_US[,DSCP]]
    --mtu N

A bad value is a PolicyError naming the flag (the CLI prints it and exits 1).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from .policy import Cnp, EcnRed, EcnStep, GroupMode, Policy, Trim
from .policy_file import PolicyError, load_policy

__all__ = ["add_policy_arguments", "policy_from_args"]


def add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("load-balancing policy")
    g.add_argument("--policy", metavar="FILE", help="policy YAML (docs/policy.md)")
    g.add_argument(
        "--lb-mode", metavar="MODE", help="ecmp, flowlet, spray, spray_round_robin, adaptive"
    )
    g.add_argument("--flowlet-gap-us", type=int, metavar="N")
    ecn = g.add_mutually_exclusive_group()
    ecn.add_argument("--ecn-step", type=int, metavar="K", help="DCTCP marking above K packets")
    ecn.add_argument("--ecn-red", metavar="KMIN,KMAX,PMAX", help="RED ramp (PMAX in 256ths)")
    g.add_argument("--trim", metavar="T[,DSCP[,PRIO]]", help="trim above T packets")
    g.add_argument("--cnp", metavar="T[,INTERVAL_US[,DSCP]]", help="CNPs above T packets")
    g.add_argument("--mtu", type=int, metavar="N", help="IP MTU of every port (INT)")


def _ints(flag: str, text: str, low: int, high: int) -> list[int]:
    parts = text.split(",")
    if not low <= len(parts) <= high:
        raise PolicyError("command line", flag, f"{text!r}: expected {low} to {high} numbers")
    try:
        return [int(p, 0) for p in parts]
    except ValueError:
        raise PolicyError("command line", flag, f"{text!r}: not a list of integers") from None


def _build(flag: str, make):  # type: ignore[no-untyped-def]
    try:
        return make()
    except ValueError as e:
        raise PolicyError("command line", flag, str(e)) from None


def policy_from_args(args: argparse.Namespace, base: Policy | None = None) -> Policy:
    """The policy the flags describe (on top of `--policy`, else `base`, else defaults)."""
    p = load_policy(args.policy) if getattr(args, "policy", None) else (base or Policy())
    if args.lb_mode is not None or args.flowlet_gap_us is not None:
        gap = p.mode.gap_us if args.flowlet_gap_us is None else args.flowlet_gap_us
        label = p.mode.label if args.lb_mode is None else args.lb_mode
        mode = _build("--lb-mode", lambda: GroupMode.parse(label, gap))
        p = replace(p, mode=mode)
    if args.ecn_step is not None:
        p = replace(p, ecn=_build("--ecn-step", lambda: EcnStep(args.ecn_step)))
    if args.ecn_red is not None:
        v = _ints("--ecn-red", args.ecn_red, 3, 3)
        p = replace(p, ecn=_build("--ecn-red", lambda: EcnRed(*v)))
    if args.trim is not None:
        v = _ints("--trim", args.trim, 1, 3)
        p = replace(p, trim=_build("--trim", lambda: Trim(*v)))
    if args.cnp is not None:
        v = _ints("--cnp", args.cnp, 1, 3)
        p = replace(p, cnp=_build("--cnp", lambda: Cnp(*v)))
    if args.mtu is not None:
        p = replace(p, mtu=_build("--mtu", lambda: Policy(mtu=args.mtu).mtu))
    return p
