"""`sprayfabric topo gen|check|show`: write, check and look at topology files (`topo
routes`: routes.py)."""

from __future__ import annotations

import argparse
import json

import networkx as nx

from controller.topology import Topology, dump_topology, format_rate, load_topology, parse_rate
from controller.topology.generators import describe, fat_tree, leaf_spine

from .common import CliError, CommandTree, output

__all__ = ["register"]


def _rate(text: str) -> int:
    try:
        return parse_rate(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def register(sub: CommandTree) -> None:
    tsub = sub.group("topo")

    gen = tsub.add_parser("gen", help="write a generated fabric")
    gsub = gen.add_subparsers(dest="kind", metavar="KIND", required=True)
    ls = gsub.add_parser("leaf-spine", help="two-tier Clos: every leaf linked to every spine")
    ls.add_argument("--leaves", type=int, required=True)
    ls.add_argument("--spines", type=int, required=True)
    ls.add_argument("--hosts-per-leaf", type=int, required=True)
    ls.add_argument(
        "--oversubscription",
        type=float,
        default=1.0,
        help="leaf downlink / uplink capacity (default 1)",
    )
    ls.add_argument("--host-rate", type=_rate, default=100 * 10**9, help="default 100G")
    ls.set_defaults(func=_gen)
    ft = gsub.add_parser("fat-tree", help="k-ary fat-tree (k even, k^3/4 hosts)")
    ft.add_argument("--k", type=int, required=True)
    ft.add_argument("--rate", type=_rate, default=100 * 10**9, help="every link (default 100G)")
    ft.set_defaults(func=_gen)
    for p in (ls, ft):
        p.add_argument("--planes", type=int, default=1, help="parallel planes (default 1)")
        p.add_argument("--name", help="the fabric's name (default from the shape)")
        p.add_argument("-o", "--output", metavar="FILE", help="default: standard output")

    check = tsub.add_parser("check", help="load and check a topology file")
    check.add_argument("file")
    check.set_defaults(func=_check)

    show = tsub.add_parser("show", help="print a topology (switches, ports, hosts)")
    show.add_argument("file")
    show.add_argument(
        "--json",
        action="store_true",
        help="networkx node-link JSON (nodes carry kind=switch|host, hosts carry ip)",
    )
    show.set_defaults(func=_show)


def _gen(args: argparse.Namespace) -> int:
    if args.kind == "leaf-spine":
        topo = leaf_spine(
            args.leaves,
            args.spines,
            args.hosts_per_leaf,
            oversubscription=args.oversubscription,
            planes=args.planes,
            host_rate_bps=args.host_rate,
            name=args.name,
        )
    else:
        topo = fat_tree(args.k, planes=args.planes, rate_bps=args.rate, name=args.name)
    with output(args.output) as f:
        f.write(dump_topology(topo))
    if args.output not in (None, "-"):
        print(f"wrote {args.output}: {describe(topo)}")
    return 0


def _check(args: argparse.Namespace) -> int:
    topo = load_topology(args.file)
    print(f"{args.file}: ok: {describe(topo)}")
    return 0


def node_link_json(topo: Topology) -> str:
    return json.dumps(nx.node_link_data(topo.graph(), edges="links"))


def _show(args: argparse.Namespace) -> int:
    topo = load_topology(args.file)
    if args.json:
        print(node_link_json(topo))
        return 0
    print(describe(topo))
    print()
    print(f"{'switch':<16} {'role':<6} {'id':>5} {'plane':>5}  {'P4Runtime':<16} subnets")
    for s in topo.switches:
        print(
            f"{s.name:<16} {s.role:<6} {s.device_id:>5} {s.plane:>5}  "
            f"{s.grpc_addr or '-':<16} {' '.join(s.subnets) or '-'}"
        )
    print()
    print(f"{'switch':<16} ports")
    for s in topo.switches:
        ports = []
        for nbr in topo.neighbours(s.name):
            port = topo.port_to(s.name, nbr)
            link = topo.link_between(s.name, nbr)
            if link is None:  # cannot happen: neighbours come from links
                raise CliError(f"{s.name}: no link to {nbr}")
            ports.append(f"{port}:{nbr}({format_rate(link.rate_bps)})")
        print(f"{s.name:<16} {' '.join(ports)}")
    print()
    print(f"{'host':<12} {'ip':<15} {'mac':<17} {'switch':<16} port")
    for h in topo.hosts:
        print(f"{h.name:<12} {h.ip:<15} {h.mac:<17} {h.switch:<16} {h.port}")
    return 0
