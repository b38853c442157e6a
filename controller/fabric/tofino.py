"""`sprayfabric fabric up --target tofino|tofino2`: a fabric of Tofino switches that run
on their own boxes (Stratum or bf_switchd with its P4Runtime server), programmed from here.

    program = load_bf_program(Path("build/fabric_tna"), "tofino")
    run = TofinoRun(topology, workdir=Path(".sprayfabric"), target="tofino",
                    switches=load_switches(None, topology), program=program)
    run.start()     # check, connect, push the pipeline, write every switch, watch, serve
    run.stop()      # sessions closed; the switches keep their program and entries

Nothing is started or cabled here. Each switch gets SetForwardingPipelineConfig with the
P4Info and bf-p4c's `tofino.bin` + `context.json` packed as Stratum's Barefoot target
reads them (`controller.targets.tofino`), then the entities of the same controller core as
every other target (`core.desired_state`), encoded with the TNA build's constants
(`FabricConstants.load(target=...)`: CNP sessions 512 + port on Tofino 1, 128 + the port's
low 7 bits on Tofino 2, the depth-report session to the recirculation port). Sessions,
reconciliation, restores of a restarted switch, `lb set` and `link down|up` are
`FabricRun`'s. Not here: INT reports and counters (the TNA build has neither), hosts.

Before any switch is contacted the desired state is encoded against the P4Info given, so
a P4Info without a table the fabric writes (Tofino 1 and trimming; INT) fails at once, by
name.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import codec
from ..entities import Entity, TableEntry
from ..errors import P4RuntimeError
from ..lb import FabricConstants, FabricEncoder, Policy
from ..p4info import P4Schema
from ..p4rt import P4RuntimeSession, config_cookie
from ..targets import CompiledProgram, ProcessLedger
from .core import DesiredCache, ReportRoute, desired_state
from .reconcile import wildcards
from .runner import ELECTION_ID, FabricRun, lap_timer
from .switch import Pipeline, SwitchTarget
from .tofino_files import (
    RECORD_NAME,
    BfProgram,
    SwitchAddress,
    TofinoRecord,
    TofinoSetupError,
)
from .wiring import COLLECTOR_PORT, HostEndpoint, SwitchWiring, Wiring

__all__ = ["TofinoRun", "read_back", "tofino_desired_state"]

NOWHERE = ("", 0)  # the UDP address of a cable this run does not have


def _no_reports(_name: str) -> ReportRoute:
    return ReportRoute()  # the TNA build sends no INT reports


def tofino_desired_state(run: Any) -> dict[str, list[Entity]]:
    """Every switch's entities: routes without `run.failed_links()`, under `run.policy`,
    encoded with the run's TNA constants (`run.desired_cache.constants`)."""
    cache: DesiredCache = run.desired_cache
    assert run.sessions is not None
    sessions = run.sessions
    return desired_state(
        run.topology,
        run.policy or Policy(),
        run.failed_links(),
        cache,
        lambda name: cache.encoder(sessions[name].schema),
        _no_reports,
    )


def check_encodes(topo: Any, policy: Policy, program: BfProgram, c: FabricConstants) -> int:
    """Encode every switch's desired state against the program's P4Info (no switch
    contacted); the entity count. TofinoSetupError naming what the P4Info lacks."""
    enc = FabricEncoder(P4Schema(program.p4info), c)
    try:
        out = desired_state(topo, policy, [], DesiredCache(), lambda _n: enc, _no_reports)
    except (KeyError, ValueError) as e:
        msg = e.args[0] if e.args else e
        raise TofinoSetupError(
            f"P4Info mismatch: {program.p4info_path} cannot hold this fabric's entries "
            f"for target {c.target}: {msg}"
        ) from None
    return sum(len(v) for v in out.values())


