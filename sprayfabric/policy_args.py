"""The policy flags of `fabric up`, `lb set`'s fabric and mininet/run.py, on an argparse
parser; what they mean and how they combine is controller.lb.flags."""

from __future__ import annotations

import argparse

from controller.lb import MODE_LABELS, Policy, PolicyFlags, policy_with_flags

__all__ = ["add_policy_arguments", "policy_flags", "policy_from_args"]


def add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("load-balancing policy")
    g.add_argument("--policy", metavar="FILE", help="policy YAML (docs/policy.md)")
    g.add_argument("--lb-mode", metavar="MODE", help=", ".join(MODE_LABELS))
    g.add_argument("--flowlet-gap-us", type=int, metavar="N")
    ecn = g.add_mutually_exclusive_group()
    ecn.add_argument("--ecn-step", type=int, metavar="K", help="DCTCP marking above K packets")
    ecn.add_argument("--ecn-red", metavar="KMIN,KMAX,PMAX", help="RED ramp (PMAX in 256ths)")
    g.add_argument("--trim", metavar="T[,DSCP[,PRIO]]", help="trim above T packets")
    g.add_argument("--cnp", metavar="T[,INTERVAL_US[,DSCP]]", help="CNPs above T packets")
    g.add_argument("--mtu", type=int, metavar="N", help="IP MTU of every port (INT)")


def policy_flags(args: argparse.Namespace) -> PolicyFlags:
    """The flags `add_policy_arguments` added, as parsed."""
    return PolicyFlags(
        policy=getattr(args, "policy", None),
        lb_mode=args.lb_mode,
        flowlet_gap_us=args.flowlet_gap_us,
        ecn_step=args.ecn_step,
        ecn_red=args.ecn_red,
        trim=args.trim,
        cnp=args.cnp,
        mtu=args.mtu,
    )


def policy_from_args(args: argparse.Namespace, base: Policy | None = None) -> Policy:
    """The policy the flags describe (on top of `--policy`, else `base`, else defaults)."""
    return policy_with_flags(policy_flags(args), base)
