"""A Pingmesh-style prober for a running fabric (`sprayfabric probe`), run inside `up`.

Every round, each host sends one probe to each of its peers (every other host, or the
pairs asked for) from each of `paths` UDP source ports, so the switches' hash spreads them
over the equal-cost paths; the probes of a round are paced over its interval in a shuffled
order. A probe is a 128-byte IPv4/UDP frame to port 4791 with a BTH (RoCEv2, so the
default policy's INT watchlist selects it), numbered by its IPv4 identification field; it
enters the fabric at the source host's cable end and is taken at the destination host's
(the hosts' UDP sockets: wiring.py). Sender and receiver are this process, so latency is
one-way on one clock.

Paths, per (src, dst, source port): the hops of the INT reports the last switch sends
for the probes that arrive (switch ids -> names). A 5-tuple none of whose probes arrived
is traced: probes of that 5-tuple with TTL 1, 2, ... and, after each, the switches' drop
counters read over P4Runtime: the switch whose counters rose is where the probe stopped
(TTL expired, or a drop route). The path ends when a probe stops where the one before it
did, or when none is counted (it was lost on a cable); such a path is `partial`.

The output is the `probes` list `sprayfabric doctor` reads from fabricsim runs (one
aggregate per (src, dst, path): source ports, sent, received, min/p50/p99/max latency in
ns), with `host_ips`, the topology's nodes and links, the faults active (ground truth,
from live_faults; the doctor does not use them), `slow_ns`: the excess of minimum latency
the doctor counts as slow here (a software fabric's paths differ by tens of microseconds
where the simulator's differ by nanoseconds), and `queued_ns`, the same for median
latency (a standing queue); `alerts`, the drop and queue reports the collector received
while the probe ran, as fabricsim's runs have them (live_alerts.py); `timeline`, every
probe as [src, dst, source port, sent us from the first, delivered 0/1] in the order sent,
from which the doctor tells a flapping link (losses in periodic windows) from a lossy one
where the run has no carrier counters (fabricsim/doctor_bursts.py); `ports` and `span_us`,
the softswitch processes' cable counters over the probe run (live_ports.py).

Needs hash-based groups (`ecmp`): under `spray` or `flowlet` a 5-tuple's probes take
different paths, and a lost one's path is not its tuple's.
"""

from __future__ import annotations

import random
import select
import socket
import struct
import threading
import time
from collections.abc import Mapping
from typing import Any

from ..telemetry.probe_matrix import ProbeMatrix
from .control import HostState
from .live_alerts import AlertWindow
from .live_ports import port_rows, snapshot, window_us
from .traffic import ROCE_PORT, ipv4_frame

__all__ = ["LIVE_SLOW_NS", "LiveProber", "probe_request"]

OP_PROBE = 0x64  # a BTH opcode no RoCE traffic of the fabric uses (fabricsim's probes too)
PROBE_BYTES = 128
LIVE_SLOW_NS = 1_500_000  # 1.5 ms above the pair's fastest path: a slow link, not jitter
LIVE_QUEUED_NS = 3_000_000  # median latency above the best path's median: a standing queue
# A loaded machine delays every path at random, not one link's: both thresholds grow with
# the paths' median jitter (latency_noise) when that is larger. A path's minimum over its
# probes moves far less with jitter than its median does, so the minimum's threshold
# (slow) grows by half as much as the median's (queued): in probe runs (`sprayfabric
# fabric probe --json`, the paths' lat_ns minima) on a 3x2 fabric at load 12, the
# healthy paths' minima stayed within 0.4 ms of their pair's best while the jitter was
# 1.5 ms, and a slow:...,0.25 link's paths were 4.1-4.8 ms above it.
NOISE_FACTOR = 4  # queued_ns
SLOW_NOISE_FACTOR = 2  # slow_ns
MAX_TRACES = 32  # traced 5-tuples per run at most
TRACE_WAIT_S = 0.15
STATS_WAIT_S = 0.25  # the switch processes write their port counters every 0.1 s
MAX_TTL = 8


def probe_frame(src: HostState, dst: HostState, sport: int, ident: int, ttl: int = 64) -> bytes:
    """One probe: Ethernet to the source's gateway, IPv4 (id `ident`), UDP to 4791, BTH."""
    udp_len = PROBE_BYTES - 14 - 20
    bth = struct.pack("!BBHII", OP_PROBE, 0, 0xFFFF, sport & 0xFFFFFF, ident)
    udp = struct.pack("!HHHH", sport, ROCE_PORT, udp_len, 0) + bth
    udp += bytes(udp_len - len(udp))
    return ipv4_frame(src, dst, udp, ident=ident, dont_fragment=True, ttl=ttl)


