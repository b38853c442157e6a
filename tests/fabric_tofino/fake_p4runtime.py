"""A stand-in for a Tofino box's P4Runtime server (Stratum, bf_switchd), on 127.0.0.1:0:
it takes any device config without looking inside, records every SetForwardingPipelineConfig
and Write request, keeps what was written (table entries by their key, clone sessions by
id) and answers Reads from it, so a controller's sync reads back what it wrote.

What it does not do: check entries against the P4Info, run packets, per-update error
details; arbitration is "highest election id is primary" with no update to the others.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc

from p4rt_proto import p4runtime_pb2 as p4r
from p4rt_proto import p4runtime_pb2_grpc

OK, ALREADY_EXISTS = 0, 6


def entity_key(e: p4r.Entity) -> tuple[str, bytes]:
    """What identifies an entity on a switch: a table entry's table, match, priority and
    default flag; a clone session's id; anything else its whole encoding."""
    kind = e.WhichOneof("entity")
    if kind == "table_entry":
        t = p4r.TableEntry()
        t.CopyFrom(e.table_entry)
        t.ClearField("action")
        t.ClearField("counter_data")
        t.ClearField("meter_config")
        t.ClearField("idle_timeout_ns")
        t.ClearField("metadata")
        matches = sorted(t.match, key=lambda m: m.field_id)
        del t.match[:]
        t.match.extend(matches)
        return kind, t.SerializeToString(deterministic=True)
    if kind == "packet_replication_engine_entry":
        pre = e.packet_replication_engine_entry
        if pre.WhichOneof("type") == "clone_session_entry":
            return "clone", pre.clone_session_entry.session_id.to_bytes(4, "big")
    return kind or "", e.SerializeToString(deterministic=True)


