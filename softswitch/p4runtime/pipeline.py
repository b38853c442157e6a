"""Forwarding pipelines: verify, save, commit and report P4Runtime pipeline configs.

`SetForwardingPipelineConfig` (P4Runtime specification, "SetForwardingPipelineConfig
RPC") carries a P4Info and softswitch's device config, the JSON document that
`softswitch compile -o` writes (`softswitch.device_config`). Verifying a config means:
both are present, the program compiles (a bad program is INVALID_ARGUMENT with the
compiler's file:line:col message) and the P4Info names the same objects with the same ids
as the P4Info softswitch generates for that program (so entities, packet I/O metadata and
digests agree on ids).

* VERIFY: verify, keep nothing.
* VERIFY_AND_SAVE: verify and keep the config "saved": later `Read`/`Write` requests go to
  a staging switch running the new program while the old one keeps forwarding.
* VERIFY_AND_COMMIT: verify and make the program the live one (a new switch: forwarding
  state cleared).
* COMMIT: make the saved config live, carrying over what was written since it was saved
  (NOT_FOUND without a saved config, INVALID_ARGUMENT if a config is given).
* RECONCILE_AND_COMMIT: verify, then make the program live with the forwarding state of
  the old one (`EntityStore.reconcile_into`); INVALID_ARGUMENT, with the live pipeline left
  untouched, if that state cannot be carried over.

`GetForwardingPipelineConfig` returns the config as it was set (read-write symmetry), the
cookie included, trimmed to what `response_type` asks for. Before any pipeline exists it
answers FAILED_PRECONDITION under the "bmv2" policy (as BMv2's PI server does) and an
unset `config` under the "spec" policy (as the specification says).

This module also holds the packet I/O codec (`ControllerHeader`), derived from the
pipeline.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import grpc

from p4rt_proto import p4runtime_pb2

from ..device_config import DeviceConfigError, load_device_config
from ..frontend.errors import P4Error
from ..p4info import P4InfoError, p4info_for
from ..v1model.switch import Switch
from .bytestrings import decode_uint, encode_uint
from .errors import P4RuntimeError

if TYPE_CHECKING:
    from ..program_info import CompiledProgram, ControllerHeaderSpec

__all__ = [
    "ControllerHeader",
    "EntityStoreLike",
    "Pipeline",
    "Pipelines",
    "RuntimeLike",
    "verify_config",
]

log = logging.getLogger("softswitch.p4runtime")

_INVALID = grpc.StatusCode.INVALID_ARGUMENT
_Action = p4runtime_pb2.SetForwardingPipelineConfigRequest
_Get = p4runtime_pb2.GetForwardingPipelineConfigRequest


class EntityStoreLike(Protocol):
    """What the server needs of `softswitch.p4runtime.entities.EntityStore`."""

    def write(self, update: Any) -> None: ...
    def read(self, entity: Any) -> Iterable[Any]: ...
    def reconcile_into(self, new_store: Any) -> None: ...
    def digest_config(self, digest_id: int) -> Any: ...


class RuntimeLike(Protocol):
    """What the server needs of `softswitch.runtime.SwitchRuntime`."""

    lock: Any
    switch: Switch | None
    cpu_port: int | None

    def load(self, compiled: CompiledProgram) -> Switch: ...
    def inject(self, port: int, data: bytes) -> None: ...
    def add_cpu_listener(self, cb: Callable[[bytes], None]) -> None: ...
    def add_digest_listener(self, cb: Callable[[Any], None]) -> None: ...


StoreFactory = Callable[[Switch, Any], EntityStoreLike]


@dataclass(frozen=True, slots=True)
class HeaderField:
    name: str
    width: int
    id: int | None  # P4Info metadata id; None for @hidden fields (always 0 on the wire)


class ControllerHeader:
    """A `@controller_header` header: PacketOut metadata <-> the bytes in front of a packet.

    Fields are packed most significant bit first in declaration order, @hidden fields (not
    in the P4Info) as zeros, the header padded with zero bits to whole bytes: exactly how
    BMv2's PI server builds packet-out and parses packet-in headers."""

    def __init__(self, name: str, fields: Sequence[HeaderField]) -> None:
        self.name = name
        self.fields = tuple(fields)
        self.bits = sum(f.width for f in self.fields)
        self.nbytes = (self.bits + 7) // 8
        self.pad = 8 * self.nbytes - self.bits
        self.by_id = {f.id: f for f in self.fields if f.id is not None}

    @classmethod
    def of(cls, spec: ControllerHeaderSpec, meta: Any) -> ControllerHeader:
        """From the program's header and its P4Info `ControllerPacketMetadata`."""
        visible = [f for f in spec.fields if not any(n == "hidden" for n, _ in f.annotations)]
        if len(visible) != len(meta.metadata):
            raise ValueError(f"controller header {spec.name}: fields and P4Info metadata differ")
        ids = {f.name: m.id for f, m in zip(visible, meta.metadata, strict=True)}
        return cls(spec.name, [HeaderField(f.name, f.width, ids.get(f.name)) for f in spec.fields])

    def pack(self, metadata: Iterable[Any], strict: bool) -> bytes:
        """The header bytes for PacketOut `metadata`; raises INVALID_ARGUMENT for unknown or
        repeated ids and OUT_OF_RANGE for values that do not fit. `strict` (the
        specification) also refuses missing fields and empty values; otherwise they are 0
        (as BMv2)."""
        values: dict[int, int] = {}
        for m in metadata:
            f = self.by_id.get(m.metadata_id)
            if f is None:
                raise P4RuntimeError(_INVALID, f"unknown {self.name} metadata id {m.metadata_id}")
            if m.metadata_id in values:
                raise P4RuntimeError(
                    _INVALID, f"{self.name} metadata id {m.metadata_id} given more than once"
                )
            what = f"{self.name} metadata {f.name!r} (id {m.metadata_id})"
            values[m.metadata_id] = decode_uint(m.value, f.width, what, not strict)
        if strict:
            missing = [f"{f.name!r} (id {i})" for i, f in self.by_id.items() if i not in values]
            if missing:
                raise P4RuntimeError(
                    _INVALID, f"{self.name} metadata missing: {', '.join(missing)}"
                )
        word = 0
        for f in self.fields:
            word = (word << f.width) | (values.get(f.id, 0) if f.id is not None else 0)
        return (word << self.pad).to_bytes(self.nbytes, "big")

    def unpack(self, data: bytes) -> tuple[list[Any], bytes] | None:
        """(PacketIn metadata, payload) of a packet that starts with this header; None if
        the packet is too short to hold it."""
        if len(data) < self.nbytes:
            return None
        word = int.from_bytes(data[: self.nbytes], "big") >> self.pad
        out = []
        for f in reversed(self.fields):
            v = word & ((1 << f.width) - 1)
            word >>= f.width
            if f.id is not None:
                out.append(p4runtime_pb2.PacketMetadata(metadata_id=f.id, value=encode_uint(v)))
        out.reverse()
        return out, data[self.nbytes :]


