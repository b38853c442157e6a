"""softswitch's P4Runtime server: the `p4.v1.P4Runtime` gRPC service over one or more
SwitchRuntimes, each a device with its own P4Runtime device id (a chassis).

    server = P4RuntimeServer(runtime, device_id=0, address="127.0.0.1:0")
    server.add_device(other_runtime, device_id=1)      # optional: more devices
    port = server.start()      # the bound port; logs where it listens
    ...
    server.stop()

Every request names its device: a `device_id` no device of the server has is NOT_FOUND
(the specification: "If device_id does not match any of the devices known to the P4Runtime
server ... the server must return a NOT_FOUND error"), in Write, Read,
Set/GetForwardingPipelineConfig, Capabilities (when it names one) and in a stream's first
MasterArbitrationUpdate (the stream ends with NOT_FOUND). A stream belongs to the device of
its first arbitration update; with several devices, a message before it gets a
`StreamError` PERMISSION_DENIED (with one device, that device's stream handler answers it).

RPCs (P4Runtime specification sections in quotes), each on its device (`device.py`):

* `Capabilities` ("Capabilities RPC"): the version of the installed `p4runtime` protobufs.
* `StreamChannel` ("P4Runtime Stream Messages"): `stream.py` (packet I/O, digests,
  idle-timeout notifications), arbitration in `arbitration.py`.
* `SetForwardingPipelineConfig` / `GetForwardingPipelineConfig`: `pipeline.py`.
* `Write` ("Write RPC") and `Read` ("Read RPC"): `device.py`.

Concurrency: gRPC runs handlers on a thread pool (a StreamChannel holds one worker while it
is open, so the pool has room for one stream per device beside `max_workers`). Each device
serialises its own RPCs (`device.py`); devices never wait for each other. One thread scans
every device's idle timeouts.

`load_config` turns a `p4_device_config` into a program (default: compile it; the
`softswitch` command passes a `ProgramCache`'s `load`, which reuses earlier compilations,
and shares one program between the devices that push the same config).

`policy` chooses between BMv2's behaviour ("bmv2", the default) and the letter of the
specification ("spec") where they differ: promotion of the next primary when the primary's
stream breaks, GetForwardingPipelineConfig before any pipeline (FAILED_PRECONDITION vs an
unset config), writes without arbitration while no stream is open, and PacketOut metadata
that is missing or empty (zero vs INVALID_ARGUMENT).
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc

from p4rt_proto import p4runtime_pb2

from .arbitration import Arbiter, Policy
from .device import P4RuntimeDevice
from .errors import P4RuntimeError
from .pipeline import Pipelines, RuntimeLike, StoreFactory
from .status import SPACE, RpcAbort, Undecodable, abort, decoder, status_code
from .stream import DigestEngine, IdleTimeouts, StreamHandler

__all__ = ["P4RuntimeServer", "api_version"]

log = logging.getLogger("softswitch.p4runtime")

_FALLBACK_VERSION = "1.6.0"  # the p4runtime version pyproject.toml pins
_MAX_MESSAGE = 256 * 1024 * 1024  # as BMv2's PI server
_F = TypeVar("_F", bound=Callable[..., Any])


def api_version() -> str:
    """The P4Runtime API version the installed protobufs implement (the `p4runtime` wheel)."""
    import importlib.metadata  # a tenth of a second of imports: only when asked

    try:
        return importlib.metadata.version("p4runtime")
    except importlib.metadata.PackageNotFoundError:
        return _FALLBACK_VERSION


class P4RuntimeServer:
    """The P4Runtime service for the switch of `runtime`, as device `device_id`; more
    devices with `add_device` (before or after `start`)."""

    def __init__(
        self,
        runtime: RuntimeLike,
        device_id: int = 0,
        address: str = "127.0.0.1:9559",
        *,
        policy: Policy = "bmv2",
        store_factory: StoreFactory | None = None,
        load_config: Callable[[bytes], Any] | None = None,
        max_workers: int = 32,
        idle_scan_s: float = 0.1,
        after_commit: Callable[[], None] | None = None,
    ) -> None:
        self.address = address
        self.policy = policy
        self.max_workers = max_workers
        self.idle_scan_s = idle_scan_s
        self.port: int | None = None
        self._store_factory = store_factory
        self._load_config = load_config
        self.devices: dict[int, P4RuntimeDevice] = {}
        self._server: grpc.Server | None = None
        self.first = self.add_device(runtime, device_id, after_commit=after_commit)
        self._stopping = threading.Event()
        self._idle_thread: threading.Thread | None = None

    def add_device(
        self,
        runtime: RuntimeLike,
        device_id: int,
        *,
        after_commit: Callable[[], None] | None = None,
    ) -> P4RuntimeDevice:
        """Serve `runtime` as device `device_id` too (ValueError if the id is taken)."""
        if device_id in self.devices:
            raise ValueError(f"device id {device_id} is already served")
        dev = P4RuntimeDevice(
            runtime,
            device_id,
            policy=self.policy,
            store_factory=self._store_factory,
            load_config=self._load_config,
            idle_scan_s=self.idle_scan_s,
            after_commit=after_commit,
        )
        self.devices[device_id] = dev
        if self._server is not None:
            dev.start()
        return dev

    def device(self, device_id: int) -> P4RuntimeDevice:
        """The device with this id; NOT_FOUND (P4RuntimeError) if the server has none."""
        dev = self.devices.get(device_id)
        if dev is None:
            raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, self._unknown(device_id))
        return dev

    def _unknown(self, device_id: int) -> str:
        ids = sorted(self.devices)
        shown = ", ".join(map(str, ids[:8])) + (", ..." if len(ids) > 8 else "")
        return f"unknown device id {device_id} (this server has device {shown})"

    # the first device's parts, as a one-device server always had them
    @property
    def runtime(self) -> RuntimeLike:
        return self.first.runtime

    @property
    def device_id(self) -> int:
        return self.first.device_id

    @property
    def pipelines(self) -> Pipelines:
        return self.first.pipelines

    @property
    def arbiter(self) -> Arbiter:
        return self.first.arbiter

    @property
    def streams(self) -> StreamHandler:
        return self.first.streams

    @property
    def digests(self) -> DigestEngine:
        return self.first.digests

    @property
    def idle_timeouts(self) -> IdleTimeouts:
        return self.first.idle_timeouts

    @property
    def control(self) -> threading.RLock:
        return self.first.control

    def check_device(self, device_id: int) -> None:
        self.device(device_id)

    def write(self, request: Any) -> None:
        self.device(request.device_id).write(request)

    def read(self, request: Any) -> tuple[list[Any], Any]:
        return self.device(request.device_id).read(request)

    @functools.cached_property
    def api_version(self) -> str:
        """What Capabilities answers (looked up at the first call)."""
        return api_version()

    # ------------------------------------------------------------ lifecycle
    def start(self) -> int:
        """Listen and serve; returns the bound port (address "host:0" picks a free one)."""
        if self._server is not None:
            raise RuntimeError("the P4Runtime server is already running")
        # a StreamChannel holds a worker while it is open: room for one per device
        workers = self.max_workers + (len(self.devices) if len(self.devices) > 1 else 0)
        server = grpc.server(
            ThreadPoolExecutor(workers, thread_name_prefix="p4rt"),
            options=[
                ("grpc.so_reuseport", 0),
                ("grpc.max_receive_message_length", _MAX_MESSAGE),
                ("grpc.max_send_message_length", _MAX_MESSAGE),
            ],
        )
        server.add_generic_rpc_handlers((_handlers(_Servicer(self)),))
        try:
            port = server.add_insecure_port(self.address)
        except RuntimeError as e:
            raise OSError(f"P4Runtime server cannot listen on {self.address}: {e}") from None
        if not port:
            raise OSError(f"P4Runtime server cannot listen on {self.address}")
        for dev in self.devices.values():
            dev.start()
        self._stopping.clear()
        self._idle_thread = threading.Thread(target=self._scan_idle, name="p4rt-idle", daemon=True)
        self._idle_thread.start()
        server.start()
        self._server = server
        self.port = port
        host = self.address.rsplit(":", 1)[0]
        ids = sorted(self.devices)
        which = f"device id {ids[0]}" if len(ids) == 1 else f"{len(ids)} devices"
        log.info("P4Runtime server (%s) listening on %s:%d", which, host, port)
        return port

    def stop(self, grace: float | None = None) -> None:
        """End all streams and RPCs (after `grace` seconds for unary ones in flight)."""
        server, self._server = self._server, None
        if server is None:
            return
        for dev in self.devices.values():
            dev.stop()
        server.stop(grace).wait()
        self._stopping.set()
        if self._idle_thread is not None:
            self._idle_thread.join(timeout=5)
            self._idle_thread = None
        for dev in self.devices.values():
            dev.stop_timers()
        log.info("P4Runtime server on port %s stopped", self.port)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the server stops (True if `timeout` passed first)."""
        server = self._server
        if server is None:
            return False
        return bool(server.wait_for_termination(timeout))

    def __enter__(self) -> P4RuntimeServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _scan_idle(self) -> None:
        """Every device's idle timeouts, every `idle_scan_s` seconds, on one thread."""
        while not self._stopping.wait(self.idle_scan_s):
            for dev in list(self.devices.values()):
                try:
                    dev.idle_timeouts.scan()
                except Exception:  # noqa: BLE001 - keep scanning
                    log.exception("P4Runtime: idle timeout scan of device %d", dev.device_id)

    # ------------------------------------------------------------ StreamChannel
    def serve_stream(self, requests: Iterator[Any], context: grpc.ServicerContext) -> Iterator[Any]:
        """A StreamChannel: with one device, that device's; with several, the device of the
        first MasterArbitrationUpdate (NOT_FOUND if none has its id)."""
        if len(self.devices) == 1:
            yield from self.first.streams.serve(requests, context)
            return
        it = iter(requests)
        for req in it:
            if isinstance(req, Undecodable):
                raise RpcAbort(grpc.StatusCode.INVALID_ARGUMENT, req.message)
            if req.WhichOneof("update") != "arbitration":
                yield _before_arbitration(req)
                continue
            dev = self.devices.get(req.arbitration.device_id)
            if dev is None:
                raise RpcAbort(grpc.StatusCode.NOT_FOUND, self._unknown(req.arbitration.device_id))
            yield from dev.streams.serve(_chain(req, it), context)
            return


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest


