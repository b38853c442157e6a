"""`MeterEntry` and `DirectMeterEntry`: two-rate three-colour meter configurations.

Spec sections followed ("MeterEntry & DirectMeterEntry"):

* Only MODIFY writes (INSERT/DELETE: INVALID_ARGUMENT). `config` set configures the meter
  (rates per second, bursts in packets or bytes, converted as BMv2's PI does); unset, it
  resets the meter to "every packet GREEN". A MeterEntry without `index` configures
  every cell; a negative index is INVALID_ARGUMENT, one past the array OUT_OF_RANGE.
* MeterConfig: negative values and, for the two-rate meters of v1model, a non-zero
  `eburst` or `cir > pir` (BMv2 cannot order such rates) are INVALID_ARGUMENT; a
  single-rate two-colour meter needs `pir == cir`, `pburst == cburst`; single-rate
  three-colour meters are UNIMPLEMENTED (v1model has none).
* Per-colour `counter_data` (MeterCounterData) is UNIMPLEMENTED in reads and writes.
* Reads: meter_id 0 reads all meters, no `index` the whole array; `config` is present only
  for configured meters and reads back exactly what was written.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from p4rt_proto import p4info_pb2, p4runtime_pb2

from .codec import Code, fail
from .counters import indexes
from .info import IndexedInfo

MODIFY = p4runtime_pb2.Update.MODIFY

__all__ = ["Meters"]


class Meters:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.switch = store.switch
        self.index = store.index

    @staticmethod
    def rates_of(cfg: Any, meter_type: int, what: str) -> tuple[int, int, int, int]:
        """(cir, cburst, pir, pburst) of a MeterConfig, checked for the meter type."""
        values = (cfg.cir, cfg.cburst, cfg.pir, cfg.pburst, cfg.eburst)
        if any(v < 0 for v in values):
            raise fail(Code.INVALID_ARGUMENT, f"{what}: negative meter rate or burst")
        single = (cfg.pir, cfg.pburst) == (cfg.cir, cfg.cburst)
        if meter_type == p4info_pb2.MeterSpec.SINGLE_RATE_THREE_COLOR:
            raise fail(Code.UNIMPLEMENTED, f"{what}: single-rate three-colour meters")
        if meter_type == p4info_pb2.MeterSpec.SINGLE_RATE_TWO_COLOR and not single:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: a single-rate meter needs pir == cir")
        if cfg.eburst:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: eburst is only for srTCM meters")
        if cfg.cir > cfg.pir:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: cir {cfg.cir} above pir {cfg.pir}")
        return cfg.cir, cfg.cburst, cfg.pir, cfg.pburst

    @staticmethod
    def config_of(meter: Any) -> Any:
        """The MeterConfig of an engine meter cell, None when it is unconfigured."""
        if meter is None or not meter.configured:
            return None
        committed, peak = meter.get_rates()
        return p4runtime_pb2.MeterConfig(
            cir=round(committed.info_rate * 1e6),
            cburst=committed.burst_size,
            pir=round(peak.info_rate * 1e6),
            pburst=peak.burst_size,
        )

    def _meter(self, meter_id: int, what: str) -> tuple[IndexedInfo, Any]:
        info = self.index.meters.get(meter_id)
        if info is None:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: unknown meter id {meter_id}")
        engine = self.switch.externs.get(info.name)
        if engine is None:
            raise fail(Code.FAILED_PRECONDITION, f"meter {info.name} is not instantiated")
        return info, engine

    # ------------------------------------------------------------ indexed meters
    def write(self, utype: int, msg: Any) -> None:
        if utype != MODIFY:
            raise fail(Code.INVALID_ARGUMENT, "meter entries can only be modified")
        if msg.meter_id == 0:
            raise fail(Code.INVALID_ARGUMENT, "meter entry: meter id missing")
        info, engine = self._meter(msg.meter_id, "meter entry")
        if msg.HasField("counter_data"):
            raise fail(Code.UNIMPLEMENTED, f"{info.name}: per-colour meter counters")
        cells = indexes(msg, info.size, info.name)
        rates = (
            self.rates_of(msg.config, info.meter_type, info.name)
            if msg.HasField("config")
            else None
        )
        for i in cells:
            if rates is None:
                engine.cells[i].reset_rates()
            else:
                engine.configure(i, *rates)

    def read(self, msg: Any) -> Iterator[Any]:
        if msg.HasField("counter_data"):
            raise fail(Code.UNIMPLEMENTED, "per-colour meter counters")
        if msg.meter_id:
            selected = [self._meter(msg.meter_id, "meter read")]
        else:
            selected = []
            for info in self.index.meters.values():
                engine = self.switch.externs.get(info.name)
                if engine is not None:
                    selected.append((info, engine))
        for info, engine in selected:
            for i in indexes(msg, info.size, info.name, lenient=not msg.meter_id):
                out = p4runtime_pb2.MeterEntry(meter_id=info.id)
                out.index.index = i
                cfg = self.config_of(engine.cells[i])
                if cfg is not None:
                    out.config.CopyFrom(cfg)
                yield out

    # ------------------------------------------------------------ direct meters
    def write_direct(self, utype: int, msg: Any) -> None:
        if utype != MODIFY:
            raise fail(Code.INVALID_ARGUMENT, "direct meter entries can only be modified")
        if msg.HasField("counter_data"):
            raise fail(Code.UNIMPLEMENTED, "per-colour meter counters")
        t, engine, e, _default = self.store.tables.locate(msg.table_entry, "direct meter")
        if not t.direct_meter:
            raise fail(Code.INVALID_ARGUMENT, f"{t.name} has no direct meter")
        info = self.index.direct_meters[t.direct_meter]
        if msg.HasField("config"):
            engine.direct_meter.configure_entry(
                e, *self.rates_of(msg.config, info.meter_type, t.name)
            )
        else:
            e.meter = None

    def read_direct(self, msg: Any) -> Iterator[Any]:
        if msg.HasField("counter_data"):
            raise fail(Code.UNIMPLEMENTED, "per-colour meter counters")
        te = msg.table_entry
        tables = self.store.tables
        if te.table_id:
            t, _engine = tables.table(te.table_id, "direct meter read")
            if not t.direct_meter:
                raise fail(Code.INVALID_ARGUMENT, f"{t.name} has no direct meter")
        found = False
        for t, _engine, e, default in tables.select(te):
            if not t.direct_meter:
                continue
            found = True
            out = p4runtime_pb2.DirectMeterEntry()
            out.table_entry.CopyFrom(tables.key_message(t, e, default))
            cfg = self.config_of(e.meter)
            if cfg is not None:
                out.config.CopyFrom(cfg)
            yield out
        if te.table_id and (te.match or te.is_default_action) and not found:
            raise fail(Code.NOT_FOUND, "direct meter read: no such table entry")

    # ------------------------------------------------------------ reconcile
    def reconcile_into(self, new: Any) -> None:
        """Configured cells of indexed meters into same-named meters."""
        targets = new.index.by_name("meters")
        for out in self.read(p4runtime_pb2.MeterEntry()):
            info = self.index.meters[out.meter_id]
            target = targets.get(info.name)
            if target is None or out.index.index >= target.size or not out.HasField("config"):
                continue
            out.meter_id = target.id
            new.try_write(MODIFY, "meter_entry", out)
