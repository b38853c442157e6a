"""A running fabric: switch processes, their sessions, routes, telemetry and the control
endpoint, as `sprayfabric up` keeps them.

    run = FabricRun(topology, workdir=Path(".sprayfabric"))
    run.start()              # compile, start every switch concurrently, program, watch
    run.set_lb({"mode": "spray"})
    run.set_link("leaf1", "spine1", up=False)
    run.stop()               # stops exactly the processes it started, by PID

Programming: routes from `controller.routing.compute_routes` over the topology minus the
links that are down; entities from the `controller.lb` encoder (routes, groups with their
mode and live-member bitmaps, knobs from the policy); written by `FabricSessions`
(reconcile: only the difference). A link going down or up recomputes the routes and writes
the difference on every switch; `set_lb` changes the policy's mode and writes the
`next_hop_group` MODIFYs that follow. Both write the controller core's difference
(`core.difference`) from what each switch was last written, through the sessions' southbound.

Telemetry: every switch's collector port sends INT reports to an `IntCollector`; a poller
reads counters every `poll_interval` seconds into `FabricMetrics`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..entities import Entity
from ..lb import DEFAULT_P4SRC, FabricConstants
from ..p4info import load_p4info
from ..targets import (
    CompiledProgram,
    ProcessLedger,
    SwitchProcess,
    SwitchSpec,
    compile_program,
    default_cache_dir,
    stop_recorded,
)
from ..telemetry import FabricMetrics, IntCollector, PortInfo, poll_counters
from .control import STATE_FILE, ControlServer, HostState, RunState, SwitchState
from .core import TABLE_ORDER, DesiredCache, isolate, write_all
from .hosts import ExpectedHost, HostTracker
from .live_faults import LiveFaults
from .sessions import FabricSessions
from .southbound import SessionsSouthbound
from .switch import Pipeline, SwitchTarget
from .wiring import CPU_PORT, Wiring, plan_wiring

__all__ = ["FabricRun"]

log = logging.getLogger("controller.fabric.run")

ELECTION_ID = 10


DesiredState = Callable[["FabricRun"], Mapping[str, list[Entity]]]


def lap_timer(timings: dict[str, float]) -> Callable[[str], None]:
    """`lap(name)`: `timings[name]` = the seconds since the previous lap (or since now)."""
    mark = time.perf_counter()

    def lap(what: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        timings[what] = now - mark
        mark = now

    return lap


class FabricRun:
    """See the module docstring. `desired_state(run)` gives every switch's entities for the
    current routes (`run.failed_links()`) and policy (`run.policy`)."""

    # targets whose switches this run can cable (UDP sockets: softswitch only); a subclass
    # that starts its switches on real interfaces (fabricnet's Mininet run) widens it
    cabled_targets: tuple[str, ...] = ("softswitch",)

    def __init__(
        self,
        topology: Any,
        *,
        workdir: Path,
        desired_state: DesiredState,
        target: str = "softswitch",
        fixed_addresses: bool = True,
        poll_interval: float = 1.0,
        watch_interval: float = 0.5,
        topology_path: str = "",
        policy: Any = None,
        switch_args: tuple[str, ...] = (),
        switches_per_process: int = 1,
    ) -> None:
        if switches_per_process < 1:
            raise ValueError("switches_per_process must be at least 1")
        self.topology = topology
        # more than 1: that many switches share one `softswitch --chassis` process (one
        # gRPC address, the device id picks the switch); `groups` maps each switch to the
        # switches of its process
        self.switches_per_process = switches_per_process
        self.groups: dict[str, tuple[str, ...]] = {}
        self.switch_args = switch_args  # more options for every switch process
        self.topology_path = topology_path
        self.workdir = workdir
        self.desired_state = desired_state
        self.target = target
        self.fixed_addresses = fixed_addresses
        self.poll_interval = poll_interval
        self.watch_interval = watch_interval
        self.policy = policy
        self.links_down: set[frozenset[str]] = set()
        # group ids and entities kept between desired-state computations (desired.py)
        self.desired_cache = DesiredCache()
        self.program: CompiledProgram | None = None
        self.wiring: Wiring | None = None
        self.handles: dict[str, SwitchProcess] = {}
        self.sessions: FabricSessions | None = None
        self.collector: IntCollector | None = None
        self.metrics: FabricMetrics | None = None
        self.hosts = HostTracker(
            ExpectedHost(h.name, h.ip, h.mac, h.switch, h.port) for h in topology.hosts
        )
        self.control: ControlServer | None = None
        self.lock = threading.RLock()
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None
        self.started_s: float | None = None
        self.timings: dict[str, float] = {}  # seconds per start-up step
        self.first_sync: dict[str, Any] = {}
        self.respawns: dict[str, int] = {}  # switch processes started again after exiting
        # every switch process this run started, on disk (`switches.json`), so the next run
        # here stops them if this one is killed outright; what that next run stopped
        self.ledger: ProcessLedger | None = None
        self.leftovers_stopped: list[str] = []
        # faults injected into the running fabric (`sprayfabric fault`), on disk in workdir
        self.faults = LiveFaults(self)

    @property
    def ledger_file(self) -> Path:
        """The record of this run's switch processes (`controller.targets.ProcessLedger`)."""
        return self.workdir / "switches.json"

    @property
    def state_file(self) -> Path:
        """Where the run's `RunState` is while the control endpoint serves."""
        return self.workdir / STATE_FILE.name

    # ------------------------------------------------------------ start
    def start(self, control: bool = True) -> None:
        """Compile, wire, start every switch, program them all, watch, collect, serve."""
        t0 = time.perf_counter()
        lap = lap_timer(self.timings)
        if self.target not in self.cabled_targets:
            raise ValueError(
                f"target {self.target}: this runner cables {', '.join(self.cabled_targets)} "
                "switches only (BMv2 fabrics: controller.fabric.bmv2.Bmv2Run)"
            )
        ledger = ProcessLedger(self.ledger_file)
        # a run killed outright left its switches running (holding their ports): stop
        # those that are still the processes it recorded; LedgerBusy if it still runs
        self.leftovers_stopped = [r.describe() for r in ledger.claim()]
        if self.leftovers_stopped:
            log.warning(
                "stopped %d switch processes a fabric that ended without stopping left running: %s",
                len(self.leftovers_stopped),
                ", ".join(self.leftovers_stopped),
            )
        self.ledger = ledger
        try:
            self.program = compile_program(
                DEFAULT_P4SRC / "fabric.p4",
                self.workdir / "build",
                self.target,  # type: ignore[arg-type]
                cache_dir=default_cache_dir(),
            )
            pipeline = Pipeline(
                load_p4info(self.program.p4info), self.program.device_config.read_bytes()
            )
            self.collector = IntCollector(framed=True).start()
            topo = self.topology
            self.wiring = plan_wiring(
                (
                    (s.name, s.device_id, s.grpc_addr if self.fixed_addresses else None)
                    for s in topo.switches
                ),
                ((lk.a, lk.a_port, lk.b, lk.b_port) for lk in topo.links),
                ((h.name, h.switch, h.port) for h in topo.hosts),
                self.collector.address,
            )
            self._pack()
            if self.cables_impairable():
                self.faults.reset()  # an empty impairment file for the switches to watch
            lap("compile")
            self.start_processes()
            lap("processes")
            sessions = self.program_switches(
                [
                    SwitchTarget(w.name, w.grpc_addr, w.device_id)
                    for w in self.wiring.switches.values()
                ],
                pipeline,
                lap,
            )
            sessions.start_watch(self.watch_interval, on_packet_in=self.hosts.packet_in)
            self._start_telemetry()
            self.serve_control(control)
            self.started_s = time.perf_counter() - t0
        except BaseException:
            self.stop()
            raise

    def program_switches(
        self,
        targets: Sequence[SwitchTarget],
        pipeline: Pipeline,
        lap: Callable[[str], None],
        connect_timeout: float = 10.0,
    ) -> FabricSessions:
        """Sessions to `targets`, connected; the desired state computed and written to every
        switch (the first sync); `lap` after each step ('connect', 'routes', 'program')."""
        sessions = self.sessions = FabricSessions(
            targets, pipeline, election_id=ELECTION_ID, table_order=TABLE_ORDER
        )
        sessions.connect_all(connect_timeout)
        lap("connect")
        sessions.set_desired(self.desired_state(self))
        lap("routes")
        self.first_sync = sessions.sync_all()
        self.desired_cache.release()
        lap("program")
        return sessions

    def serve_control(self, control: bool) -> None:
        """With `control`, the control endpoint serves and the run's state is saved."""
        if control:
            self.control = ControlServer(self).start()
            self._save_state()

    def spec(self, name: str) -> SwitchSpec:
        """How switch `name` is started: no program on the command line (the pipeline
        comes over P4Runtime, so a process is ready at once and compiles while the others
        start), its UDP cables, its P4Runtime address, CPU port 255."""
        assert self.wiring is not None
        w = self.wiring.switches[name]
        if self.switches_per_process > 1:
            group = self.groups[name]
            return SwitchSpec(
                target=self.target,  # type: ignore[arg-type]
                grpc_addr=w.grpc_addr,
                device_id=w.device_id,
                cpu_port=CPU_PORT,
                log_file=self.workdir / "logs" / f"{group[0]}+{len(group) - 1}.log",
                args=(
                    "--chassis",
                    str(self.chassis_file(name)),
                    *self.impair_args(group[0]),
                    *self.switch_args,
                ),
            )
        return SwitchSpec(
            target=self.target,  # type: ignore[arg-type]
            ports=w.ports,
            grpc_addr=w.grpc_addr,
            device_id=w.device_id,
            cpu_port=CPU_PORT,
            log_file=self.workdir / "logs" / f"{name}.log",
            args=(*self.impair_args(name), *self.switch_args),
        )

    def cables_impairable(self) -> bool:
        """Are this run's cables softswitch UDP sockets, which `loss`, `slow` and `flap`
        faults act on (softswitch --impair-file)? Not for runs that start their switches
        another way (BMv2, Mininet)."""
        return self.target == "softswitch" and (
            type(self).start_processes is FabricRun.start_processes
        )

    def impair_args(self, process: str) -> tuple[str, ...]:
        """The switch options that make a process watch the run's impairment file and
        write its ports' counters (`port_stats_dir`/PROCESS.json)."""
        if not self.cables_impairable():
            return ()
        stats = self.port_stats_dir / f"{process}.json"
        return (
            "--impair-file",
            str(self.faults.impair_file.resolve()),
            "--port-stats-file",
            str(stats.resolve()),
        )

    @property
    def port_stats_dir(self) -> Path:
        """Where the switch processes write their ports' counters (softswitch.port_counters)."""
        return self.workdir / "port-stats"

    def queue_rate_pps(self) -> float | None:
        """Every egress port's rate (`--queue-rate`), if the switches were given one."""
        args = list(self.switch_args)
        if "--queue-rate" in args[:-1]:
            return float(args[args.index("--queue-rate") + 1])
        return None

    def _pack(self) -> None:
        """Group the switches `switches_per_process` at a time (in topology order); every
        switch of a group takes the gRPC address of the group's first."""
        assert self.wiring is not None
        names = list(self.wiring.switches)
        n = self.switches_per_process
        for i in range(0, len(names), n):
            group = tuple(names[i : i + n])
            addr = self.wiring.switches[group[0]].grpc_addr
            for name in group:
                self.groups[name] = group
                w = self.wiring.switches[name]
                self.wiring.switches[name] = replace(w, grpc_addr=addr)

    def chassis_file(self, name: str) -> Path:
        """The `softswitch --chassis` file of the process of switch `name` (written here)."""
        assert self.wiring is not None
        group = self.groups[name]
        path = self.workdir / "chassis" / f"{group[0]}.json"
        devices = [
            {
                "device_id": self.wiring.switches[n].device_id,
                "name": n,
                "ports": [[p, spec] for p, spec in self.wiring.switches[n].ports],
            }
            for n in group
        ]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"devices": devices}, indent=1) + "\n")
        return path

    def start_processes(self) -> None:
        """Start every switch of `self.wiring` and fill `self.handles` (name -> process),
        ready for P4Runtime. The hook a run that starts its switches another way overrides
        (fabricnet's Mininet run: one process per Mininet node, on its veths)."""
        assert self.wiring is not None
        for name in self.wiring.switches:  # all start at once, then wait for each
            if name not in self.handles:
                self.launch(name)
        for h in {id(h): h for h in self.handles.values()}.values():
            h.wait_ready(120.0)

    def launch(self, name: str) -> SwitchProcess:
        """Start switch `name`'s process (not yet ready) and `adopt` it (with several
        switches per process: for every switch of its process)."""
        h = SwitchProcess(self.spec(name)).start()
        for other in self.groups.get(name, (name,)):
            self.adopt(other, h)
        return h

    def adopt(self, name: str, h: SwitchProcess) -> SwitchProcess:
        """Make `h`, just started, the run's process for switch `name` and record it in the
        ledger (the process it replaces is forgotten there). Called the moment it starts,
        so that a stop signal arriving now (`Interrupted`) still finds it, and a run killed
        outright leaves nothing the next run cannot stop."""
        old = self.handles.get(name)
        self.handles[name] = h
        if self.ledger is not None:
            if old is not None and old is not h and old.proc is not None:
                self.ledger.discard(old.pid)
            if old is not h:
                self.ledger.add(name, h.pid, h.command())
        return h

    def stop_switch(self, name: str) -> None:
        """Stop switch `name`'s process by PID (the ledger forgets it once it ended)."""
        h = self.handles[name]
        h.stop()
        if self.ledger is not None and h.proc is not None:
            self.ledger.discard(h.pid)

    def restart_switch(self, name: str) -> int:
        """Stop switch `name` by PID and start it again, empty, on the same address and
        cables (the watcher restores it); the new PID."""
        with self.lock:
            self.stop_switch(name)
            h = self.launch(name)
        h.wait_ready(60.0)
        return h.pid

    def _start_telemetry(self) -> None:
        assert self.wiring is not None and self.collector is not None
        topo = self.topology
        ports: dict[str, dict[int, PortInfo]] = {s.name: {} for s in topo.switches}
        for lk in topo.all_links():
            for node, port, peer in ((lk.a, lk.a_port, lk.b), (lk.b, lk.b_port, lk.a)):
                if node in ports:
                    ports[node][port] = PortInfo(peer, lk.rate_bps)
        reasons = FabricConstants.load().drop_reasons
        names = {n: name.lower() for name, n in reasons.items() if n}
        self.metrics = FabricMetrics(
            ports, switch_ids={s.device_id: s.name for s in topo.switches}, drop_names=names
        )
        self.collector.add_listener(self.metrics.on_report)
        self._poller = threading.Thread(target=self._poll, name="fabric-poll", daemon=True)
        self._poller.start()

    def _poll(self) -> None:
        assert self.sessions is not None and self.metrics is not None
        ports = {name: sorted(p) for name, p in self.metrics.ports.items()}
        while not self._stop.is_set():

            def one(sw: Any) -> None:
                s = sw.session
                if s is not None and sw.connected:
                    self.metrics.update(poll_counters(s, sw.name, ports.get(sw.name, ())))  # type: ignore[union-attr]

            self.sessions.run_each("poll", one, raise_errors=False)
            self._respawn_dead()
            self._stop.wait(self.poll_interval)

    def _respawn_dead(self) -> None:
        """Start again, on the same address and cables, every switch process of this run
        that has exited; the watcher then pushes the pipeline and every entry."""
        for name, h in list(self.handles.items()):
            # under the lock: a restart_switch call holds it while it replaces the process,
            # whose old handle (stopped by it) must not be taken for a crash
            with self.lock:
                if self._stop.is_set() or h.alive() or self.handles.get(name) is not h:
                    continue
                log.warning(
                    "%s (pid %d) exited with %s: starting it again",
                    name,
                    h.pid,
                    h.proc.returncode if h.proc else None,
                )
                try:
                    self.restart_switch(name)
                    self.respawns[name] = self.respawns.get(name, 0) + 1
                except Exception as e:  # noqa: BLE001 -- retried at the next poll
                    log.warning("%s: cannot start it again: %s", name, e)

    def _save_state(self) -> None:
        assert self.wiring is not None and self.program is not None and self.control is not None
        RunState(
            topology=self.topology_path,
            target=self.target,
            endpoint=self.control.url,
            pid=os.getpid(),
            p4info=str(self.program.p4info.resolve()),
            device_config=str(self.program.device_config.resolve()),
            election_id=ELECTION_ID,
            switches=tuple(
                SwitchState(
                    n, w.grpc_addr, w.device_id, self.handles[n].pid if n in self.handles else None
                )
                for n, w in self.wiring.switches.items()
            ),
            hosts=self.host_states(),
        ).save(self.state_file)

    def host_states(self) -> tuple[HostState, ...]:
        """Where the hosts are, for `sprayfabric send`."""
        return tuple(
            HostState(
                h.name,
                h.ip,
                h.mac,
                self.topology.switch(h.switch).router_mac,
                **self.host_attachment(h.name),
            )
            for h in self.topology.hosts
        )

    def host_attachment(self, host: str) -> dict[str, Any]:
        """How `host` is reached, as HostState fields (here: its UDP cable ends)."""
        assert self.wiring is not None
        w = self.wiring.hosts[host]
        return {"address": w.address, "switch_address": w.switch_address}

    # ------------------------------------------------------------ changes
    def reprogram(self) -> dict[str, Any]:
        """Recompute the desired state and write the difference to every switch whose
        desired state changed: the controller core's (`core.difference`, what fabricsim's
        reroute writes too) from what the controller last wrote there, without a read back,
        through the sessions' southbound (`FabricSessions.update_all`; a switch with no such
        record is read back and compared, as any sync). A switch whose desired state is the
        same is left alone (a restarted or reprogrammed one is the watcher's to restore).
        Group ids the new state stopped using are released once it is written."""
        assert self.sessions is not None
        with self.lock:
            # live faults (controller.fabric.live_faults) overlay their bad entries
            desired = self.faults.overlay(dict(self.desired_state(self)))
            # the desired-state cache hands back the same entity objects, so an unchanged
            # list compares at once; a list that differs only in order plans nothing
            changed = [n for n, ents in desired.items() if ents != self.sessions[n].desired]
            res = self.sessions.update_all({n: desired[n] for n in changed})
            self.desired_cache.release(changed)
        return {
            "inserted": sum(r.inserted for r in res.values()),
            "modified": sum(r.modified for r in res.values()),
            "deleted": sum(r.deleted for r in res.values()),
            "writes": sum(r.writes for r in res.values()),
            "switches": sum(1 for r in res.values() if r.changed),
        }

    def set_link(self, a: str, b: str, up: bool) -> dict[str, Any]:
        if self.topology.link_between(a, b) is None or not (
            self.topology.is_switch(a) and self.topology.is_switch(b)
        ):
            raise ValueError(f"no link between switches {a} and {b}")
        key = frozenset((a, b))
        with self.lock:
            (self.links_down.discard if up else self.links_down.add)(key)
            fast = {} if up else self.isolate_link(a, b)
            out = self.reprogram()
        out["fast_groups"] = sum(fast.values())
        out["links_down"] = sorted("-".join(sorted(k)) for k in self.links_down)
        return out

    def dead_ports(self, switch: str) -> set[int]:
        """`switch`'s ports on links that are down."""
        topo = self.topology
        return {
            topo.port_to(switch, next(iter(k - {switch})))
            for k in self.links_down
            if switch in k and len(k) == 2
        }

    def isolate_link(self, a: str, b: str) -> dict[str, int]:
        """Fast local repair of a failed link, before any route is recomputed: on both of
        its switches, MODIFY every next-hop group with a member on the link's port so that
        member's live bit is clear (`FabricEncoder.live_members_update`); from then on no
        packet leaves by that port (`core.isolate`, written through the sessions'
        southbound). Returns the groups modified per switch. `set_link` calls it first,
        then recomputes the routes and reconciles."""
        assert self.sessions is not None
        key = frozenset((a, b))
        south = SessionsSouthbound(self.sessions)
        with self.lock:
            self.links_down.add(key)

            def one(sw: Any) -> int:
                with sw.lock:
                    enc = self.desired_cache.encoder(sw.schema)
                    ups = isolate(enc, sw.desired, self.dead_ports(sw.name))
                    if not ups:
                        return 0
                    write_all(south, {sw.name: [ups]})
                    # the desired state says so too, so a restore in between keeps it
                    sw.overlay(u.entity for u in ups)
                    return len(ups)

            res = self.sessions.run_each("isolate link", one, (a, b))
        return {n: int(v) for n, v in res.items()}  # type: ignore[call-overload]

    def set_lb(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """`{"mode": M, "group": G or None, "gap_us": N}`: every group (or group G of every
        switch that has it) to mode M (`controller.lb.GroupMode.parse` labels); writes the
        `next_hop_group` MODIFYs that follow."""
        from ..lb import GroupMode, Policy

        group = request.get("group")
        with self.lock:
            old: Policy = self.policy or Policy()
            gap = request.get("gap_us")
            mode = GroupMode.parse(
                str(request.get("mode", "")), int(gap) if gap is not None else old.mode.gap_us
            )
            self.policy = old.with_mode(mode, None if group is None else int(group))
            try:
                out = self.reprogram()
            except Exception:
                self.policy = old
                raise
        out["mode"] = mode.label
        return out

    def failed_links(self) -> list[tuple[str, str]]:
        return [tuple(sorted(k)) for k in self.links_down]  # type: ignore[misc]

    # ------------------------------------------------------------ views
    def status(self) -> dict[str, Any]:
        assert self.sessions is not None and self.wiring is not None
        switches = {}
        for name, sw in self.sessions.switches.items():
            last = sw.counts.history[-1] if sw.counts.history else None
            switches[name] = {
                "address": sw.target.address,
                "device_id": sw.target.device_id,
                "pid": self.handles[name].pid if name in self.handles else None,
                "connected": sw.connected,
                "entries": len(sw.desired),
                "writes": sw.counts.writes,
                "restores": sw.counts.restores,
                "last_sync_s": round(last.seconds, 4) if last else None,
            }
        return {
            "topology": self.topology_path,
            "target": self.target,
            "switches": switches,
            "links_down": sorted("-".join(sorted(k)) for k in self.links_down),
            "hosts_seen": {
                ip: {"switch": h.switch, "port": h.port, "verdict": h.verdict, "host": h.host}
                for ip, h in sorted(self.hosts.hosts.items())
            },
            "collector": f"{self.wiring.collector[0]}:{self.wiring.collector[1]}",
            "int_reports": self.collector.received if self.collector else 0,
            "faults": self.faults.listing()["faults"],
        }

    def fault(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """`POST /api/fault` (controller.fabric.live_faults)."""
        return self.faults.request(dict(request))

    def fault_list(self) -> dict[str, Any]:
        return self.faults.listing()

    def probe(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """`POST /api/probe`: a Pingmesh-style probe run (controller.fabric.live_probe)."""
        from .live_probe import probe_request

        return probe_request(self, request)

    def telemetry(self) -> dict[str, Any]:
        return self.metrics.rows() if self.metrics else {}

    def exposition(self) -> bytes:
        return self.metrics.exposition() if self.metrics else b""

    # ------------------------------------------------------------ stop
    def stop(self) -> None:
        """Stop watching and polling, close sessions, stop every process this run started
        (by PID), close the collector and the endpoint. Safe to call more than once."""
        self._stop.set()
        if self.faults.active:
            self.faults.reset()  # gone with the fabric: faults.json says so
        if self.control is not None:
            self.control.close()
            self.control = None
            (self.state_file).unlink(missing_ok=True)
        if self._poller is not None:
            self._poller.join(timeout=10)
            self._poller = None
        if self.sessions is not None:
            self.sessions.close()
            self.sessions = None
        errors = []
        for name in list(self.handles):
            try:
                self.stop_switch(name)
            except Exception as e:  # noqa: BLE001 -- stop the others, then report
                errors.append(f"{name}: {e}")
        self.handles.clear()
        if self.ledger is not None:
            # a process recorded but no longer a handle (replaced while a stop signal came
            # in): stopped too, if it is still the process recorded
            for rec in list(self.ledger.processes.values()):
                if stop_recorded(rec):
                    log.warning("stopped %s, which the run had lost track of", rec.describe())
                self.ledger.discard(rec.pid)
        if self.ledger is not None and not errors:
            self.ledger.close()  # every process it recorded is stopped
            self.ledger = None
        if self.collector is not None:
            self.collector.close()
            self.collector = None
        if errors:
            log.warning("stopping switches: %s", "; ".join(errors))
