"""One device of softswitch's P4Runtime server: a SwitchRuntime, its pipelines, its
clients' arbitration and streams, and the Write and Read RPCs on it.

A `P4RuntimeServer` holds one or more devices, keyed by P4Runtime device id (a chassis:
one gRPC server, the request's `device_id` selects the switch). Each device has its own
control lock, arbiter, digests and idle-timeout state; nothing is shared between devices
but the compiled program (`load_config` may hand the same `CompiledProgram` to several
devices: each `Switch` built from it has tables of its own).

Write ("Write RPC"): checks in the specification's order: role (NOT_FOUND: only the
default role exists), primary (PERMISSION_DENIED), pipeline (FAILED_PRECONDITION); then the
updates, each through `EntityStore.write`. If any fails the status is UNKNOWN with one
`p4.v1.Error` per update (`status.py`). CONTINUE_ON_ERROR attempts every update.
ROLLBACK_ON_ERROR and DATAPLANE_ATOMIC are UNIMPLEMENTED unless the entity store can
`snapshot()` and `restore()` its state; then the batch runs under the runtime lock (no
packet sees part of it) and is undone on the first error (the failed update carries its
error, the others ABORTED). The unknown device id (NOT_FOUND) is the server's check.

Read ("Read RPC"): the pipeline check, then each entity of the request through
`EntityStore.read` with writes held off; a request that fails gives a `p4.v1.Error` in an
UNKNOWN status after the entities of the ones that succeeded.

Concurrency: `Write`, `Read`, the pipeline RPCs and arbitration of one device are
serialised by its control lock (so a new primary waits for writes in flight, as "Rules for
Handling MasterArbitrationUpdate Messages" asks); every switch access holds
`runtime.lock`. Packet-in and digest callbacks from the runtime never take the control
lock.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from p4rt_proto import p4runtime_pb2

from ..engine.errors import SwitchError
from .arbitration import Arbiter, Policy, election_id
from .errors import P4RuntimeError, from_switch_error
from .pipeline import EntityStoreLike, Pipeline, Pipelines, RuntimeLike, StoreFactory
from .status import RpcAbort, batch_status, ok_error, p4_error
from .stream import DigestEngine, IdleTimeouts, StreamHandler

__all__ = ["P4RuntimeDevice"]

log = logging.getLogger("softswitch.p4runtime")

_READ_CHUNK = 1 << 20  # bytes of entities per ReadResponse
_LOCK_CHUNK = 64  # updates written per hold of the runtime lock
_W = p4runtime_pb2.WriteRequest
_U = p4runtime_pb2.Update


def _entity_store(switch: Any, p4info: Any) -> EntityStoreLike:
    from .entities import EntityStore

    return EntityStore(switch, p4info)


class P4RuntimeDevice:
    """The P4Runtime service of the switch of `runtime`, as device `device_id`."""

    def __init__(
        self,
        runtime: RuntimeLike,
        device_id: int,
        *,
        policy: Policy = "bmv2",
        store_factory: StoreFactory | None = None,
        load_config: Callable[[bytes], Any] | None = None,
        idle_scan_s: float = 0.1,
        after_commit: Callable[[], None] | None = None,
    ) -> None:
        self.runtime = runtime
        self.device_id = device_id
        self.policy = policy
        # called after SetForwardingPipelineConfig changed the live pipeline (the
        # `softswitch` process refreezes its heap there: softswitch.heap)
        self.after_commit = after_commit
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
        self._listening = False
        self.running = False

    # ------------------------------------------------------------ lifecycle (the server's)
    def start(self) -> None:
        """Listen to the runtime's packet-ins and digests, serve the program it runs (if
        any), start the digest timer. Idle timeouts are scanned by the server."""
        if not self._listening:
            self.runtime.add_cpu_listener(self._on_cpu_packet)
            self.runtime.add_digest_listener(self._on_digest)
            self._listening = True
        try:
            self.pipelines.adopt()
        except Exception:  # noqa: BLE001 - serve anyway; a pipeline can still be pushed
            log.exception("P4Runtime: cannot serve the program device %d runs", self.device_id)
        self.running = True
        self.digests.start()

    def stop(self) -> None:
        self.running = False
        self.streams.close_all()

    def stop_timers(self) -> None:
        self.digests.stop()

    # ------------------------------------------------------------ runtime callbacks
    def _on_cpu_packet(self, data: bytes) -> None:
        if self.running:
            self.streams.on_cpu_packet(data)

    def _on_digest(self, digest: Any) -> None:
        if self.running:
            self.streams.on_digest(digest)

    def _to_primary(self, msg: Any) -> bool:
        return self.arbiter.send_to_primary(msg, True)

    # ------------------------------------------------------------ checks shared by RPCs
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
        """(ReadResponses, google.rpc.Status or None) of a ReadRequest (device id checked by
        the server)."""
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

    # ------------------------------------------------------------ pipelines
    def set_pipeline(self, request: Any) -> None:
        """SetForwardingPipelineConfig (device id checked by the server)."""
        self.check_role(request)
        config = request.config if request.HasField("config") else None
        with self.control:
            self.check_primary(request)
            if self.pipelines.set(request.action, config) is not None:
                self.digests.reset()
                if self.after_commit is not None:
                    self.after_commit()

    def get_pipeline(self, request: Any) -> Any:
        """GetForwardingPipelineConfig (device id checked by the server)."""
        with self.control:
            return self.pipelines.get(request.response_type)


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
