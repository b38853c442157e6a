"""`RegisterEntry`: read and write register cells as `P4Data`.

Spec section "RegisterEntry": `index` unset means every cell (reads and writes); a
negative index is INVALID_ARGUMENT, one past the array OUT_OF_RANGE; `data` must match the
register's `type_spec` (INVALID_ARGUMENT). BMv2's PI refuses register writes; softswitch
accepts MODIFY (INSERT/DELETE are INVALID_ARGUMENT, as for the other arrays). Values are
`bitstring` for `bit<W>` (unsigned) and `int<W>` (two's complement, sign-extended on input,
shortest on output) and `bool`; registers of other types are UNIMPLEMENTED.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from p4rt_proto import p4runtime_pb2

from ..bytestrings import decode_int, decode_uint, encode_int, encode_uint
from .codec import Code, fail
from .counters import indexes
from .info import RegisterInfo

MODIFY = p4runtime_pb2.Update.MODIFY

__all__ = ["Registers"]


class Registers:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.switch = store.switch
        self.index = store.index

    def _register(self, register_id: int, what: str) -> tuple[RegisterInfo, Any]:
        info = self.index.registers.get(register_id)
        if info is None:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: unknown register id {register_id}")
        engine = self.switch.externs.get(info.name)
        if engine is None:
            raise fail(Code.FAILED_PRECONDITION, f"register {info.name} is not instantiated")
        if not info.kind:
            raise fail(Code.UNIMPLEMENTED, f"{info.name}: registers of this type")
        return info, engine

    def write(self, utype: int, msg: Any) -> None:
        if utype != MODIFY:
            raise fail(Code.INVALID_ARGUMENT, "register entries can only be modified")
        if msg.register_id == 0:
            raise fail(Code.INVALID_ARGUMENT, "register entry: register id missing")
        info, engine = self._register(msg.register_id, "register entry")
        cells = indexes(msg, min(info.size, engine.size), info.name)
        if not msg.HasField("data"):
            raise fail(Code.INVALID_ARGUMENT, f"{info.name}: no data to write")
        value = self._decode(info, msg.data)
        for i in cells:
            engine.values[i] = value

    def _decode(self, info: RegisterInfo, data: Any) -> Any:
        kind = data.WhichOneof("data")
        if info.kind == "bool":
            if kind != "bool":
                raise fail(Code.INVALID_ARGUMENT, f"{info.name} holds bool values")
            return data.bool
        if kind != "bitstring":
            raise fail(Code.INVALID_ARGUMENT, f"{info.name} holds bitstring values, got {kind}")
        if info.kind == "int":
            return decode_int(data.bitstring, info.bitwidth, info.name)
        return decode_uint(data.bitstring, info.bitwidth, info.name)

    def _encode(self, info: RegisterInfo, value: Any, out: Any) -> None:
        if info.kind == "bool":
            out.bool = bool(value)
            return
        w = info.bitwidth
        v = int(value) & ((1 << w) - 1)
        if info.kind == "int":
            out.bitstring = encode_int(v, w)
        else:
            out.bitstring = encode_uint(v)

    def read(self, msg: Any) -> Iterator[Any]:
        if msg.register_id:
            selected = [self._register(msg.register_id, "register read")]
        else:
            selected = []
            for info in self.index.registers.values():
                engine = self.switch.externs.get(info.name)
                if engine is not None and info.kind:
                    selected.append((info, engine))
        for info, engine in selected:
            size = min(info.size, engine.size)
            for i in indexes(msg, size, info.name, lenient=not msg.register_id):
                out = p4runtime_pb2.RegisterEntry(register_id=info.id)
                out.index.index = i
                self._encode(info, engine.values[i], out.data)
                yield out

    def reconcile_into(self, new: Any) -> None:
        """Non-zero cells into same-named registers when the value still fits."""
        targets = new.index.by_name("registers")
        for out in self.read(p4runtime_pb2.RegisterEntry()):
            info = self.index.registers[out.register_id]
            target = targets.get(info.name)
            if target is None or out.index.index >= target.size:
                continue
            if out.data.bitstring in (b"", b"\x00") and not out.data.bool:
                continue
            out.register_id = target.id
            new.try_write(MODIFY, "register_entry", out)
