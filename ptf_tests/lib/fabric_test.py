"""`FabricTest`: the base of every PTF test of p4src/fabric.p4.

setUp connects a primary P4Runtime session (controller/p4rt.py), pushes the pipeline
unless the switch already runs it (same cookie: once per run), and makes ROUTER_MAC a
router MAC. Verbs write the run-time knobs of docs/fabric.md as the controller does, through
its encoder (`controller.lb.FabricEncoder`: names from the P4Info, constants from the P4
source, `self.c`); everything
a test writes through them is deleted again when it ends (a unittest cleanup, so also
after a failed setUp or a skip), in reverse order, after the queues it throttled are
released and drained, so every test starts from the same switch.

Data-plane state the program learns (registers: flowlet and round-robin state, learned
member ports, queue depths) is not reset (BMv2 refuses register writes): tests use their
own group ids and do not assume where a round-robin pointer starts.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import grpc
import ptf
from ptf import testutils
from ptf.base_tests import BaseTest
from ptf.mask import Mask
from scapy.layers.l2 import Ether
from scapy.packet import Packet

from controller import (
    P4RuntimeError,
    P4RuntimeSession,
    P4RuntimeWriteError,
    TableEntry,
    Update,
)
from controller.entities import Entity
from controller.lb import (
    Cnp,
    EcnRed,
    EcnStep,
    FabricConstants,
    FabricEncoder,
    GroupMode,
    IntCollector,
    IntWatch,
    NextHop,
    Trim,
)

from .packets import ROUTER_MAC, route, udp_packet
from .recorder import Recorder
from .target import Bmv2Queues, Target

__all__ = [
    "BACKGROUND_PREFIX",
    "CHI2_P001",
    "FabricTest",
    "chi_square_uniform",
    "flows",
    "next_hop_mac",
]

log = logging.getLogger("ptf_tests")

BACKGROUND_PREFIX = "10.0.9.0/24"  # congest(): background traffic to a throttled port
# chi-square critical values at p = 0.001 by degrees of freedom: a fair spread fails
# one run in a thousand
CHI2_P001 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 7: 24.32}


def next_hop_mac(port: int) -> str:
    """The MAC of the neighbour behind `port` (a convention of these tests)."""
    return f"00:00:00:00:{port:02x}:{port:02x}"


def chi_square_uniform(counts: Sequence[int]) -> float:
    """Pearson's statistic of `counts` against a uniform spread."""
    n = sum(counts)
    e = n / len(counts)
    return sum((c - e) ** 2 / e for c in counts)