class TofinoRun(FabricRun):
    """A `FabricRun` over switches it does not start (module docstring)."""

    cabled_targets = ("tofino", "tofino2")

    def __init__(
        self,
        topology: Any,
        *,
        workdir: Path,
        target: str,
        switches: Mapping[str, SwitchAddress],
        program: BfProgram,
        cpu_port: int | None = None,
        depth_report_port: int | None = None,
        connect_timeout: float = 10.0,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("desired_state", tofino_desired_state)
        super().__init__(topology, workdir=workdir, target=target, **kwargs)
        self.switch_addresses = dict(switches)
        self.bf_program = program
        self.constants = FabricConstants.load(
            target=target, cpu_port=cpu_port, depth_report_port=depth_report_port
        )
        self.desired_cache = DesiredCache(constants=self.constants)
        self.connect_timeout = connect_timeout

    @property
    def record_file(self) -> Path:
        return self.workdir / RECORD_NAME

    def start(self, control: bool = True) -> None:
        """Check the inputs, connect to every switch, push the pipeline, write every
        switch, watch, serve the control endpoint; the fabric record is written once
        every switch holds its entries."""
        t0 = time.perf_counter()
        check_encodes(self.topology, self.policy or Policy(), self.bf_program, self.constants)
        self.timings["check"] = time.perf_counter() - t0
        ledger = ProcessLedger(self.ledger_file)
        ledger.claim()  # no switch processes: it records this `up`, for `down` to stop
        self.ledger = ledger
        try:
            device_config = self.bf_program.device_config
            build = self.workdir / "build"
            build.mkdir(parents=True, exist_ok=True)
            config_path = build / f"{self.target}-device-config.bin"
            config_path.write_bytes(device_config)
            self.program = CompiledProgram(
                self.target,  # type: ignore[arg-type]
                self.bf_program.p4info_path,
                config_path,
            )
            self.wiring = Wiring(
                {
                    # no cables, no collector port (the number is never written)
                    n: SwitchWiring(n, a.device_id, a.address, (), COLLECTOR_PORT)
                    for n, a in self.switch_addresses.items()
                },
                {h.name: HostEndpoint(h.name, NOWHERE, NOWHERE) for h in self.topology.hosts},
                NOWHERE,
            )
            pipeline = Pipeline(self.bf_program.p4info, device_config)
            sessions = self.program_switches(
                [
                    SwitchTarget(a.name, a.address, a.device_id)
                    for a in self.switch_addresses.values()
                ],
                pipeline,
                lap_timer(self.timings),
                self.connect_timeout,
            )
            self.record().save(self.record_file)
            sessions.start_watch(self.watch_interval, on_packet_in=self.hosts.packet_in)
            self.serve_control(control)
            self.started_s = time.perf_counter() - t0
        except BaseException:
            self.stop()
            raise

    def record(self) -> TofinoRecord:
        assert self.program is not None
        return TofinoRecord(
            topology=self.topology_path,
            target=self.target,
            p4info=str(self.program.p4info.resolve()),
            device_config=str(self.program.device_config.resolve()),
            election_id=ELECTION_ID,
            switches=tuple(self.switch_addresses.values()),
        )

    def host_attachment(self, host: str) -> dict[str, Any]:
        """Hosts are real machines cabled to the boxes: nothing to reach them by here."""
        return {"address": NOWHERE, "switch_address": NOWHERE}

    def status(self) -> dict[str, Any]:
        """FabricRun's status; no collector, no processes."""
        out = super().status()
        out["collector"] = "-"
        return out


def read_back(record: TofinoRecord, timeout: float = 5.0) -> dict[str, dict[str, Any]]:
    """Ask every switch of `record` what it holds, as a backup controller (election id 1:
    reads only): whether it runs the recorded pipeline (its cookie), and how many entries
    of each managed table and clone sessions it has. A switch that cannot be reached says
    why (its gRPC status)."""
    from ..p4info import load_p4info

    info = load_p4info(record.p4info)
    cookie = config_cookie(info, Path(record.device_config).read_bytes())
    tables = [t.preamble.name for t in info.tables]
    out: dict[str, dict[str, Any]] = {}
    for sw in record.switches:
        row: dict[str, Any] = {"address": sw.address, "device_id": sw.device_id}
        out[sw.name] = row
        s = P4RuntimeSession(sw.address, sw.device_id, 1, p4info=info, rpc_timeout=timeout)
        try:
            s.connect(timeout=timeout, wait_primary=False)
            have = s.get_pipeline("COOKIE_ONLY").cookie
            row["pipeline"] = "ours" if have == cookie else ("none" if not have else "other")
            counts: dict[str, int] = {}
            if have == cookie:
                for m in s.read_messages(*wildcards(tables)):
                    e = codec.decode_entity(s.schema, m)
                    key = e.table if isinstance(e, TableEntry) else type(e).__name__
                    counts[key] = counts.get(key, 0) + 1
            row["entries"] = counts
        except P4RuntimeError as e:
            row["error"] = str(e)
        finally:
            s.close()
    return out