# ---------------------------------------------------------------- verification
_KINDS = (
    "tables",
    "actions",
    "action_profiles",
    "counters",
    "direct_counters",
    "meters",
    "direct_meters",
    "controller_packet_metadata",
    "value_sets",
    "registers",
    "digests",
)


def _p4info_difference(given: Any, program: Any) -> str | None:
    """Why the client's P4Info does not describe the program (None if it does)."""
    for kind in _KINDS:
        a = {o.preamble.id: o.preamble.name for o in getattr(given, kind)}
        b = {o.preamble.id: o.preamble.name for o in getattr(program, kind)}
        for i, n in sorted(a.items()):
            if b.get(i) != n:
                return f"{kind}: {n!r} (id {i}) is not in the program"
        for i, n in sorted(b.items()):
            if i not in a:
                return f"{kind}: {n!r} (id {i}) of the program is missing"
    for ours in program.controller_packet_metadata:
        theirs = next(
            c for c in given.controller_packet_metadata if c.preamble.id == ours.preamble.id
        )
        a2 = [(m.id, m.name, m.bitwidth) for m in theirs.metadata]
        b2 = [(m.id, m.name, m.bitwidth) for m in ours.metadata]
        if a2 != b2:
            return f"controller_packet_metadata {ours.preamble.name!r}: metadata differ"
    return None


