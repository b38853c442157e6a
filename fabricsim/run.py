"""One simulation run: build the fabric, program it, run a workload, measure.

    result = simulate(topology, SimConfig(workload="permutation", mode="spray", seed=1))

`result` is a `SimResult` (result.py): the run's record, read by key (see `metrics.py` for
what each figure means), `to_dict()` the JSON a run writes. The same topology,
configuration and seed give the same result.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.lb import MODE_CHOICES, MODE_LABELS, EcnRed, EcnStep, GroupMode, ModeLabel, Policy
from controller.topology import Topology
from softswitch.codegen.program import CompiledProgram

from .collective import COLLECTIVES, int_mtu, job_record
from .faults import Fault, apply_fault
from .frames import DATA_HEADER_LEN, FlowFrames
from .int_echo import INT_INSTRUCTIONS as ECHO_INSTRUCTIONS
from .int_echo import IntEcho
from .network import NetParams, Network
from .receivers import ALIASES as RECEIVER_ALIASES
from .receivers import RECEIVERS, Receiver
from .result import SimResult
from .sender import NicParams, Sender
from .transports import TRANSPORTS, PathInfo, make_transport, reads_int, transport_params
from .workloads import SIZE_MIXES, WORKLOADS, Flow, make_workload

if TYPE_CHECKING:  # controlplane.py is imported when a run starts
    from controller.fabric.southbound import FabricController

__all__ = ["MODES", "SimConfig", "SimResult", "fabric_program", "simulate"]

FABRIC_P4 = Path(__file__).resolve().parents[1] / "p4src" / "fabric.p4"
MODES = MODE_LABELS  # controller.lb's one list of group-mode labels
MTU = 1500
COLLECTOR_PORT = 250  # every leaf's (unwired) port toward the INT collector
COLLECTOR_IP = "10.255.255.1"
COLLECTOR_MAC = "02:00:00:ff:ff:01"
PAYLOAD = MTU - DATA_HEADER_LEN - 4  # 1442: the payload of a 1500-byte frame
FRAME_OVERHEAD = DATA_HEADER_LEN + 4  # headers and ICRC around a data packet's payload
DATA_DSCP = 26
DATA_SPORT = 0xC000  # data packets' UDP source ports: 0xC000 | 14 bits of flow entropy
ACK_SPORT_FLIP = 0x4000  # an INT-reading run's ACKs: the same ports less this bit
INT_MTU = 9000  # the fabric's MTU (INT only) when every data packet carries INT


@dataclass(slots=True, frozen=True)
class SimConfig:
    workload: str = "permutation"
    mode: ModeLabel = "ecmp"  # every group's mode (controller.lb.MODE_CHOICES)
    seed: int = 1
    flow_bytes: int = 300_000
    receiver: str = "tolerant"  # or "selective" (bounded window), "go_back_n" ("in_order")
    reorder_window: int = 64  # packets: the selective-repeat receiver's bitmap
    transport: str = "dcqcn"  # one of fabricsim.transports.TRANSPORTS
    transport_params: tuple[tuple[str, float], ...] = ()  # overrides, by field name
    pmtu: int = PAYLOAD  # payload bytes per data packet (RoCE path MTU; 4096 is RoCE's largest)
    load: float = 0.5  # poisson workload
    size_mix: str = "websearch"  # poisson workload: fabricsim.workloads.SIZE_MIXES
    poisson_flows: int = 200  # poisson workload: flows in the run
    fan_in: int | None = None  # incast senders (None: every host on other leaves)
    nic: NicParams = field(default_factory=NicParams)
    net: NetParams = field(default_factory=NetParams)
    ecn_threshold: int | None = 20  # packets (DCTCP step); None: no marking
    # RED/DCQCN ramp on every port instead of the step (packets; max_probability in 256ths,
    # fabric.p4's mark_ecn_red); None: the step above
    ecn_red: EcnRed | None = None
    cnp_threshold: int | None = 24  # packets; None: no CNPs
    cnp_interval_us: int = 4
    trim_threshold: int | None = 64  # packets; None: no trimming (tail drop)
    flowlet_gap_us: int = 10
    fail_link: tuple[str, str, int] | None = None  # (a, b, at_ns)
    detect_ns: int = 2_000  # loss of signal -> live bitmaps cleared at the link's ends
    controller_delay_ns: int = 20_000  # failure -> routes recomputed and rewritten
    storm: tuple[str, int] | None = None  # (host, from_ns): a stuck receiver
    time_limit_ns: int = 20_000_000
    drain: bool = False  # after the last flow, run until nothing is in flight
    # INT-MD on the flows of each leaf's first host; with a transport that reads INT
    # (HPCC) on every flow, echoed to its sender (fabricsim.int_echo). False: no INT (HPCC
    # then never hears from the hops: its window stays where it starts)
    int_telemetry: bool = True
    sample_ns: int = 1_000
    faults: tuple[Fault, ...] = ()  # fabricsim.faults: injected, recorded as ground truth
    probes: bool = False  # Pingmesh-style probes between host pairs (fabricsim.probes)
    probe_interval_ns: int = 20_000
    # drop and queue reports from every switch to the collector (docs/fabric.md), decoded
    # into the run's JSON "alerts" (fabricsim.alerts); one drop report per reason and one
    # queue report per port every report_gap_us, a queue report when a packet waited
    # behind queue_report_threshold packets or more
    reports: bool = False
    report_gap_us: int = 10
    queue_report_threshold: int = 8
    # `mode` with flowlet_gap_us, resolved once (`__post_init__`, also after `replace`)
    group_mode: GroupMode = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """A configuration that cannot run is refused here (ValueError naming the field),
        not part-way through a simulation."""
        if self.mode not in MODE_CHOICES:
            raise ValueError(f"mode {self.mode!r}: one of {', '.join(MODE_CHOICES)}")
        group_mode = GroupMode.parse(self.mode, gap_us=self.flowlet_gap_us)
        object.__setattr__(self, "group_mode", group_mode)
        if self.workload not in WORKLOADS:
            raise ValueError(f"workload {self.workload!r}: one of {', '.join(WORKLOADS)}")
        if RECEIVER_ALIASES.get(self.receiver, self.receiver) not in RECEIVERS:
            raise ValueError(f"receiver {self.receiver!r}: one of {', '.join(RECEIVERS)}")
        if self.reorder_window < 1:
            raise ValueError(f"reorder_window {self.reorder_window}: at least one packet")
        if self.size_mix not in SIZE_MIXES:
            raise ValueError(f"size_mix {self.size_mix!r}: one of {', '.join(SIZE_MIXES)}")
        if self.transport not in TRANSPORTS:
            raise ValueError(f"transport {self.transport!r}: one of {', '.join(TRANSPORTS)}")
        transport_params(self.transport, dict(self.transport_params))  # refuses unknown names
        if not 64 <= self.pmtu <= 9000:
            raise ValueError(f"pmtu {self.pmtu}: payload bytes per packet, 64 to 9000")
        if self.flow_bytes < 1:
            raise ValueError(f"flow_bytes {self.flow_bytes}: a flow carries at least one byte")
        if self.poisson_flows < 1:
            raise ValueError(f"poisson_flows {self.poisson_flows}: at least one flow")
        if not 0 < self.load <= 1:
            raise ValueError(f"load {self.load:g}: a fraction of the line rate, above 0, at most 1")
        if self.fan_in is not None and self.fan_in < 1:
            raise ValueError(f"fan_in {self.fan_in}: at least one sender")
        if self.time_limit_ns <= 0:
            raise ValueError("time_limit_ns: the simulation needs some time to run")
        if self.report_gap_us < 1 or self.queue_report_threshold < 1:
            raise ValueError(
                f"report_gap_us {self.report_gap_us}, queue_report_threshold "
                f"{self.queue_report_threshold}: each at least 1"
            )
        watchdog = self.net.pfc.watchdog_ns
        if watchdog is not None and watchdog <= 0:
            raise ValueError(f"PFC watchdog {watchdog} ns: a timeout above 0")
        for what, at in (("fail_link", self.fail_link), ("storm", self.storm)):
            if at is not None and at[-1] < 0:
                raise ValueError(f"{what} at {at[-1]} ns: not before the start")
        if self.ecn_threshold is not None and self.ecn_threshold < 0:
            raise ValueError(f"ecn_threshold {self.ecn_threshold}: a queue depth in packets")

    def label(self) -> str:
        return f"{self.workload}/{self.mode}/seed{self.seed}"

    @property
    def ecn(self) -> EcnStep | EcnRed | None:
        """The marking every switch port does: the RED ramp if one is given, else the step
        at `ecn_threshold`, else none."""
        if self.ecn_red is not None:
            return self.ecn_red
        return EcnStep(self.ecn_threshold) if self.ecn_threshold is not None else None


@cache
def fabric_program() -> CompiledProgram:
    """p4src/fabric.p4, compiled once per process."""
    from softswitch.compiler import compile_file

    return compile_file(FABRIC_P4)


def policy_for(cfg: SimConfig, topo: Topology) -> Policy:
    from controller.lb import (
        Cnp,
        IntCollector,
        IntPolicy,
        IntWatch,
        Trim,
        instruction_bitmap,
    )

    int_md = None
    mtu = MTU
    if cfg.int_telemetry and reads_int(cfg.transport):
        # every data flow (their UDP source ports are 0xC000 and up; the ACKs' 0x8000 to
        # 0xBFFF are not watched); the fabric's MTU leaves room for INT on full frames
        # (IPv4, UDP, BTH, payload, ICRC; shim and INT-MD header; 8 hops of 28 bytes)
        mtu = max(INT_MTU, 44 + cfg.pmtu + 16 + 8 * 28)
        int_md = IntPolicy(
            watchlist=(IntWatch(ip_proto=17, l4_sport=DATA_SPORT, l4_sport_mask=0xC000),),
            instructions=instruction_bitmap(ECHO_INSTRUCTIONS),
            collector=IntCollector(COLLECTOR_IP, COLLECTOR_MAC),
        )
    elif cfg.int_telemetry:
        first: dict[str, Any] = {}  # leaf -> its first host
        for h in topo.hosts:
            first.setdefault(h.switch, h)
        # a collective's report needs every flow's hops: every host is watched
        watched = topo.hosts if cfg.workload in COLLECTIVES else tuple(first.values())
        int_md = IntPolicy(
            watchlist=tuple(IntWatch(ip_src=f"{h.ip}/32", ip_proto=17) for h in watched),
            instructions=instruction_bitmap(("switch_id", "ports", "hop_latency", "queue")),
            collector=IntCollector(COLLECTOR_IP, COLLECTOR_MAC),
        )
    policy = Policy(
        int_md=int_md,
        mtu=mtu,
        mode=cfg.group_mode,
        ecn=cfg.ecn,
        cnp=Cnp(cfg.cnp_threshold, cfg.cnp_interval_us) if cfg.cnp_threshold is not None else None,
        trim=Trim(cfg.trim_threshold, cfg.net.trim_dscp, 1)
        if cfg.trim_threshold is not None
        else None,
    )
    if cfg.workload in COLLECTIVES:  # every host watched; room for each packet's INT
        policy = replace(policy, mtu=max(policy.mtu, int_mtu(cfg.pmtu)))
    if cfg.reports:
        return replace(policy, int_md=_with_alerts(cfg, policy.int_md))
    return policy


def _with_alerts(cfg: SimConfig, int_md: Any) -> Any:
    """`int_md` (None: no INT, only a collector) with drop and queue reports turned on."""
    from controller.lb import IntCollector, IntPolicy

    if int_md is None:
        int_md = IntPolicy(collector=IntCollector(COLLECTOR_IP, COLLECTOR_MAC))
    col = replace(
        int_md.collector,
        drop_report_gap_us=cfg.report_gap_us,
        queue_report_threshold=cfg.queue_report_threshold,
        queue_report_gap_us=cfg.report_gap_us,
    )
    return replace(int_md, collector=col)


def _keep_and(kept: list[bytes], then: Callable[[bytes], None]) -> Callable[[bytes], None]:
    def on_report(frame: bytes) -> None:
        kept.append(frame)
        then(frame)

    return on_report


class _Progress:
    """A one-line stderr progress bar in simulated time, for runs of more than a moment."""

    def __init__(self, label: str, horizon_ns: int, enabled: bool) -> None:
        self.label, self.horizon, self.enabled = label, horizon_ns, enabled
        self.t0 = time.monotonic()
        self.shown = False

    def __call__(self, now_ns: int) -> None:
        if not self.enabled or time.monotonic() - self.t0 < 2:
            return
        self.shown = True
        frac = min(1.0, now_ns / self.horizon) if self.horizon else 0
        bar = "#" * int(frac * 30)
        print(
            f"\r{self.label:<28} [{bar:<30}] {now_ns / 1000:9.1f} us",
            end="",
            file=sys.stderr,
            flush=True,
        )

    def done(self) -> None:
        if self.shown:
            print(file=sys.stderr)


def simulate(
    topo: Topology,
    cfg: SimConfig,
    *,
    program: CompiledProgram | None = None,
    progress: bool = False,
    on_network: Callable[[Network], None] | None = None,
) -> SimResult:
    from .controlplane import fabric_controller

    t_wall, t_cpu = time.perf_counter(), time.process_time()
    program = program or fabric_program()
    net = Network(topo, program, cfg.net, cfg.seed)
    control = fabric_controller(topo, net.switches, program, policy_for(cfg, topo), COLLECTOR_PORT)
    echo = None
    if cfg.int_telemetry and reads_int(cfg.transport):
        echo = IntEcho.for_topology(topo)
    for node in net.switches.values():
        node.collector_port = COLLECTOR_PORT
        if echo is not None:
            node.on_report = echo.on_report
            if cfg.workload in COLLECTIVES:  # the job record reads the reports as well
                node.on_report = _keep_and(node.int_reports, echo.on_report)
    alerts = None
    if cfg.reports:
        from .alerts import AlertLog

        alerts = AlertLog(net.loop.now)
        for name, node in net.switches.items():
            node.on_report = alerts.tap(name, node.on_report or node.int_reports.append)
    control.install()
    if on_network is not None:
        on_network(net)
    loop = net.loop
    hosts = [h.name for h in topo.hosts]
    leaf_of = {h.name: h.switch for h in topo.hosts}
    flows = make_workload(
        cfg.workload,
        hosts,
        cfg.flow_bytes,
        cfg.seed,
        load=cfg.load,
        mix=cfg.size_mix,
        flows=cfg.poisson_flows,
        fan_in=cfg.fan_in,
        leaf_of=leaf_of,
        rate_bps=cfg.nic.line_rate_bps,
        servers=_servers(topo),
    )
    _same_plane(topo, cfg.workload, flows)
    run = _Run(net, topo, cfg, flows, echo)
    if cfg.fail_link is not None:
        a, b, at = cfg.fail_link

        def fail(_: Any) -> None:
            net.set_link(a, b, False)
            loop.at(
                loop.now() + cfg.detect_ns,
                lambda _x: run.note_reroute("port_down", control.port_down(a, b)),
            )
            loop.at(
                loop.now() + cfg.controller_delay_ns,
                lambda _x: run.note_reroute("reroute", control.reroute(a, b)),
            )

        loop.at(at, fail)
    for fault in cfg.faults:
        fault.check(topo)
        loop.at(fault.at_ns, lambda f: apply_fault(f, net, control, cfg.detect_ns), fault)
    if cfg.storm is not None:
        host, at = cfg.storm
        loop.at(at, net.hosts[host].start_storm)
    prober = None
    if cfg.probes:
        from .probes import Prober

        prober = Prober(net, topo, cfg.seed, cfg.probe_interval_ns, cfg.time_limit_ns)
        loop.at(0, run.sample_ports, None)
    loop.at(0, run.sample, None)
    bar = _Progress(cfg.label(), run.horizon_ns(), progress)
    loop_wall, loop_cpu = time.perf_counter(), time.process_time()
    end = loop.run(cfg.time_limit_ns, tick=bar)
    loop_wall, loop_cpu = time.perf_counter() - loop_wall, time.process_time() - loop_cpu
    bar.done()
    net.close()
    result = run.summary(end, control)
    result["wall_s"] = round(time.perf_counter() - t_wall, 3)
    result["cpu_s"] = round(time.process_time() - t_cpu, 3)
    # the event loop alone (no set-up, programming or summary)
    result["loop_wall_s"] = round(loop_wall, 3)
    result["loop_cpu_s"] = round(loop_cpu, 3)
    result["events"] = loop.events
    result["faults"] = [f.to_json() for f in cfg.faults]
    if cfg.workload in COLLECTIVES:
        result["job"] = job_record(run, topo)  # for `sprayfabric job-report`
    if alerts is not None:
        peers = {(a, w.a_port): b for (a, b), w in net.wires.items()}
        result["alerts"] = {
            "drop_gap_us": cfg.report_gap_us,
            "queue_threshold": cfg.queue_report_threshold,
            "queue_gap_us": cfg.report_gap_us,
            "undecoded": alerts.undecoded,
            "reports": alerts.summary(peers),
        }
    if prober is not None:
        result["probes"] = prober.summary(end, end < cfg.time_limit_ns)
        result["host_ips"] = {h.name: h.ip for h in topo.hosts}
        from .port_stats import port_stats, topology_json

        # what a fabric's port counters and its topology say, for the doctor
        result["ports"] = port_stats(net, run.port_depth, run.port_samples)
        result["topology"] = topology_json(topo)
    return SimResult(result)


def _servers(topo: Topology) -> dict[str, list[str]] | None:
    """Multi-plane fabrics: server -> its NICs in plane order (the permutation workload
    stripes each server's flow over them); None on a single plane."""
    if len(topo.planes) < 2:
        return None
    return {
        server: [h.name for h in sorted(nics, key=lambda h: h.plane)]
        for server, nics in topo.servers().items()
    }


def _same_plane(topo: Topology, workload: str, flows: list[Flow]) -> None:
    """Planes share no switch: a flow between NICs of different planes could never arrive."""
    plane = {h.name: h.plane for h in topo.hosts}
    for f in flows:
        if plane[f.src] != plane[f.dst]:
            raise ValueError(
                f"workload {workload!r} on {topo.name}: flow {f.fid} {f.src} -> {f.dst} crosses "
                f"planes {plane[f.src]} and {plane[f.dst]} (only `permutation` is plane-aware)"
            )


class _Run:
    """Flows of one run: starts them (also after the flows they wait for), records ends."""

    def __init__(
        self,
        net: Network,
        topo: Topology,
        cfg: SimConfig,
        flows: list[Flow],
        echo: IntEcho | None = None,
    ) -> None:
        self.net, self.topo, self.cfg, self.flows = net, topo, cfg, flows
        self.echo = echo
        self.start: dict[int, int] = {}
        self.finish: dict[int, int] = {}
        self.senders: dict[int, Sender] = {}
        self.receivers: dict[int, Receiver] = {}
        self.waiting: dict[int, list[Flow]] = {}
        self.pending = {f.fid: len(f.after) for f in flows}
        self.samples: list[int] = []
        self.queue_series: list[tuple[int, int, int]] = []  # (t_ns, max depth, sum depth)
        # (time, step, updates, link losses and switch drops so far)
        self.reroutes: list[tuple[int, str, int, int, int]] = []
        self.last_t = 0
        # (switch, port) -> sum of the queue depths sampled, over port_samples samples
        self.port_depth: dict[tuple[str, int], int] = {}
        self.port_samples = 0
        self._paths: dict[tuple[str, str], PathInfo] = {}
        import networkx as nx

        self._graph = nx.Graph()
        for link in topo.links:
            self._graph.add_edge(link.a, link.b, rate=link.rate_bps, delay=link.delay_ns)
        for h in topo.hosts:
            hl = topo.host_link(h)
            self._graph.add_edge(hl.a, hl.b, rate=hl.rate_bps, delay=hl.delay_ns)
        gw = {s.name: s.router_mac for s in topo.switches}
        self.host_info = {h.name: (h.mac, gw[h.switch], h.ip) for h in topo.hosts}
        for f in flows:
            for dep in f.after:
                self.waiting.setdefault(dep, []).append(f)
        pull_gap = int((cfg.pmtu + FRAME_OVERHEAD) * 8e9 / cfg.nic.line_rate_bps)
        for node in net.hosts.values():
            node.on_complete = self.complete
            node.pull_gap_ns = pull_gap
        for f in flows:
            if not f.after:
                net.loop.at(f.start_ns, self.begin, f)

    def horizon_ns(self) -> int:
        """A rough end time for the progress bar: the bytes of the busiest host at line rate."""
        per: dict[str, int] = {}
        for f in self.flows:
            per[f.dst] = per.get(f.dst, 0) + f.size
            per[f.src] = per.get(f.src, 0) + f.size
        busiest = max(per.values(), default=0)
        return int(busiest * 8e9 / self.cfg.nic.line_rate_bps) + max(
            (f.start_ns for f in self.flows), default=0
        )

    def path_info(self, src: str, dst: str) -> PathInfo:
        """The unloaded round trip src -> dst -> src of a full data packet and its ACK."""
        key = (src, dst)
        info = self._paths.get(key)
        if info is None:
            import networkx as nx

            path = nx.shortest_path(self._graph, src, dst)
            pkt = self.cfg.pmtu + FRAME_OVERHEAD
            ack = FRAME_OVERHEAD + 8
            rtt = 0.0
            for a, b in zip(path, path[1:], strict=False):
                rate, delay = self._graph.edges[a, b]["rate"], self._graph.edges[a, b]["delay"]
                rtt += 2 * delay + (pkt + ack) * 8e9 / rate
            info = PathInfo(self.cfg.nic.line_rate_bps, int(rtt), pkt)
            self._paths[key] = info
        return info

    def begin(self, f: Flow) -> None:
        cfg = self.cfg
        payload = cfg.pmtu
        n = max(1, -(-f.size // payload))
        last = f.size - (n - 1) * payload
        smac, sgw, sip = self.host_info[f.src]
        dmac, dgw, dip = self.host_info[f.dst]
        # the UDP source port is the flow's entropy (RoCEv2 practice), seeded
        sport = DATA_SPORT | ((f.fid * 2654435761 + cfg.seed * 40503) & 0x3FFF)
        path = self.path_info(f.src, f.dst)
        overrides = dict(cfg.transport_params)
        echo = self.echo
        if echo is not None and cfg.transport == "hpcc":
            # fabric.p4's timestamps are whole microseconds (transports/hpcc.py)
            overrides.setdefault("min_interval_ns", path.base_rtt_ns)
        cc = make_transport(cfg.transport, path, overrides)
        frames = FlowFrames.build(
            src_mac=smac,
            src_gw=sgw,
            src_ip=sip,
            dst_mac=dmac,
            dst_gw=dgw,
            dst_ip=dip,
            sport=sport,
            payload=payload,
            last_payload=last,
            data_qp=2 * f.fid + 1,
            ack_qp=2 * f.fid,
            dscp=DATA_DSCP,
            ctrl_dscp=cfg.net.trim_dscp if cc.control_in_header_class else None,
            ack_sport=sport ^ ACK_SPORT_FLIP if echo is not None else None,
        )
        r = Receiver(
            f.fid,
            n,
            frames,
            cfg.receiver,
            window=cfg.reorder_window,
            pulls=cc.pull_driven,
            np_interval_ns=cc.notification_interval_ns,
        )
        s = Sender(
            f.fid,
            n,
            frames,
            cc,
            go_back_n=r.in_order,
            pkt_bytes=path.packet_bytes,
            rto_ns=cfg.nic.rto_ns,
            init_credits=cc.initial_credits,
        )
        self.senders[f.fid], self.receivers[f.fid] = s, r
        if echo is not None:
            echo.watch(sip, dip, sport, r)
        self.start[f.fid] = self.net.loop.now()
        self.net.hosts[f.dst].add_receiver(r)
        self.net.hosts[f.src].start_sender(s)

    def complete(self, fid: int, t: int) -> None:
        self.finish[fid] = t
        for f in self.waiting.get(fid, ()):
            self.pending[f.fid] -= 1
            if self.pending[f.fid] == 0:
                self.begin(f)
        if len(self.finish) == len(self.flows) and not (self.cfg.drain or self.cfg.probes):
            self.net.loop.stop()

    def note_reroute(self, what: str, updates: int) -> None:
        net = self.net
        lost = sum(w.lost for w in net.wires.values())
        dropped = sum(s.sw.dropped for s in net.switches.values())
        self.reroutes.append((net.loop.now(), what, updates, lost, dropped))

    def sample(self, _: Any) -> None:
        depths = [n for s in self.net.switches.values() for n in s.sw.queue_lengths()]
        now = self.net.loop.now()
        self.samples.extend(depths)
        self.queue_series.append((now, max(depths, default=0), sum(depths)))
        if len(self.finish) < len(self.flows):
            self.net.loop.at(now + self.cfg.sample_ns, self.sample, None)

    def sample_ports(self, _: Any) -> None:
        """Every sample_ns until the time limit (a probe run): each port's queue depth,
        as a switch's queue-occupancy telemetry would export it."""
        depth = self.port_depth
        for name, s in self.net.switches.items():
            for p, n in s.sw.port_queue_lengths().items():
                if n:
                    depth[(name, p)] = depth.get((name, p), 0) + n
        self.port_samples += 1
        now = self.net.loop.now()
        if now + self.cfg.sample_ns < self.cfg.time_limit_ns:
            self.net.loop.at(now + self.cfg.sample_ns, self.sample_ports, None)

    # ------------------------------------------------------------ summary
    def summary(self, end: int, control: FabricController) -> dict[str, Any]:
        from .summary import summarise

        return summarise(self, end, control)