def _before_arbitration(req: Any) -> Any:
    """The StreamError for a message that came before the stream named its device."""
    msg = p4runtime_pb2.StreamMessageResponse()
    msg.error.canonical_code = status_code(grpc.StatusCode.PERMISSION_DENIED)
    msg.error.message = "a stream message before the MasterArbitrationUpdate naming its device"
    msg.error.space = SPACE
    kind = req.WhichOneof("update")
    if kind == "packet":
        msg.error.packet_out.packet_out.CopyFrom(req.packet)
    elif kind == "digest_ack":
        msg.error.digest_list_ack.digest_list_ack.CopyFrom(req.digest_ack)
    elif kind == "other":
        msg.error.other.other.CopyFrom(req.other)
    return msg


# ---------------------------------------------------------------- the gRPC servicer
def _unary(fn: _F) -> _F:
    """Turn P4RuntimeError/RpcAbort (and bugs, as INTERNAL) into the RPC's status."""

    @functools.wraps(fn)
    def wrapper(self: _Servicer, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            if isinstance(request, Undecodable):
                raise RpcAbort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
            return fn(self, request, context)
        except RpcAbort as e:
            failure = e
        except P4RuntimeError as e:
            failure = RpcAbort.of(e)
        except Exception as e:  # noqa: BLE001
            log.exception("P4Runtime: %s", fn.__name__)
            failure = RpcAbort(grpc.StatusCode.INTERNAL, f"internal error: {e!r}")
        abort(context, failure)

    return wrapper  # type: ignore[return-value]


def _streaming(fn: _F) -> _F:
    @functools.wraps(fn)
    def wrapper(self: _Servicer, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        try:
            if isinstance(request, Undecodable):
                raise RpcAbort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
            yield from fn(self, request, context)
            return
        except RpcAbort as e:
            failure = e
        except P4RuntimeError as e:
            failure = RpcAbort.of(e)
        except Exception as e:  # noqa: BLE001
            log.exception("P4Runtime: %s", fn.__name__)
            failure = RpcAbort(grpc.StatusCode.INTERNAL, f"internal error: {e!r}")
        abort(context, failure)

    return wrapper  # type: ignore[return-value]


class _Servicer:
    def __init__(self, core: P4RuntimeServer) -> None:
        self.core = core

    @_unary
    def Capabilities(self, request: Any, context: grpc.ServicerContext) -> Any:  # noqa: N802
        if request.device_id:
            self.core.device(request.device_id)
        return p4runtime_pb2.CapabilitiesResponse(p4runtime_api_version=self.core.api_version)

    @_unary
    def Write(self, request: Any, context: grpc.ServicerContext) -> Any:  # noqa: N802
        self.core.write(request)
        return p4runtime_pb2.WriteResponse()

    @_streaming
    def Read(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:  # noqa: N802
        responses, status = self.core.read(request)
        yield from responses
        if status is not None:
            raise RpcAbort(grpc.StatusCode.UNKNOWN, status.message, status)

    @_unary
    def SetForwardingPipelineConfig(self, request: Any, context: grpc.ServicerContext) -> Any:  # noqa: N802
        self.core.device(request.device_id).set_pipeline(request)
        return p4runtime_pb2.SetForwardingPipelineConfigResponse()

    @_unary
    def GetForwardingPipelineConfig(self, request: Any, context: grpc.ServicerContext) -> Any:  # noqa: N802
        return self.core.device(request.device_id).get_pipeline(request)

    @_streaming
    def StreamChannel(self, request_iterator: Any, context: grpc.ServicerContext) -> Iterator[Any]:  # noqa: N802
        yield from self.core.serve_stream(request_iterator, context)


def _handlers(servicer: _Servicer) -> grpc.GenericRpcHandler:
    """The p4.v1.P4Runtime service with our own request decoding (see `status.Undecodable`)."""
    m = p4runtime_pb2
    unary = grpc.unary_unary_rpc_method_handler
    handlers = {
        "Write": unary(servicer.Write, decoder(m.WriteRequest), m.WriteResponse.SerializeToString),
        "Read": grpc.unary_stream_rpc_method_handler(
            servicer.Read, decoder(m.ReadRequest), m.ReadResponse.SerializeToString
        ),
        "SetForwardingPipelineConfig": unary(
            servicer.SetForwardingPipelineConfig,
            decoder(m.SetForwardingPipelineConfigRequest),
            m.SetForwardingPipelineConfigResponse.SerializeToString,
        ),
        "GetForwardingPipelineConfig": unary(
            servicer.GetForwardingPipelineConfig,
            decoder(m.GetForwardingPipelineConfigRequest),
            m.GetForwardingPipelineConfigResponse.SerializeToString,
        ),
        "StreamChannel": grpc.stream_stream_rpc_method_handler(
            servicer.StreamChannel,
            decoder(m.StreamMessageRequest),
            m.StreamMessageResponse.SerializeToString,
        ),
        "Capabilities": unary(
            servicer.Capabilities,
            decoder(m.CapabilitiesRequest),
            m.CapabilitiesResponse.SerializeToString,
        ),
    }
    return grpc.method_handlers_generic_handler("p4.v1.P4Runtime", handlers)