def verify_config(
    config: Any | None, load: Callable[[bytes], CompiledProgram] = load_device_config
) -> tuple[CompiledProgram, Any]:
    """(compiled program, the P4Info softswitch generates for it) of a pipeline config;
    raises INVALID_ARGUMENT when the config cannot be realized. `load` turns the device
    config into a program (a `ProgramCache`'s `load` reuses earlier compilations)."""
    if config is None or not config.HasField("p4info"):
        raise P4RuntimeError(_INVALID, "a ForwardingPipelineConfig with a P4Info is required")
    if not config.p4_device_config:
        raise P4RuntimeError(
            _INVALID,
            "p4_device_config is empty: softswitch needs the device config that "
            "'softswitch compile -o' writes",
        )
    try:
        compiled = load(config.p4_device_config)
        generated = p4info_for(compiled)
    except (DeviceConfigError, P4Error, P4InfoError) as e:
        raise P4RuntimeError(_INVALID, str(e)) from None
    except RecursionError:
        raise P4RuntimeError(_INVALID, "the P4 program is nested too deeply") from None
    why = _p4info_difference(config.p4info, generated)
    if why is not None:
        raise P4RuntimeError(_INVALID, f"P4Info does not match the P4 program: {why}")
    return compiled, generated


# ---------------------------------------------------------------- pipelines
@dataclass(slots=True)
class Pipeline:
    """A program on a switch with its entity store and what packet I/O and digests need."""

    config: Any  # the ForwardingPipelineConfig as set (None parts when adopted)
    compiled: CompiledProgram
    p4info: Any  # the P4Info softswitch generates (same ids as config.p4info)
    switch: Switch
    store: EntityStoreLike
    packet_out: ControllerHeader | None = None
    packet_in: ControllerHeader | None = None
    digest_ids: dict[str, int] = field(default_factory=dict)

    @classmethod
    def build(
        cls, config: Any, compiled: CompiledProgram, p4info: Any, switch: Switch, store: Any
    ) -> Pipeline:
        pipe = cls(config, compiled, p4info, switch, store)
        headers = compiled.info.controller_headers
        for meta in p4info.controller_packet_metadata:
            spec = headers.get(meta.preamble.name)
            if spec is None:
                continue
            codec = ControllerHeader.of(spec, meta)
            if meta.preamble.name == "packet_out":
                pipe.packet_out = codec
            elif meta.preamble.name == "packet_in":
                pipe.packet_in = codec
        pipe.digest_ids = {d.preamble.name: d.preamble.id for d in p4info.digests}
        return pipe

    def digest_type(self, digest_id: int) -> Any:
        for d in self.p4info.digests:
            if d.preamble.id == digest_id:
                return d.type_spec
        return None


