"""softswitch's P4Runtime server: the `p4.v1.P4Runtime` gRPC service over a SwitchRuntime.

    server = P4RuntimeServer(runtime, device_id=0, address="127.0.0.1:0")
    port = server.start()      # the bound port; logs where it listens
    ...
    server.stop()

RPCs (P4Runtime specification sections in quotes):

* `Capabilities` ("Capabilities RPC"): the version of the installed `p4runtime` protobufs.
* `StreamChannel` ("P4Runtime Stream Messages"): `stream.py` (packet I/O, digests,
  idle-timeout notifications), arbitration in `arbitration.py`.
* `SetForwardingPipelineConfig` / `GetForwardingPipelineConfig`: `pipeline.py`.
* `Write` ("Write RPC"): checks in the specification's order: device id (NOT_FOUND), role
  (NOT_FOUND: only the default role exists), primary (PERMISSION_DENIED), pipeline
  (FAILED_PRECONDITION); then the updates, each through `EntityStore.write`. If any fails
  the status is UNKNOWN with one `p4.v1.Error` per update (`status.py`).
  CONTINUE_ON_ERROR attempts every update. ROLLBACK_ON_ERROR and DATAPLANE_ATOMIC are
  UNIMPLEMENTED unless the entity store can `snapshot()` and `restore()` its state; then
  the batch runs under the runtime lock (no packet sees part of it) and is undone on the
  first error (the failed update carries its error, the others ABORTED).
* `Read` ("Read RPC"): device id and pipeline checks, then each entity of the request
  through `EntityStore.read` with writes held off; a request that fails gives a
  `p4.v1.Error` in an UNKNOWN status after the entities of the ones that succeeded.

Concurrency: gRPC runs handlers on a thread pool. `Write`, `Read`, the pipeline RPCs and
arbitration are serialised by one control lock (so a new primary waits for writes in
flight, as "Rules for Handling MasterArbitrationUpdate Messages" asks); every switch
access holds `runtime.lock`. Packet-in and digest callbacks from the runtime never take
the control lock.

`load_config` turns a `p4_device_config` into a program (default: compile it; the
`softswitch` command passes a `ProgramCache`'s `load`, which reuses earlier compilations).

`policy` chooses between BMv2's behaviour ("bmv2", the default) and the letter of the
specification ("spec") where they differ: promotion of the next primary when the primary's
stream breaks, GetForwardingPipelineConfig before any pipeline (FAILED_PRECONDITION vs an
unset config), writes without arbitration while no stream is open, and PacketOut metadata
that is missing or empty (zero vs INVALID_ARGUMENT).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc

from p4rt_proto import p4runtime_pb2

from ..engine.errors import SwitchError
from .arbitration import Arbiter, Policy, election_id
from .errors import P4RuntimeError, from_switch_error
from .pipeline import EntityStoreLike, Pipeline, Pipelines, RuntimeLike, StoreFactory
from .status import RpcAbort, Undecodable, abort, batch_status, decoder, ok_error, p4_error
from .stream import DigestEngine, IdleTimeouts, StreamHandler

__all__ = ["P4RuntimeServer", "api_version"]

log = logging.getLogger("softswitch.p4runtime")

_FALLBACK_VERSION = "1.6.0"  # the p4runtime version pyproject.toml pins
_MAX_MESSAGE = 256 * 1024 * 1024  # as BMv2's PI server
_READ_CHUNK = 1 << 20  # bytes of entities per ReadResponse
_LOCK_CHUNK = 64  # updates written per hold of the runtime lock
_W = p4runtime_pb2.WriteRequest
_U = p4runtime_pb2.Update
_F = TypeVar("_F", bound=Callable[..., Any])


def api_version() -> str:
    """The P4Runtime API version the installed protobufs implement (the `p4runtime` wheel)."""
    import importlib.metadata  # a tenth of a second of imports: only when asked

    try:
        return importlib.metadata.version("p4runtime")
    except importlib.metadata.PackageNotFoundError:
        return _FALLBACK_VERSION


def _entity_store(switch: Any, p4info: Any) -> EntityStoreLike:
    from .entities import EntityStore

    return EntityStore(switch, p4info)


class P4RuntimeServer:
    """The P4Runtime service for the switch of `runtime`, as device `device_id`."""

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
        self.runtime = runtime
        # called after SetForwardingPipelineConfig changed the live pipeline (the
        # `softswitch` process refreezes its heap there: softswitch.heap)
        self.after_commit = after_commit
        self.device_id = device_id
        self.address = address
        self.policy = policy
        self.max_workers = max_workers
        self.port: int | None = None
        self.control = threading.RLock()
        self.pipelines = Pipelines(runtime, store_factory or _entity_store, policy, load_config)
        self.digests = DigestEngine(self._to_primary)
        self.arbiter = Arbiter(device_id, policy, on_primary_change=self.digests.clear_cache)
        self.streams = StreamHandler(
            self.arbiter,
            self.pipelines,
            runtime,
            self.digests,
            self.control,
            strict=policy == "spec",
        )
        self.idle_timeouts = IdleTimeouts(
            self.pipelines,
            runtime,
            self._to_primary,
            lambda: self.arbiter.primary is not None,
            idle_scan_s,
        )
        self._server: grpc.Server | None = None
        self._listening = False
        self._running = False

    @functools.cached_property
    def api_version(self) -> str:
        """What Capabilities answers (looked up at the first call)."""
        return api_version()

    # ------------------------------------------------------------ lifecycle
    def start(self) -> int:
        """Listen and serve; returns the bound port (address "host:0" picks a free one)."""
        if self._server is not None:
            raise RuntimeError("the P4Runtime server is already running")
        server = grpc.server(
            ThreadPoolExecutor(self.max_workers, thread_name_prefix="p4rt"),
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
        if not self._listening:
            self.runtime.add_cpu_listener(self._on_cpu_packet)
            self.runtime.add_digest_listener(self._on_digest)
            self._listening = True
        try:
            self.pipelines.adopt()
        except Exception:  # noqa: BLE001 - serve anyway; a pipeline can still be pushed
            log.exception("P4Runtime: cannot serve the program the switch runs")
        self._running = True
        self.digests.start()
        self.idle_timeouts.start()
        server.start()
        self._server = server
        self.port = port
        host = self.address.rsplit(":", 1)[0]
        log.info("P4Runtime server (device id %d) listening on %s:%d", self.device_id, host, port)
        return port

    def stop(self, grace: float | None = None) -> None:
        """End all streams and RPCs (after `grace` seconds for unary ones in flight)."""
        server, self._server = self._server, None
        if server is None:
            return
        self._running = False
        self.streams.close_all()
        server.stop(grace).wait()
        self.digests.stop()
        self.idle_timeouts.stop()
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

    # ------------------------------------------------------------ runtime callbacks
    def _on_cpu_packet(self, data: bytes) -> None:
        if self._running:
            self.streams.on_cpu_packet(data)

    def _on_digest(self, digest: Any) -> None:
        if self._running:
            self.streams.on_digest(digest)

    def _to_primary(self, msg: Any) -> bool:
        return self.arbiter.send_to_primary(msg, True)

    # ------------------------------------------------------------ checks shared by RPCs
    def check_device(self, device_id: int) -> None:
        if device_id != self.device_id:
            raise P4RuntimeError(
                grpc.StatusCode.NOT_FOUND,
                f"unknown device id {device_id} (this server has device {self.device_id})",
            )

    def check_role(self, request: Any) -> None:
        role = getattr(request, "role", "")
        role_id = getattr(request, "role_id", 0)
        if role or role_id:
            raise P4RuntimeError(
                grpc.StatusCode.NOT_FOUND,
                f"unknown role {role or role_id!r} (softswitch has only the default role)",
            )

    def check_primary(self, request: Any) -> None:
        eid = election_id(request)
        if not self.arbiter.may_write(eid):
            shown = "unset" if eid is None else str(eid)
            raise P4RuntimeError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"not the primary controller (election id {shown})",
            )

    def target_pipeline(self) -> Pipeline:
        pipe = self.pipelines.target()
        if pipe is None:
            raise P4RuntimeError(
                grpc.StatusCode.FAILED_PRECONDITION,
                "No forwarding pipeline config set for this device",
            )
        return pipe

    # ------------------------------------------------------------ Write
    def write(self, request: Any) -> None:
        self.check_device(request.device_id)
        self.check_role(request)
        with self.control, _collector_paused():
            self.check_primary(request)
            pipe = self.target_pipeline()
            atomicity = request.atomicity
            if atomicity == _W.CONTINUE_ON_ERROR:
                errors = self._write_all(pipe.store, request.updates)
            elif atomicity in (_W.ROLLBACK_ON_ERROR, _W.DATAPLANE_ATOMIC):
                errors = self._write_atomic(pipe.store, request, atomicity)
            else:
                raise P4RuntimeError(
                    grpc.StatusCode.INVALID_ARGUMENT, f"unknown atomicity {atomicity}"
                )
        failed = [(i, e) for i, e in enumerate(errors) if e is not None]
        if not failed:
            return
        i, first = failed[0]
        message = (
            f"Write failure: {len(failed)} of {len(errors)} updates failed "
            f"(update {i}: {first.code.name}: {first.message})"
        )
        details = [ok_error() if e is None else p4_error(e.code, e.message) for e in errors]
        raise RpcAbort(grpc.StatusCode.UNKNOWN, message, batch_status(details, message))

    def _write_all(self, store: EntityStoreLike, updates: Any) -> list[P4RuntimeError | None]:
        """Each update in order, its error or None. The runtime lock is taken once per
        `_LOCK_CHUNK` updates, not per update: packets wait at most for one chunk. Runs of
        plain table entry INSERTs and DELETEs go through the store's `write_run` (when it
        has one), which stops at the first update it declines, before changing anything
        for it; that update takes `_write_one`. The store's `settle` brings the changed
        tables' lookups up to date before the lock is released."""
        run = getattr(store, "write_run", None)
        settle = getattr(store, "settle", None)
        lock = self.runtime.lock
        errors: list[P4RuntimeError | None] = []
        n = len(updates)
        for start in range(0, n, _LOCK_CHUNK):
            stop = min(n, start + _LOCK_CHUNK)
            i = start
            with lock:
                try:
                    while i < stop:
                        if run is not None:
                            try:
                                i = run(updates, i, stop, errors)
                            except Exception as e:  # noqa: BLE001 - as _write_one does
                                i = len(errors)  # the update that raised
                                errors.append(_internal(e, updates[i]))
                                i += 1
                                continue
                            if i == stop:
                                break
                        errors.append(self._write_one(store, updates[i]))
                        i += 1
                finally:
                    if settle is not None:
                        settle()  # before the lock lets a packet look a table up
        return errors

    def _write_one(self, store: EntityStoreLike, update: Any) -> P4RuntimeError | None:
        if update.type not in (_U.INSERT, _U.MODIFY, _U.DELETE):
            return P4RuntimeError(grpc.StatusCode.INVALID_ARGUMENT, "update type is not set")
        if update.entity.WhichOneof("entity") is None:
            return P4RuntimeError(grpc.StatusCode.INVALID_ARGUMENT, "update entity is not set")
        try:
            with self.runtime.lock:
                store.write(update)
        except P4RuntimeError as e:
            return e
        except SwitchError as e:
            return from_switch_error(e)
        except Exception as e:  # noqa: BLE001 - a bug must not take the server down
            return _internal(e, update)
        return None

    def _write_atomic(
        self, store: Any, request: Any, atomicity: int
    ) -> list[P4RuntimeError | None]:
        if not (hasattr(store, "snapshot") and hasattr(store, "restore")):
            name = _W.Atomicity.Name(atomicity)
            raise P4RuntimeError(grpc.StatusCode.UNIMPLEMENTED, f"{name} is not supported")
        updates = list(request.updates)
        with self.runtime.lock:  # no packet sees part of the batch
            token = store.snapshot()
            for i, u in enumerate(updates):
                err = self._write_one(store, u)
                if err is None:
                    continue
                store.restore(token)
                aborted = P4RuntimeError(grpc.StatusCode.ABORTED, f"rolled back: update {i} failed")
                skipped = P4RuntimeError(
                    grpc.StatusCode.ABORTED, f"not attempted: update {i} failed"
                )
                out: list[P4RuntimeError | None] = [aborted] * i
                return [*out, err] + [skipped] * (len(updates) - i - 1)
        return [None] * len(updates)

    # ------------------------------------------------------------ Read
    def read(self, request: Any) -> tuple[list[Any], Any]:
        """(ReadResponses, google.rpc.Status or None) of a ReadRequest."""
        self.check_device(request.device_id)
        self.check_role(request)
        entities: list[Any] = []
        errors: list[Any] = []
        failed: list[tuple[int, P4RuntimeError]] = []
        with self.control:
            store = self.target_pipeline().store
            for i, query in enumerate(request.entities):
                try:
                    if query.WhichOneof("entity") is None:
                        raise P4RuntimeError(grpc.StatusCode.INVALID_ARGUMENT, "entity is not set")
                    with self.runtime.lock:
                        got = list(store.read(query))
                except P4RuntimeError as e:
                    err = e
                except SwitchError as e:
                    err = from_switch_error(e)
                except Exception as e:  # noqa: BLE001
                    log.exception("P4Runtime: read of %s", query.WhichOneof("entity"))
                    err = P4RuntimeError(grpc.StatusCode.INTERNAL, f"internal error: {e!r}")
                else:
                    entities.extend(got)
                    errors.append(ok_error())
                    continue
                failed.append((i, err))
                errors.append(p4_error(err.code, err.message))
        responses = list(_chunks(entities))
        if not failed:
            return responses, None
        i, first = failed[0]
        message = (
            f"Read failure: {len(failed)} of {len(errors)} requests failed "
            f"(request {i}: {first.code.name}: {first.message})"
        )
        return responses, batch_status(errors, message)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Hold the cyclic garbage collector off while a batch is written. A batch leaves a
    few tracked objects per table entry (the entry, its matches, its result); collections
    that their growing number triggers would walk them all again and again, about a third
    of a large batch's time. Reference counting still frees what the batch drops, and the
    collector runs again at its next threshold after the batch. Writes are serialised by
    the control lock, so only one batch at a time switches it off and on."""
    if not gc.isenabled():  # switched off by the application: leave it so
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _internal(e: Exception, update: Any) -> P4RuntimeError:
    """INTERNAL for a write that raised what no write should (logged with its traceback)."""
    log.exception("P4Runtime: write of %s", update.entity.WhichOneof("entity"))
    return P4RuntimeError(grpc.StatusCode.INTERNAL, f"internal error: {e!r}")


def _chunks(entities: list[Any]) -> Iterator[Any]:
    """ReadResponses of about `_READ_CHUNK` bytes each (at least one, maybe empty)."""
    resp = p4runtime_pb2.ReadResponse()
    size = 0
    for e in entities:
        n = e.ByteSize()
        if size and size + n > _READ_CHUNK:
            yield resp
            resp = p4runtime_pb2.ReadResponse()
            size = 0
        resp.entities.append(e)
        size += n
    yield resp


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
            self.core.check_device(request.device_id)
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
        core = self.core
        core.check_device(request.device_id)
        core.check_role(request)
        config = request.config if request.HasField("config") else None
        with core.control:
            core.check_primary(request)
            if core.pipelines.set(request.action, config) is not None:
                core.digests.reset()
                if core.after_commit is not None:
                    core.after_commit()
        return p4runtime_pb2.SetForwardingPipelineConfigResponse()

    @_unary
    def GetForwardingPipelineConfig(self, request: Any, context: grpc.ServicerContext) -> Any:  # noqa: N802
        core = self.core
        core.check_device(request.device_id)
        with core.control:
            return core.pipelines.get(request.response_type)

    @_streaming
    def StreamChannel(self, request_iterator: Any, context: grpc.ServicerContext) -> Iterator[Any]:  # noqa: N802
        yield from self.core.streams.serve(request_iterator, context)


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
