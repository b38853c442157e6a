"""The INT report collector: a UDP socket, a thread, decoded reports to listeners.

    with IntCollector(("127.0.0.1", 32766)) as c:      # port 0: any free port (c.address)
        c.add_listener(lambda r: print(r.flow, [h.switch_id for h in r.hops]))
        ...
        c.reports()                                       # the latest reports kept

`framed=False` (default): each datagram is the UDP payload of a report, as a collector on
a host receives it. `framed=True`: each datagram is a whole frame from a switch port (the
report's Ethernet/IPv4/UDP included), as a softswitch UDP port (`-i N@udp:...`) delivers
it. Datagrams that do not decode are counted in `errors` (the last error kept), never
raised. Drop and queue reports (D or Q set) are kept apart: `alerts()`, counted in
`alerts_received`; the listeners get INT reports only. `timed_alerts(since)` gives them
with the time each arrived (`time.time_ns()`), from the `since`-th received on:

    mark = c.alerts_received
    ...                                                   # a probe run
    c.timed_alerts(mark)                                  # [(ns, DropReport | QueueReport)]
"""

from __future__ import annotations

import logging
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable

from .alerts import DropReport, QueueReport, decode_alert, is_alert
from .int_report import IntReport, ReportError, decode_report, report_payload

__all__ = ["IntCollector"]

log = logging.getLogger("controller.telemetry")


class IntCollector:
    def __init__(
        self, address: tuple[str, int] = ("127.0.0.1", 0), *, framed: bool = False, keep: int = 4096
    ) -> None:
        self.framed = framed
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # bursts of reports must wait in the kernel while the decoder thread catches up
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self._sock.bind(address)
        self.address: tuple[str, int] = self._sock.getsockname()
        self._recent: deque[IntReport] = deque(maxlen=keep)
        self._alerts: deque[tuple[int, DropReport | QueueReport]] = deque(maxlen=keep)
        self.alerts_received = 0
        self._listeners: list[Callable[[IntReport], None]] = []
        self._lock = threading.Lock()
        self._cv = threading.Condition(self._lock)
        self.received = 0
        self.errors = 0
        self.last_error: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def add_listener(self, cb: Callable[[IntReport], None]) -> None:
        self._listeners.append(cb)

    def remove_listener(self, cb: Callable[[IntReport], None]) -> None:
        """Stop calling `cb` (no error if it was not listening)."""
        if cb in self._listeners:
            self._listeners.remove(cb)

    def start(self) -> IntCollector:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="int-collector", daemon=True)
            self._thread.start()
        return self

    def handle(self, datagram: bytes) -> IntReport | DropReport | QueueReport | None:
        """Decode one datagram and hand an INT report to the listeners (the receive thread
        calls this; a test may too)."""
        try:
            payload = report_payload(datagram) if self.framed else datagram
            if is_alert(payload):
                alert = decode_alert(payload)
                with self._lock:
                    self.alerts_received += 1
                    self._alerts.append((time.time_ns(), alert))
                return alert
            rep = decode_report(payload)
        except ReportError as e:
            with self._lock:
                self.errors += 1
                self.last_error = str(e)
            log.debug("INT collector: %s", e)
            return None
        with self._cv:
            self.received += 1
            self._recent.append(rep)
            self._cv.notify_all()
        for cb in list(self._listeners):
            try:
                cb(rep)
            except Exception:
                log.exception("INT report listener failed")
        return rep

    def reports(self) -> list[IntReport]:
        with self._lock:
            return list(self._recent)

    def alerts(self) -> list[DropReport | QueueReport]:
        with self._lock:
            return [a for _, a in self._alerts]

    def timed_alerts(self, since: int = 0) -> list[tuple[int, DropReport | QueueReport]]:
        """(arrival ns, report) for the alerts received after the first `since` (a past
        `alerts_received`), as far as the `keep` latest reach back."""
        with self._lock:
            first = self.alerts_received - len(self._alerts)  # the index of the oldest kept
            return list(self._alerts)[max(0, since - first) :]

    def wait_for(self, count: int, timeout: float) -> bool:
        """Wait until `count` reports were received in total."""
        with self._cv:
            return self._cv.wait_for(lambda: self.received >= count, timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self._sock], [], [], 0.2)
                if ready:
                    self.handle(self._sock.recv(65535))
            except OSError:
                if self._stop.is_set():
                    return
                raise

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._sock.close()

    def __enter__(self) -> IntCollector:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