class FabricTest(BaseTest):
    """Verbs over P4Runtime, packet checks over PTF's dataplane, cleanup of both."""

    router_mac = ROUTER_MAC

    # ------------------------------------------------------------ lifecycle
    def setUp(self) -> None:
        super().setUp()
        self.dataplane = ptf.dataplane_instance
        record_dir = testutils.test_param_get("record_dir", None)
        if record_dir:  # run.py --record: this test's frames, for ptf_tests/compare_runs.py
            rec = Recorder(Path(record_dir) / f"{self.id()}.jsonl", self.dataplane.pcap_writer)
            self.dataplane.pcap_writer = rec
            self.addCleanup(self._stop_recording, rec)
        self.target = Target.from_ptf()
        # constants (drop reasons, clone sessions, ...) from the program's define.p4
        self.c = FabricConstants.load(self.target.define_p4.parents[1], self.target.cpu_port)
        self._written: list[Entity] = []
        self._throttled: set[int] = set()
        self._filtered = False
        self.sw = self.connect()
        # cleanups run last-in first-out, also when setUp fails or the test is skipped
        self.addCleanup(self.sw.close)
        self.addCleanup(self.cleanup)
        if isinstance(self.target.queues, Bmv2Queues):
            self.addCleanup(self.target.queues.cli.close)
        p4info, config = self.target.pipeline()
        if self.sw.ensure_pipeline(p4info, config):
            log.info("pipeline pushed to %s", self.target.grpc_addr)
            if isinstance(self.target.queues, Bmv2Queues):
                self.target.queues.prepare()
        self.enc = FabricEncoder(self.sw.schema, self.c)
        self.dataplane.flush()
        self.add_router_mac(self.router_mac)

    def _stop_recording(self, rec: Recorder) -> None:
        self.dataplane.pcap_writer = rec.passthrough
        rec.save()

    def connect(self, timeout: float = 30) -> P4RuntimeSession:
        """A primary session (election id 1). The previous test's session may still be
        closing on the switch (its stream end not yet seen, on a loaded machine): while
        the switch says the election id is in use, try again."""
        deadline = time.monotonic() + timeout
        while True:
            sw = P4RuntimeSession(self.target.grpc_addr, self.target.device_id, election_id=1)
            try:
                return sw.connect(timeout=timeout)
            except P4RuntimeError as e:
                sw.close()
                if "already used" not in str(e) or time.monotonic() > deadline:
                    raise
                log.info("election id still in use, retrying: %s", e)
                time.sleep(0.1)

    def cleanup(self) -> None:
        """Release throttled queues, let them drain, delete what the test wrote (last
        first, one batch; one by one if the batch fails), forget the packets still
        arriving. Each step runs whatever the one before did."""
        failures: list[str] = []
        quiet_s = 0.03
        try:
            if self._throttled and self.target.queues is not None:
                for port in sorted(self._throttled):
                    self.target.queues.set_rate(port, None)
                # a real-time switch sends a released backlog at the old rate (BMv2)
                if not self.target.queues.wait_drained(sorted(self._throttled), timeout=90):
                    failures.append(f"queues of ports {sorted(self._throttled)} did not drain")
                # BMv2's recorded depth is per priority queue: a trimmed packet leaving
                # its empty high-priority queue records 0 while others still wait, so
                # also wait for a silence longer than the throttled interval (1/4 s)
                quiet_s = self.target.queues.drain_quiet_s
        finally:
            self._throttled.clear()
            written, self._written = self._written, []
            failures += self.delete_all(written)
            self.drain_dataplane(quiet_s)
        if self._filtered:
            testutils.reset_filters()
            self._filtered = False
        if failures:
            self.fail("; ".join(failures))

    def delete_all(self, written: list[Entity]) -> list[str]:
        """Delete what a test wrote, last first: one batch; if some updates fail, each
        remaining one alone (an entity already gone is fine). Returns what could not be
        deleted, so the next test does not start from leftovers (ALREADY_EXISTS)."""
        if not written:
            return []
        try:
            self.sw.write([Update.delete(e) for e in reversed(written)])
            return []
        except P4RuntimeError as e:
            log.warning("cleanup batch: %s; deleting one by one", e)
        left: list[str] = []
        for e in reversed(written):
            try:
                self.sw.write([Update.delete(e)])
            except P4RuntimeError as err:
                codes = [x.code for x in getattr(err, "errors", [])] or [err.code]
                if any(c != grpc.StatusCode.NOT_FOUND for c in codes):
                    left.append(f"cleanup: {err}")
        return left

    def drain_dataplane(self, quiet_s: float = 0.03) -> None:
        """Forget received packets once no new one came for `quiet_s` seconds."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            got = self.dataplane.poll(device_number=0, timeout=quiet_s)
            if isinstance(got, self.dataplane.PollFailure):
                break
        self.dataplane.flush()

    # ------------------------------------------------------------ writes
    def insert(self, *entities: Entity) -> None:
        """INSERT and remember for cleanup (also the ones that went in when others of
        the batch failed)."""
        try:
            self.sw.insert(*entities)
        except P4RuntimeWriteError as e:
            failed = {x.index for x in e.errors}
            self._written.extend(x for i, x in enumerate(entities) if i not in failed)
            raise
        self._written.extend(entities)

    def modify(self, *entities: Entity) -> None:
        """MODIFY entities this test inserted (cleanup deletes them by key)."""
        self.sw.modify(*entities)

    def add(
        self,
        table: str,
        match: Mapping[str, Any],
        action: str,
        params: Mapping[str, Any] | None = None,
        priority: int = 0,
    ) -> TableEntry:
        """INSERT one table entry (names from the P4Info) and return it."""
        e = self.sw.table_entry(table, match, action, params, priority)
        self.insert(e)
        return e

    # ------------------------------------------------------------ forwarding verbs
    def _insert_one(self, e: TableEntry) -> TableEntry:
        self.insert(e)
        return e

    def add_router_mac(self, mac: str) -> TableEntry:
        return self._insert_one(self.enc.my_station(mac))

    def add_route(self, prefix: str, group_id: int) -> TableEntry:
        return self._insert_one(self.enc.route(prefix, group_id))

    def add_route_action(self, prefix: str, action: str) -> TableEntry:
        """A route to `punt_to_cpu` or `drop_route`."""
        build = {"punt_to_cpu": self.enc.route_punt, "drop_route": self.enc.route_drop}
        return self._insert_one(build[action](prefix))

    def group_entry(
        self, group_id: int, mode: str, size: int, live: int | None = None, gap_us: int = 0
    ) -> TableEntry:
        """The next_hop_group entry of a group; modes: ecmp, flowlet, spray_random,
        spray_round_robin, adaptive (live: None = every slot)."""
        return self.enc.group(group_id, GroupMode.parse(mode, gap_us), size, live)

    def add_group(
        self,
        group_id: int,
        mode: str,
        ports: Sequence[int],
        *,
        live: int | None = None,
        gap_us: int = 0,
    ) -> list[TableEntry]:
        """A next-hop group with one member per port (a port listed twice gets two
        slots: WCMP); returns the member entries (for their counters)."""
        self.insert(self.group_entry(group_id, mode, len(ports), live, gap_us))
        members = [
            self.enc.member(group_id, i, NextHop(p, next_hop_mac(p)), self.router_mac)
            for i, p in enumerate(ports)
        ]
        self.insert(*members)
        return members

    def set_group(
        self, group_id: int, mode: str, size: int, *, live: int | None = None, gap_us: int = 0
    ) -> None:
        """Change a group's mode or live members: one MODIFY."""
        self.modify(self.group_entry(group_id, mode, size, live, gap_us))

    def add_ecmp_route(
        self, prefix: str, group_id: int, ports: Sequence[int], mode: str = "ecmp", **kw: int
    ) -> list[TableEntry]:
        self.add_route(prefix, group_id)
        return self.add_group(group_id, mode, ports, **kw)

    def add_arp_responder(self, ip: str, mac: str) -> TableEntry:
        return self._insert_one(self.enc.arp_reply(ip, mac))

    def add_clone_session(self, session: int, port: int, packet_length: int = 0) -> None:
        self.insert(self.sw.clone_session(session, [port], packet_length_bytes=packet_length))

    def add_cnp_session(self, port: int) -> None:
        """Clone session CNP_SESSION_BASE + port: CNPs back out of `port`."""
        self.insert(self.enc.cnp_session(port))

    def add_int_session(self, port: int, packet_length: int = 0) -> None:
        """Clone session INT_REPORT_SESSION: reports out of `port`."""
        self.insert(self.enc.int_session(port, packet_length))

    # ------------------------------------------------------------ congestion verbs
    def set_ecn_step(self, port: int, threshold: int) -> TableEntry:
        return self._insert_one(self.enc.ecn(port, EcnStep(threshold)))

    def set_ecn_red(self, port: int, k_min: int, k_max: int, p_max: int) -> TableEntry:
        return self._insert_one(self.enc.ecn(port, EcnRed(k_min, k_max, p_max)))

    def set_trim(self, port: int, threshold: int, dscp: int, priority: int) -> TableEntry:
        return self._insert_one(self.enc.trim(port, Trim(threshold, dscp, priority)))

    def set_cnp(self, port: int, threshold: int, interval_us: int, dscp: int) -> TableEntry:
        return self._insert_one(self.enc.cnp(port, Cnp(threshold, interval_us, dscp)))

    # ------------------------------------------------------------ INT verbs
    def add_int_watchlist(
        self, max_hops: int, instructions: int, *, priority: int = 10, **fields: Any
    ) -> TableEntry:
        """Flows matching `fields` get INT from this switch: ip_src/ip_dst as prefixes
        ("10.0.0.0/8"), ip_proto/l4_sport/l4_dport as a value or (value, full mask)."""
        exact = {}
        for name, v in fields.items():
            if isinstance(v, tuple):
                value, mask = v
                width = self.sw.schema.table("int_watchlist").field(name).bitwidth
                if mask != (1 << width) - 1:
                    raise ValueError(f"int watchlist {name}: only exact values (full mask)")
                v = value
            exact[name] = v
        watch = IntWatch(priority=priority, **exact)
        return self._insert_one(self.enc.int_watch(watch, max_hops, instructions))

    def add_int_sink(self, port: int) -> TableEntry:
        return self._insert_one(self.enc.int_sink(port))

    def enable_int(self, port: int, switch_id: int, mtu: int = 1500) -> TableEntry:
        return self._insert_one(self.enc.int_port(port, switch_id, mtu))

    def add_int_report(self, collector_port: int, **encap: Any) -> TableEntry:
        """Reports leaving by `collector_port` get this Ethernet/IPv4/UDP encapsulation
        (src_mac, dst_mac, src_ip, dst_ip, src_port, dst_port)."""
        collector = IntCollector(
            ip=encap["dst_ip"],
            mac=encap["dst_mac"],
            udp_port=encap["dst_port"],
            src_port=encap["src_port"],
        )
        entry = self.enc.int_report(
            collector_port, encap["src_mac"], encap["dst_mac"], encap["src_ip"], collector
        )
        return self._insert_one(entry)

    def add_drop_report(
        self, switch_id: int, min_gap_us: int, reason: str | None = None
    ) -> TableEntry:
        """Report ingress drops of `reason` (a DROP_* name without the prefix; every
        reason when None), at most one per reason every `min_gap_us`."""
        code = None if reason is None else self.c[f"DROP_{reason}"]
        return self._insert_one(self.enc.drop_report(switch_id, min_gap_us, code))

    def add_queue_report(
        self, port: int, switch_id: int, threshold: int, min_gap_us: int
    ) -> TableEntry:
        """Report packets leaving `port` behind `threshold` or more packets, at most one
        every `min_gap_us`."""
        return self._insert_one(self.enc.queue_report(port, switch_id, threshold, min_gap_us))

    # ------------------------------------------------------------ reading state
    def drop_count(self, reason: str) -> int:
        return self.sw.read_counter("drop_counter", self.c[f"DROP_{reason}"]).packets

    def member_packets(self, member: TableEntry) -> int:
        return self.sw.read_direct_counter(member).packets

    def queue_depth_seen(self, port: int) -> int:
        """`port_queue_depth[port]`: the queue depth egress last recorded for `port`
        (on BMv2 through its Thrift CLI: its P4Runtime server does not read registers)."""
        if isinstance(self.target.queues, Bmv2Queues):
            q = self.target.queues
            return q.read_register(q.depth_register, port)
        return self.sw.read_register("port_queue_depth", port)

    def wait_for(self, what: str, cond: Callable[[], bool], timeout: float = 5.0) -> None:
        """Poll `cond` until it holds; fail naming `what` after `timeout` s."""
        deadline = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > deadline:
                self.fail(f"timed out waiting for {what}")
            time.sleep(0.005)

    # ------------------------------------------------------------ queues
    def require_queue_control(self) -> None:
        if self.target.queues is None:
            self.skipTest(
                f"target {self.target.name}: egress queue rates cannot be set here "
                "(needs the in-process softswitch, or BMv2 with simple_switch_CLI)"
            )

    def throttle(self, port: int, pps: float) -> None:
        self.require_queue_control()
        assert self.target.queues is not None
        self._throttled.add(port)
        self.target.queues.set_rate(port, pps)

    def unthrottle(self, port: int) -> None:
        assert self.target.queues is not None
        self.target.queues.set_rate(port, None)

    def burst(
        self, in_port: int, pkts: Sequence[Packet], out_port: int, pps: float | None = None
    ) -> list[bytes]:
        """Queue `pkts` on `out_port` while it is served at `pps`: the first is sent alone
        and leaves at once, which makes the port busy for 1/pps; the others, sent back to
        back behind it, queue up, packet i (i >= 1) behind i - 1 others (its enq_qdepth).
        Returns the frames in the order they left.

        Sending the first alone and waiting for it makes the depths the same on every
        target: a real-time switch that is slow to serve the first packet of a burst
        would otherwise count it in the queue of the next (BMv2 also holds a packet back
        when the port sent one less than 1/pps ago). The rest must be queued within
        1/pps of the first leaving (the target's `burst_pps`: softswitch 4/s, BMv2
        2/s, as its port reader and ingress fall behind on a loaded machine). They are sent
        `send_gap_s` apart (BMv2: 1 ms; a switch that reads its ports slower than
        packets come loses some when it falls behind). softswitch releases the
        port once all are queued; BMv2 keeps it throttled (it fixes each packet's
        departure when it is queued, so releasing the port would only bunch up packets
        still on their way in), and the frames come at `pps`."""
        frames = [bytes(p) for p in pkts]  # built before the clock starts
        self.require_queue_control()
        assert self.target.queues is not None
        pps = pps or self.target.queues.burst_pps
        self.throttle(out_port, pps)
        self.send(in_port, frames[0])
        out = [self.next_frame(out_port)]
        gap = self.target.queues.send_gap_s if self.target.queues is not None else 0.0
        for f in frames[1:]:
            self.send(in_port, f)
            time.sleep(gap)
        assert self.target.queues is not None
        if not self.target.queues.wait_queued(out_port, len(frames) - 1, timeout=2):
            self.fail(
                f"the burst of {len(frames)} did not queue up (a departure every {1 / pps} s)"
            )
        if not isinstance(self.target.queues, Bmv2Queues):
            self.unthrottle(out_port)
        return out + [self.next_frame(out_port) for _ in frames[1:]]

    def congest(self, port: int, backlog: int, in_port: int = 8, pps: float = 4) -> None:
        """Build a backlog on `port`: `backlog` background packets (10.0.9.0/24, group
        900) into a queue served at `pps`. Returns once the first two have left and
        egress has recorded the depth (the second departure sees backlog - 2 behind it;
        port_queue_depth says so).

        Tolerance: the wait accepts any depth in 1..backlog - 2, because on a real-time
        switch a read that takes longer than 1/pps sees a later departure (one fewer
        queued); the tests' thresholds sit several packets below the backlog."""
        self.throttle(port, pps)
        self.add_ecmp_route(BACKGROUND_PREFIX, 900, [port])
        base = ipaddress.ip_network(BACKGROUND_PREFIX).network_address
        bg = [udp_packet(dst=str(base + 1), sport=40000 + i) for i in range(backlog)]
        for p in bg:
            self.send(in_port, p)
        for _ in range(2):  # the two that left
            self.next_frame(port)
        self.wait_for(
            f"port {port} to record a queue of {backlog - 2}",
            lambda: 0 < self.queue_depth_seen(port) <= backlog - 2,
            timeout=3 + 2 / pps,
        )

    # ------------------------------------------------------------ packets
    def send(self, port: int, pkt: Packet | bytes) -> None:
        testutils.send_packet(self, port, pkt)

    def expect(self, port: int, pkt: Packet | Mask | bytes) -> None:
        """`pkt` arrives on `port` (others before it are discarded)."""
        testutils.verify_packet(self, pkt, port)

    def expect_only(self, port: int, pkt: Packet | Mask | bytes) -> None:
        """`pkt` arrives on `port` and nothing else arrives anywhere."""
        testutils.verify_packet(self, pkt, port)
        self.expect_nothing()

    def expect_nothing(self, timeout: float | None = None) -> None:
        testutils.verify_no_other_packets(self, timeout=timeout)

    def next_frame(self, port: int, timeout: float = 3.0) -> bytes:
        """The next frame `port` sends (fail if none comes in `timeout` s)."""
        got = self.dataplane.poll(device_number=0, port_number=port, timeout=timeout)
        if isinstance(got, self.dataplane.PollFailure):
            self.fail(f"no packet on port {port} within {timeout} s")
        return bytes(got.packet)

    def expect_next(self, port: int, pkt: Packet | Mask | bytes) -> None:
        """The very next frame on `port` is `pkt` (strict order, unlike `expect`)."""
        got = self.next_frame(port)
        if not ptf.dataplane.match_exp_pkt(pkt, got):
            self.fail(
                f"port {port}: next packet differs\nexpected: {_hex(pkt)}\nreceived: {got.hex()}"
            )

    def out_port(self, sent_on: int, pkt: Packet, exp: Packet, ports: Sequence[int]) -> int:
        """Send `pkt`; it must leave by one of `ports` as `exp` with that port's next-hop
        MAC and nothing else may arrive. Returns the port."""
        self.send(sent_on, pkt)
        mask = Mask(bytes(exp))
        mask.set_do_not_care(0, 48)  # Ethernet destination: the member's MAC, checked below
        idx, frame = testutils.verify_packet_any_port(
            self, mask, list(ports), timeout=3, n_timeout=1e-4
        )
        port = ports[idx]
        self.assertEqual(Ether(frame).dst, next_hop_mac(port), f"next-hop MAC on port {port}")
        return port

    def out_ports(
        self, pkts: Iterable[Packet], ports: Sequence[int], sent_on: int = 1, exact: bool = True
    ) -> list[int]:
        """`out_port` for each routed packet in turn; with `exact`, also check that exactly
        one frame arrived per packet (PTF's matching skips strays and duplicates)."""
        before = sum(self.dataplane.rx_counters.values())
        got = [
            self.out_port(sent_on, p, route(p, self.router_mac, "00:00:00:00:00:00"), ports)
            for p in pkts
        ]
        if exact:
            self.expect_nothing(timeout=0.05)
            received = sum(self.dataplane.rx_counters.values()) - before
            self.assertEqual(received, len(got), "frames received (duplicates or strays?)")
        return got

    def ignore(self, pred: Callable[[bytes], bool]) -> None:
        """Hide matching frames from the checks until cleanup."""
        testutils.add_filter(lambda frame: not pred(bytes(frame)))
        self._filtered = True

    def ignore_background(self) -> None:
        """Hide the background traffic of `congest` (IPv4 to BACKGROUND_PREFIX)."""
        net = ipaddress.ip_network(BACKGROUND_PREFIX)
        self.ignore(
            lambda f: (
                f[12:14] == b"\x08\x00" and len(f) >= 34 and ipaddress.ip_address(f[30:34]) in net
            )
        )


def _hex(pkt: Packet | Mask | bytes) -> str:
    if isinstance(pkt, Mask):
        return bytes(pkt.exp_pkt).hex() + " (masked)"
    return bytes(pkt).hex()


def flows(n: int, **kw: object) -> Iterable[Packet]:
    """`n` UDP flows from distinct sources and ports."""
    for i in range(n):
        yield udp_packet(src=f"10.1.{i // 250}.{i % 250 + 1}", sport=1000 + i, **kw)  # type: ignore[arg-type]
