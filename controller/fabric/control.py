"""The control endpoint of a running fabric: a small HTTP JSON API on loopback, next to the
Prometheus metrics, and the state file other commands use to find it.

`sprayfabric up` serves, on 127.0.0.1 (an ephemeral port unless told):

| request | answer |
| --- | --- |
| `GET /metrics` | Prometheus text format |
| `GET /api/status` | switches (address, device id, PID, connected, entries, restores), links, hosts |
| `GET /api/telemetry` | the live table's figures (links, members, switches) |
| `POST /api/lb` `{"mode": M, "group": G or null, ...knobs}` | switch groups to another mode |
| `POST /api/link` `{"a": A, "b": B, "up": bool}` | take a link down or up (routes recomputed) |
| `GET /api/faults`, `POST /api/fault` `{"op": "inject", "spec": S}` or `{"op": "clear", "id": N}` | live faults (live_faults.py) |
| `POST /api/probe` `{"rounds": R, "paths": N, ...}` | a probe run's aggregates, doctor's input (live_probe.py) |

and writes `RunState` to `.sprayfabric/run.json` in its working directory (topology,
switches with addresses and PIDs, the endpoint); `status`, `set-lb`, `link`, `telemetry` and
`shell` read it and talk to the endpoint. A request the fabric refuses gets HTTP 400 with
`{"error": "..."}`; the client raises `ControlError` with that message.
"""

from __future__ import annotations

import json
import logging
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol

__all__ = [
    "STATE_FILE",
    "ControlClient",
    "ControlError",
    "ControlServer",
    "ControlTarget",
    "HostState",
    "RunState",
    "SwitchState",
]

log = logging.getLogger("controller.fabric.control")

STATE_FILE = Path(".sprayfabric") / "run.json"


class ControlError(Exception):
    """The fabric refused a request, or there is no running fabric to ask."""


@dataclass(frozen=True, slots=True)
class SwitchState:
    name: str
    address: str
    device_id: int
    pid: int | None


@dataclass(frozen=True, slots=True)
class HostState:
    """A host's end of its access cable: bind `address` to be the host, send frames to
    `switch_address` (its switch's port); `gateway_mac` is that switch's router MAC. On
    BMv2 a host is network namespace `netns` (its interface `iface`), the addresses unused."""

    name: str
    ip: str
    mac: str
    gateway_mac: str
    address: tuple[str, int]
    switch_address: tuple[str, int]
    netns: str | None = None
    iface: str = "eth0"


@dataclass(frozen=True, slots=True)
class RunState:
    """What `up` tells the other commands."""

    topology: str
    target: str
    endpoint: str  # http://127.0.0.1:PORT
    pid: int  # the `up` process
    p4info: str
    device_config: str
    election_id: int
    switches: tuple[SwitchState, ...] = field(default_factory=tuple)
    hosts: tuple[HostState, ...] = field(default_factory=tuple)

    def save(self, path: Path = STATE_FILE) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2) + "\n")
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path = STATE_FILE) -> RunState:
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise ControlError(
                f"no running fabric here: {path} does not exist (start one with "
                "`sprayfabric fabric up TOPO` in this directory)"
            ) from None
        except (OSError, ValueError) as e:
            raise ControlError(f"{path}: cannot read the fabric state: {e}") from None
        try:
            switches = tuple(SwitchState(**s) for s in data.pop("switches"))
            hosts = tuple(
                HostState(
                    **{
                        **h,
                        "address": tuple(h["address"]),
                        "switch_address": tuple(h["switch_address"]),
                    }
                )
                for h in data.pop("hosts", ())
            )
            return cls(**data, switches=switches, hosts=hosts)
        except (TypeError, KeyError) as e:
            raise ControlError(f"{path}: not a fabric state file ({e})") from None

    def host(self, name: str) -> HostState:
        for h in self.hosts:
            if h.name == name:
                return h
        names = ", ".join(h.name for h in self.hosts)
        raise ControlError(f"no host {name!r} in the running fabric (hosts: {names})")

    def switch(self, name: str) -> SwitchState:
        for s in self.switches:
            if s.name == name:
                return s
        names = ", ".join(s.name for s in self.switches)
        raise ControlError(f"no switch {name!r} in the running fabric (switches: {names})")