def sports_for(paths: int) -> list[int]:
    """`paths` UDP source ports spread over the hash (fabricsim's prober's choice)."""
    return [0xD000 | (j * 2654435761 >> 8 & 0xFFF) for j in range(paths)]


class LiveProber:
    def __init__(
        self,
        run: Any,
        *,
        rounds: int = 20,
        interval_s: float = 0.05,
        paths: int = 4,
        pairs: list[tuple[str, str]] | None = None,
        grace_s: float = 1.0,
        seed: int = 1,
    ) -> None:
        if rounds < 1 or paths < 1 or interval_s <= 0:
            raise ValueError("probe: rounds and paths at least 1, interval above 0")
        self.run = run
        self.hosts = {h.name: h for h in run.host_states()}
        if any(h.netns is not None for h in self.hosts.values()):
            raise ValueError("probe: hosts in network namespaces (BMv2 fabrics): not built yet")
        names = list(self.hosts)
        if pairs is None:
            pairs = [(a, b) for a in names for b in names if a != b]
        for a, b in pairs:
            if a not in self.hosts or b not in self.hosts or a == b:
                raise ValueError(f"probe: pair {a}-{b}: two different hosts of the fabric")
        self.pairs = pairs
        self.rounds, self.interval, self.grace = rounds, interval_s, grace_s
        self.sports = sports_for(paths)
        self.rng = random.Random(seed)
        self.by_ip = {h.ip: h.name for h in self.hosts.values()}
        self.switch_of_id = {s.device_id: s.name for s in run.topology.switches}
        # (src ip, ip id) -> [src, dst, sport, sent_ns, received_ns | None]
        self.live: dict[tuple[str, int], list[Any]] = {}
        self.done: list[list[Any]] = []
        self.seq = dict.fromkeys(self.hosts, 0)
        self.int_paths: dict[tuple[str, str, int], list[str]] = {}
        self.lock = threading.Lock()
        self.traces = 0

    # ------------------------------------------------------------ INT paths
    def _on_report(self, rep: Any) -> None:
        f = rep.flow
        src, dst = self.by_ip.get(f.src), self.by_ip.get(f.dst)
        if src is None or dst is None or f.dport != ROCE_PORT:
            return
        hops = [self.switch_of_id.get(h.switch_id) for h in rep.hops]
        if not hops or None in hops:
            return
        with self.lock:
            self.int_paths.setdefault((src, dst, f.sport), [src, *hops, dst])  # type: ignore[list-item]

    # ------------------------------------------------------------ running
    def run_probes(self) -> dict[str, Any]:
        rx: dict[int, tuple[socket.socket, str]] = {}
        collector = self.run.collector
        try:
            for h in self.hosts.values():
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                try:
                    s.bind(h.address)
                except OSError as e:
                    s.close()
                    raise ValueError(
                        f"probe: cannot be host {h.name} ({h.address[0]}:{h.address[1]}): {e} "
                        "(is `sprayfabric fabric send` running?)"
                    ) from None
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
                rx[s.fileno()] = (s, h.name)
            tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            stop = threading.Event()
            reader = threading.Thread(
                target=self._receive, args=(rx, stop), name="probe-rx", daemon=True
            )
            reader.start()
            if collector is not None:
                collector.add_listener(self._on_report)
            window = AlertWindow.open(self.run)
            t0 = time.perf_counter()
            ports_before = snapshot(self.run.port_stats_dir)
            try:
                self._send_rounds(tx)
                time.sleep(self.grace)
                traced = self._trace_lost(tx)
            finally:
                stop.set()
                reader.join(timeout=2)
                tx.close()
                if collector is not None:
                    collector.remove_listener(self._on_report)
            seconds = time.perf_counter() - t0
            if ports_before:
                time.sleep(STATS_WAIT_S)
            ports_after = snapshot(self.run.port_stats_dir)
        finally:
            for s, _ in rx.values():
                s.close()
        out = self._result(traced, seconds, window.close(seconds, set(traced), self.by_ip))
        if ports_after:  # softswitch processes on UDP cables count their ports
            wiring = self.run.wiring
            devices = {w.device_id: n for n, w in wiring.switches.items()} if wiring else {}
            out["ports"] = port_rows(self.run.topology, devices, ports_before, ports_after)
            out["span_us"] = window_us(ports_before, ports_after)
        return out

    def _send_rounds(self, tx: socket.socket) -> None:
        tuples = [(a, b, sp) for a, b in self.pairs for sp in self.sports]
        slot = self.interval / len(tuples)
        start = time.perf_counter()
        for r in range(self.rounds):
            order = list(tuples)
            self.rng.shuffle(order)
            for i, (a, b, sp) in enumerate(order):
                due = start + r * self.interval + i * slot
                wait = due - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
                self._send(tx, a, b, sp)

    def _send(self, tx: socket.socket, a: str, b: str, sport: int, ttl: int = 64) -> int:
        src, dst = self.hosts[a], self.hosts[b]
        self.seq[a] = seq = self.seq[a] % 0xFFFF + 1
        frame = probe_frame(src, dst, sport, seq, ttl)
        if ttl == 64:
            with self.lock:
                old = self.live.pop((src.ip, seq), None)
                if old is not None:
                    self.done.append(old)
                self.live[(src.ip, seq)] = [a, b, sport, time.perf_counter_ns(), None]
        tx.sendto(frame, src.switch_address)
        return seq

    def _receive(self, rx: Mapping[int, tuple[socket.socket, str]], stop: threading.Event) -> None:
        socks = [s for s, _ in rx.values()]
        while not stop.is_set():
            ready, _, _ = select.select(socks, [], [], 0.1)
            now = time.perf_counter_ns()
            for s in ready:
                try:
                    data = s.recv(65535)
                except OSError:
                    continue
                if len(data) < 42 or data[23] != 17:
                    continue
                src = socket.inet_ntoa(data[26:30])
                ident = struct.unpack_from("!H", data, 18)[0]
                with self.lock:
                    rec = self.live.get((src, ident))
                    if rec is not None and rec[4] is None:
                        rec[4] = now

    # ------------------------------------------------------------ traceroute
    def _drops(self) -> dict[str, int]:
        """Every switch's drop counters, summed over the reasons (one Read each)."""
        from ..telemetry.counters import DROP_COUNTER

        sessions = self.run.sessions

        def one(sw: Any) -> int:
            s = sw.connect()
            info = s.schema.counters[DROP_COUNTER]
            from ..entities import CounterEntry

            got = s.read(*(CounterEntry(info.name, r) for r in range(1, info.message.size)))
            return sum(e.data.packets for e in got if getattr(e, "data", None) is not None)

        res = sessions.run_each("drops", one, raise_errors=False)
        return {n: int(v) for n, v in res.items() if isinstance(v, int)}

    def _trace(self, tx: socket.socket, a: str, b: str, sport: int) -> list[str]:
        hops = [a]
        for ttl in range(1, MAX_TTL + 1):
            before = self._drops()
            self._send(tx, a, b, sport, ttl)
            self._send(tx, a, b, sport, ttl)
            time.sleep(TRACE_WAIT_S)
            after = self._drops()
            rose = [sw for sw, n in after.items() if n > before.get(sw, n)]
            self.traces += 1
            if len(rose) != 1 or rose[0] == hops[-1]:
                break
            hops.append(rose[0])
        return hops

    def _trace_lost(self, tx: socket.socket) -> dict[tuple[str, str, int], list[str]]:
        """Trace every 5-tuple none of whose probes arrived and whose path INT did not
        report (at most MAX_TRACES)."""
        with self.lock:
            recs = [*self.done, *self.live.values()]
            delivered = {(r[0], r[1], r[2]) for r in recs if r[4] is not None}
            known = set(self.int_paths)
        lost = sorted({(r[0], r[1], r[2]) for r in recs} - delivered - known)
        return {t: self._trace(tx, *t) for t in lost[:MAX_TRACES]}

    # ------------------------------------------------------------ output
    def _result(
        self,
        traced: dict[tuple[str, str, int], list[str]],
        seconds: float,
        alerts: dict[str, Any] | None,
    ) -> dict[str, Any]:
        with self.lock:
            recs = [*self.done, *self.live.values()]
            paths = dict(self.int_paths)
        matrix = ProbeMatrix()
        unknown = 0
        for src, dst, sport, sent, got in recs:
            path = paths.get((src, dst, sport))
            partial = path is None
            if path is None:
                path = traced.get((src, dst, sport)) or [src]
                unknown += got is not None  # delivered, yet no INT report named its path
            matrix.add(src, dst, path, partial, sport, None if got is None else got - sent)
        probes = matrix.rows()
        t0 = min((r[3] for r in recs), default=0)
        timeline = sorted(
            (
                [src, dst, sport, (sent - t0) // 1000, int(got is not None)]
                for src, dst, sport, sent, got in recs
            ),
            key=lambda r: (r[3], r),  # in the order sent, ties in a fixed order
        )
        topo = self.run.topology
        faults = self.run.faults.listing()["faults"]
        warnings = []
        modes = _group_modes(self.run.policy)
        if modes - {"ecmp"}:
            warnings.append(
                f"groups in {', '.join(sorted(modes - {'ecmp'}))} mode: a 5-tuple's probes take "
                "different paths, so a lost probe's path is a guess (sprayfabric lb set ecmp)"
            )
        if unknown:
            warnings.append(f"{unknown} probes arrived without an INT report naming their path")
        return {
            "warnings": warnings,
            "source": "live",
            "topology_file": self.run.topology_path,
            "probe": {
                "rounds": self.rounds,
                "interval_s": self.interval,
                "paths": len(self.sports),
                "pairs": len(self.pairs),
                "seconds": round(seconds, 3),
                "traced_tuples": len(traced),
                "trace_steps": self.traces,
                "delivered_without_path": unknown,
            },
            **latency_thresholds(probes),
            "probes": sorted(probes, key=lambda a: (a["src"], a["dst"], a["path"])),
            "host_ips": {h.name: h.ip for h in topo.hosts},
            "topology": {
                "switches": [s.name for s in topo.switches],
                "hosts": {h.name: h.switch for h in topo.hosts},
                "links": [[lk.a, lk.b] for lk in topo.links]
                + [[h.name, h.switch] for h in topo.hosts],
            },
            "faults": [
                {"kind": f["kind"], "place": f["place"], "arg": f["arg"], "at_ns": 0, "id": f["id"]}
                for f in faults
            ],
            **({"alerts": alerts} if alerts is not None else {}),
            "timeline": timeline,
        }


def latency_noise(probes: list[dict[str, Any]]) -> int:
    """The jitter of a path when nothing is wrong, on this machine now: the median over
    every path of its median latency above its own minimum. A slow link adds a constant
    to the latencies of the paths crossing it (a minority of the rows), a loaded machine
    spreads every path's."""
    spread = sorted(
        a["lat_ns"]["p50"] - a["lat_ns"]["min"]
        for a in probes
        if a.get("lat_ns") and not a.get("partial")
    )
    return spread[len(spread) // 2] if spread else 0


def latency_thresholds(probes: list[dict[str, Any]]) -> dict[str, int]:
    """The probe JSON's `slow_ns` and `queued_ns` (what the doctor counts as a slow path
    and a standing queue here) and the `latency_noise_ns` they were scaled by."""
    noise = latency_noise(probes)
    return {
        "slow_ns": max(LIVE_SLOW_NS, SLOW_NOISE_FACTOR * noise),
        "queued_ns": max(LIVE_QUEUED_NS, NOISE_FACTOR * noise),
        "latency_noise_ns": noise,
    }


def _group_modes(policy: Any) -> set[str]:
    """The load-balancing modes of the policy's groups (the default and per-group ones)."""
    from ..lb import Policy

    p = policy or Policy()
    return {p.mode.mode, *(m.mode for m in p.groups.values())}


def probe_request(run: Any, request: Mapping[str, Any]) -> dict[str, Any]:
    """`POST /api/probe` `{"rounds": R, "interval_s": S, "paths": N, "pairs": "all" or
    [[SRC, DST], ...]}` -> the probe run's JSON."""
    pairs_arg = request.get("pairs", "all")
    pairs = None
    if pairs_arg != "all":
        if not isinstance(pairs_arg, list):
            raise ValueError('probe: pairs is "all" or a list of [SRC, DST]')
        pairs = [(str(p[0]), str(p[1])) for p in pairs_arg]
    with _PROBING:  # one probe run at a time: each binds every host's cable end
        return LiveProber(
            run,
            rounds=int(request.get("rounds", 20)),
            interval_s=float(request.get("interval_s", 0.05)),
            paths=int(request.get("paths", 4)),
            pairs=pairs,
            grace_s=float(request.get("grace_s", 1.0)),
            seed=int(request.get("seed", 1)),
        ).run_probes()


_PROBING = threading.Lock()