class Pipelines:
    """The live pipeline (on the runtime's switch) and the saved one (VERIFY_AND_SAVE).

    Callers serialise `set` with writes and hold no lock of their own that a packet
    callback takes (the runtime lock is taken here around switch changes)."""

    def __init__(
        self,
        runtime: RuntimeLike,
        store_factory: StoreFactory,
        policy: str = "bmv2",
        load_config: Callable[[bytes], CompiledProgram] | None = None,
    ) -> None:
        self.runtime = runtime
        self.store_factory = store_factory
        self.policy = policy
        self.load_config = load_config or load_device_config
        self.live: Pipeline | None = None
        self.saved: Pipeline | None = None

    def target(self) -> Pipeline | None:
        """Where `Read` and `Write` go: the saved config if there is one, else the live one."""
        return self.saved if self.saved is not None else self.live

    def adopt(self) -> Pipeline | None:
        """Serve the program the runtime already runs (loaded by other means than
        SetForwardingPipelineConfig: no cookie, no device config)."""
        with self.runtime.lock:
            switch = self.runtime.switch
            if switch is None or self.live is not None:
                return self.live
            p4info = p4info_for(switch.program)
            config = p4runtime_pb2.ForwardingPipelineConfig()
            config.p4info.CopyFrom(p4info)
            store = self.store_factory(switch, config.p4info)
            self.live = Pipeline.build(config, switch.program, p4info, switch, store)
        log.info("P4Runtime: serving the program the switch already runs (%s)", switch.program.name)
        return self.live

    # ------------------------------------------------------------ SetForwardingPipelineConfig
    def set(self, action: int, config: Any | None) -> Pipeline | None:
        """Carry out a SetForwardingPipelineConfig action; returns the new live pipeline if
        it changed (raises P4RuntimeError)."""
        if action == _Action.COMMIT:
            if config is not None:
                raise P4RuntimeError(_INVALID, "COMMIT takes no config (it commits the saved one)")
            saved = self.saved
            if saved is None:
                raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, "no saved config to commit")
            self.live = self._commit(saved.config, saved.compiled, saved.p4info, saved.store)
            self.saved = None
            return self.live
        if action not in (
            _Action.VERIFY,
            _Action.VERIFY_AND_SAVE,
            _Action.VERIFY_AND_COMMIT,
            _Action.RECONCILE_AND_COMMIT,
        ):
            raise P4RuntimeError(_INVALID, f"unknown SetForwardingPipelineConfig action {action}")
        compiled, generated = verify_config(config, self.load_config)
        assert config is not None
        stored = p4runtime_pb2.ForwardingPipelineConfig()
        stored.CopyFrom(config)
        if action == _Action.VERIFY:
            self._staged(stored, compiled, generated)  # the switch and store can be built
            return None
        if action == _Action.VERIFY_AND_SAVE:
            self.saved = self._staged(stored, compiled, generated)
            return None
        source = None
        if action == _Action.RECONCILE_AND_COMMIT and self.live is not None:
            source = self.live.store
            trial = self._staged(stored, compiled, generated)
            with self.runtime.lock:
                _reconcile(source, trial.store, _INVALID)
        self.live = self._commit(stored, compiled, generated, source)
        self.saved = None
        return self.live

    def _staged(self, config: Any, compiled: CompiledProgram, generated: Any) -> Pipeline:
        """The pipeline on a switch of its own (not the runtime's)."""
        try:
            switch = Switch(compiled, cpu_port=self.runtime.cpu_port)
            store = self.store_factory(switch, config.p4info)
            return Pipeline.build(config, compiled, generated, switch, store)
        except P4RuntimeError:
            raise
        except Exception as e:  # noqa: BLE001 - the program cannot be realized
            log.exception("P4Runtime: cannot realize the pipeline")
            raise P4RuntimeError(_INVALID, f"cannot realize the pipeline: {e}") from None

    def _commit(
        self, config: Any, compiled: CompiledProgram, generated: Any, source: Any | None
    ) -> Pipeline:
        with self.runtime.lock:
            switch = self.runtime.load(compiled)
            store = self.store_factory(switch, config.p4info)
            if source is not None:
                _reconcile(source, store, grpc.StatusCode.INTERNAL)
            pipe = Pipeline.build(config, compiled, generated, switch, store)
        log.info("P4Runtime: committed pipeline %s", compiled.name)
        return pipe

    # ------------------------------------------------------------ GetForwardingPipelineConfig
    def get(self, response_type: int) -> Any:
        pipe = self.target()
        resp = p4runtime_pb2.GetForwardingPipelineConfigResponse()
        if response_type not in (
            _Get.ALL,
            _Get.COOKIE_ONLY,
            _Get.P4INFO_AND_COOKIE,
            _Get.DEVICE_CONFIG_AND_COOKIE,
        ):
            raise P4RuntimeError(_INVALID, f"unknown response_type {response_type}")
        if pipe is None:
            if self.policy == "bmv2":
                raise P4RuntimeError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    "No forwarding pipeline config set for this device",
                )
            return resp  # `config` unset: the specification's answer
        have = pipe.config
        out = resp.config
        if response_type == _Get.ALL:
            out.CopyFrom(have)
            return resp
        if have.HasField("cookie"):
            out.cookie.CopyFrom(have.cookie)
        else:
            out.SetInParent()
        if response_type == _Get.P4INFO_AND_COOKIE:
            out.p4info.CopyFrom(have.p4info)
        elif response_type == _Get.DEVICE_CONFIG_AND_COOKIE:
            out.p4_device_config = have.p4_device_config
        return resp


def _reconcile(source: Any, target: Any, code: grpc.StatusCode) -> None:
    try:
        source.reconcile_into(target)
    except P4RuntimeError as e:
        if code == grpc.StatusCode.INTERNAL:
            raise P4RuntimeError(code, f"reconciling the forwarding state failed: {e}") from None
        raise P4RuntimeError(
            _INVALID, f"the forwarding state cannot be kept with the new config: {e.message}"
        ) from None
    except Exception as e:  # noqa: BLE001
        log.exception("P4Runtime: reconcile failed")
        raise P4RuntimeError(code, f"the forwarding state cannot be kept: {e}") from None