class FakeP4Runtime(p4runtime_pb2_grpc.P4RuntimeServicer):
    """One device (`device_id`) behind a P4Runtime server; `refuse_pipeline` = (code,
    message) makes SetForwardingPipelineConfig fail as a switch would."""

    def __init__(self, device_id: int = 1) -> None:
        self.device_id = device_id
        self.lock = threading.Lock()
        self.pipeline_requests: list[p4r.SetForwardingPipelineConfigRequest] = []
        self.write_requests: list[p4r.WriteRequest] = []
        self.config: p4r.ForwardingPipelineConfig | None = None
        self.store: dict[tuple[str, bytes], p4r.Entity] = {}
        self.refuse_pipeline: tuple[grpc.StatusCode, str] | None = None
        self._elections: list[int] = []
        self._server: grpc.Server | None = None
        self.address = ""

    # ------------------------------------------------------------ server
    def start(self, port: int = 0) -> str:
        """Serve on 127.0.0.1:`port` (0: a free one); the address."""
        server = grpc.server(ThreadPoolExecutor(max_workers=16))
        p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(self, server)
        port = server.add_insecure_port(f"127.0.0.1:{port}")
        server.start()
        self._server = server
        self.address = f"127.0.0.1:{port}"
        return self.address

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop(grace=None)
            self._server = None

    def written(self) -> list[p4r.Entity]:
        """Every entity of every INSERT and MODIFY received, in order."""
        return [
            u.entity
            for w in self.write_requests
            for u in w.updates
            if u.type in (p4r.Update.INSERT, p4r.Update.MODIFY)
        ]

    def _device(self, device_id: int, context: Any) -> None:
        if device_id != self.device_id:
            context.abort(grpc.StatusCode.NOT_FOUND, f"no device {device_id}")

    # ------------------------------------------------------------ RPCs
    def Capabilities(self, request: Any, context: Any) -> p4r.CapabilitiesResponse:  # noqa: N802
        return p4r.CapabilitiesResponse(p4runtime_api_version="1.3.0")

    def SetForwardingPipelineConfig(self, request: Any, context: Any) -> Any:  # noqa: N802
        self._device(request.device_id, context)
        with self.lock:
            self.pipeline_requests.append(request)
            if self.refuse_pipeline is not None:
                context.abort(*self.refuse_pipeline)
            self.config = p4r.ForwardingPipelineConfig()
            self.config.CopyFrom(request.config)
            self.store.clear()
        return p4r.SetForwardingPipelineConfigResponse()

    def GetForwardingPipelineConfig(self, request: Any, context: Any) -> Any:  # noqa: N802
        self._device(request.device_id, context)
        resp = p4r.GetForwardingPipelineConfigResponse()
        with self.lock:
            if self.config is not None:
                resp.config.cookie.CopyFrom(self.config.cookie)
                if request.response_type != request.COOKIE_ONLY:
                    resp.config.p4info.CopyFrom(self.config.p4info)
        return resp

    def Write(self, request: Any, context: Any) -> p4r.WriteResponse:  # noqa: N802
        self._device(request.device_id, context)
        with self.lock:
            if self.config is None:
                context.abort(grpc.StatusCode.FAILED_PRECONDITION, "no pipeline set")
            self.write_requests.append(request)
            for u in request.updates:
                key = entity_key(u.entity)
                default = u.entity.table_entry.is_default_action
                if u.type == p4r.Update.INSERT and key in self.store:
                    context.abort(grpc.StatusCode.ALREADY_EXISTS, "entry exists")
                if u.type in (p4r.Update.MODIFY, p4r.Update.DELETE) and key not in self.store:
                    if not default:
                        context.abort(grpc.StatusCode.NOT_FOUND, "no such entry")
                if u.type == p4r.Update.DELETE:
                    self.store.pop(key, None)
                else:
                    self.store[key] = u.entity
        return p4r.WriteResponse()

    def Read(self, request: Any, context: Any) -> Iterator[p4r.ReadResponse]:  # noqa: N802
        self._device(request.device_id, context)
        with self.lock:
            held = list(self.store.values())
        out = p4r.ReadResponse()
        for q in request.entities:
            out.entities.extend(e for e in held if _matches(q, e))
        yield out

    def StreamChannel(self, request_iterator: Any, context: Any) -> Iterator[Any]:  # noqa: N802
        answers: queue.SimpleQueue[p4r.StreamMessageResponse | None] = queue.SimpleQueue()
        mine: list[int] = []

        def read() -> None:
            try:
                for req in request_iterator:
                    if not req.HasField("arbitration"):
                        continue
                    a = req.arbitration
                    eid = a.election_id.high << 64 | a.election_id.low
                    with self.lock:
                        self._elections.append(eid)
                        mine.append(eid)
                        primary = max(self._elections)
                    resp = p4r.StreamMessageResponse()
                    resp.arbitration.device_id = a.device_id
                    resp.arbitration.election_id.high = primary >> 64
                    resp.arbitration.election_id.low = primary & (1 << 64) - 1
                    resp.arbitration.status.code = OK if eid == primary else ALREADY_EXISTS
                    answers.put(resp)
            except grpc.RpcError:
                pass
            finally:
                with self.lock:
                    for eid in mine:
                        self._elections.remove(eid)
                answers.put(None)

        threading.Thread(target=read, daemon=True).start()
        while (msg := answers.get()) is not None:
            yield msg


def _matches(q: p4r.Entity, e: p4r.Entity) -> bool:
    """Does the (wildcard) read entity `q` ask for `e`?"""
    kind = q.WhichOneof("entity")
    if kind != e.WhichOneof("entity"):
        return False
    if kind == "table_entry":
        want, have = q.table_entry, e.table_entry
        if want.table_id and want.table_id != have.table_id:
            return False
        return want.is_default_action == have.is_default_action
    if kind == "packet_replication_engine_entry":
        want_type = q.packet_replication_engine_entry.WhichOneof("type")
        return want_type == e.packet_replication_engine_entry.WhichOneof("type")
    return False