class ControlTarget(Protocol):
    """What the endpoint asks of the running fabric (each may raise ValueError/KeyError
    with a message for the user)."""

    def status(self) -> dict[str, Any]: ...

    def telemetry(self) -> dict[str, Any]: ...

    def exposition(self) -> bytes: ...

    def set_lb(self, request: Mapping[str, Any]) -> dict[str, Any]: ...

    def set_link(self, a: str, b: str, up: bool) -> dict[str, Any]: ...

    def fault(self, request: Mapping[str, Any]) -> dict[str, Any]: ...

    def fault_list(self) -> dict[str, Any]: ...

    def probe(self, request: Mapping[str, Any]) -> dict[str, Any]: ...


def _handler(target: ControlTarget) -> type[BaseHTTPRequestHandler]:
    routes_get: dict[str, Callable[[], Any]] = {
        "/api/status": target.status,
        "/api/telemetry": target.telemetry,
    }
    if hasattr(target, "fault_list"):  # a target without faults answers 404
        routes_get["/api/faults"] = target.fault_list

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            log.debug("control: " + format, *args)

        def _send(self, code: int, body: bytes, ctype: str = "application/json") -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _json(self, code: int, obj: Any) -> None:
            self._send(code, json.dumps(obj).encode() + b"\n")

        def _call(self, fn: Callable[[], Any]) -> None:
            try:
                self._json(200, fn())
            except (ValueError, KeyError) as e:
                msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
                self._json(400, {"error": str(msg)})
            except Exception as e:  # noqa: BLE001 -- reported to the client, logged here
                log.exception("control request %s failed", self.path)
                self._json(500, {"error": f"{type(e).__name__}: {e}"})

        def do_GET(self) -> None:  # noqa: N802
            if self.path == "/metrics":
                try:
                    self._send(200, target.exposition(), "text/plain; version=0.0.4")
                except Exception as e:  # noqa: BLE001
                    self._json(500, {"error": str(e)})
                return
            fn = routes_get.get(self.path)
            if fn is None:
                self._json(404, {"error": f"no such resource {self.path}"})
                return
            self._call(fn)

        def do_POST(self) -> None:  # noqa: N802
            try:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                if not isinstance(body, dict):
                    raise ValueError("the request body must be a JSON object")
            except ValueError as e:
                self._json(400, {"error": f"bad request body: {e}"})
                return
            if self.path == "/api/lb":
                self._call(lambda: target.set_lb(body))
            elif self.path == "/api/fault" and hasattr(target, "fault"):
                self._call(lambda: target.fault(body))
            elif self.path == "/api/probe" and hasattr(target, "probe"):
                self._call(lambda: target.probe(body))
            elif self.path == "/api/link":
                self._call(
                    lambda: target.set_link(str(body["a"]), str(body["b"]), bool(body["up"]))
                )
            else:
                self._json(404, {"error": f"no such resource {self.path}"})

    return Handler


class ControlServer:
    """The HTTP endpoint, served by a thread."""

    def __init__(self, target: ControlTarget, host: str = "127.0.0.1", port: int = 0) -> None:
        self._httpd = ThreadingHTTPServer((host, port), _handler(target))
        self._httpd.daemon_threads = True
        self.address: tuple[str, int] = self._httpd.server_address[:2]  # type: ignore[assignment]
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.address[0]}:{self.address[1]}"

    def start(self) -> ControlServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="fabric-control", daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


class ControlClient:
    """Requests to a running fabric's endpoint."""

    def __init__(self, endpoint: str, timeout: float = 60.0) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.timeout = timeout

    def _request(self, path: str, body: Mapping[str, Any] | None = None) -> bytes:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.endpoint + path,
            data=data,
            method="GET" if body is None else "POST",
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return bytes(r.read())
        except urllib.error.HTTPError as e:
            try:
                msg = json.loads(e.read()).get("error", str(e))
            except ValueError:
                msg = str(e)
            raise ControlError(msg) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise ControlError(
                f"the fabric's control endpoint {self.endpoint} does not answer ({reason}); "
                "is `sprayfabric fabric up` still running?"
            ) from None

    def get(self, path: str) -> Any:
        return json.loads(self._request(path))

    def post(self, path: str, body: Mapping[str, Any]) -> Any:
        return json.loads(self._request(path, body))

    def metrics(self) -> str:
        return self._request("/metrics").decode()
