"""softswitch inside the PTF process: no root, no interfaces.

PTF's dataplane thread waits on file descriptors (`select`), so each switch port is one
end of a Unix datagram socket pair: `SocketWire` (softswitch's `Port` protocol) is the
switch's end, `InProcessDataPlanePort` (PTF's DataPlanePort interface) the tester's. A
datagram is a frame; nothing leaves the process.

`InProcessSwitch` owns the `SwitchRuntime` (live mode, wall clock) and its
`P4RuntimeServer` on 127.0.0.1:0, and gives the tests what only an embedded target can:
per-port queue rates and queue occupancy (`QueueControl`).
"""

from __future__ import annotations

import logging
import select
import socket
import time
from typing import Any

from softswitch.p4runtime.server import P4RuntimeServer
from softswitch.ports import PortClosed
from softswitch.runtime import SwitchRuntime

__all__ = ["InProcessDataPlanePort", "InProcessSwitch", "SocketWire"]

log = logging.getLogger("ptf_tests.inproc")
_MAX_FRAME = 65536


class SocketWire:
    """The switch's end of a socket pair, as a softswitch `Port`."""

    def __init__(self, sock: socket.socket, name: str) -> None:
        self.sock = sock
        self.name = name
        self._closed = False

    def send(self, data: bytes) -> None:
        self.sock.send(data)

    def recv(self, timeout: float | None = None) -> bytes | None:
        if self._closed:
            raise PortClosed(self.name)
        try:
            ready, _, _ = select.select([self.sock], [], [], timeout)
            if ready and not self._closed:
                return self.sock.recv(_MAX_FRAME)
        except (OSError, ValueError):  # closed by another thread meanwhile
            if not self._closed:
                raise
        if self._closed:
            raise PortClosed(self.name)
        return None

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.sock.close()


class InProcessSwitch:
    """softswitch and its P4Runtime server, started in this process."""

    send_gap_s = 0.0  # QueueControl: bursts go back to back
    burst_pps = 4.0  # QueueControl: the rate bursts queue against
    drain_quiet_s = 0.03  # QueueControl: the occupancy it reports is exact

    def __init__(
        self, *, device_id: int = 0, cpu_port: int = 255, priority_queues: int = 2, seed: int = 1
    ) -> None:
        self.runtime = SwitchRuntime(
            device_id=device_id, cpu_port=cpu_port, priority_queues=priority_queues, seed=seed
        )
        self.server = P4RuntimeServer(self.runtime, device_id=device_id, address="127.0.0.1:0")
        self.device_id = device_id
        self.cpu_port = cpu_port
        self.address = ""

    def start(self) -> str:
        """Start the packet threads and the server; returns the server's address."""
        self.runtime.start()
        port = self.server.start()
        self.address = f"127.0.0.1:{port}"
        return self.address

    def stop(self) -> None:
        self.server.stop(grace=0.5)
        self.runtime.stop()

    def attach(self, port_no: int) -> socket.socket:
        """Make switch port `port_no` a socket pair; returns the tester's end."""
        switch_end, tester_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        for s in (switch_end, tester_end):  # room for bursts of full-size frames
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.runtime.add_port(port_no, SocketWire(switch_end, f"port{port_no}"))
        return tester_end

    # ------------------------------------------------------------ QueueControl
    def set_rate(self, port: int, pps: float | None) -> None:
        """Serve `port`'s queues at `pps` packets/s (None: unthrottled). A packet being
        served keeps the departure time it was given."""
        with self.runtime.lock:
            sw = self.runtime.switch
            if sw is not None:
                sw.tm.set_rate(port=port, pps=pps)

    def queued(self, port: int) -> int:
        """Packets waiting in `port`'s queues."""
        with self.runtime.lock:
            sw = self.runtime.switch
            if sw is None:
                return 0
            return sum(sw.tm.occupancy(port, p) for p in range(sw.tm.priorities))

    def wait_queued(self, port: int, count: int, timeout: float) -> bool:
        """Wait until `port` holds `count` packets (True) or `timeout` s pass (False)."""
        deadline = time.monotonic() + timeout
        while self.queued(port) != count:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)
        return True

    def wait_drained(self, ports: list[int], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while any(self.queued(p) for p in ports):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True


class InProcessDataPlanePort:
    """PTF's DataPlanePort for a port of the in-process switch (`config["softswitch"]`)."""

    def __init__(
        self, interface_name: str, device_number: int, port_number: int, config: dict[str, Any]
    ) -> None:
        switch: InProcessSwitch = config["softswitch"]
        self.interface_name = interface_name
        self.device_number = device_number
        self.port_number = port_number
        self.sock = switch.attach(port_number)

    # PTF's DataPlanePacketSourceIface
    def fileno(self) -> int:
        return self.sock.fileno()

    def recv(self) -> tuple[int, int, bytes, float]:
        return (self.device_number, self.port_number, self.sock.recv(_MAX_FRAME), time.time())

    # PTF's DataPlanePortIface
    def get_packet_source(self) -> InProcessDataPlanePort:
        return self

    def send(self, packet: bytes) -> int:
        return self.sock.send(packet)

    def down(self) -> None:
        log.warning("port %d: link down is not modelled in-process", self.port_number)

    def up(self) -> None:
        pass

    def mac(self) -> str:
        return "00:00:00:00:00:00"
