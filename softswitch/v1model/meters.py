"""Token-bucket meters exactly as BMv2 implements them (``src/bm_sim/meters.cpp``).

A v1model ``meter``/``direct_meter`` is a BMv2 ``Meter`` with two rates, i.e. a
colour-blind two-rate three-colour marker (RFC 2698 style):

* Rates are configured as a list sorted from the smallest to the largest rate:
  ``[(CIR, CBS), (PIR, PBS)]``.  A rate ``info_rate`` is a ``float`` in units per
  **microsecond** (units = packets or bytes), a burst is an integer number of
  units.  BMv2's runtime CLI (``meter_set_rates``) takes these units directly.
  P4Runtime (via PI) gives rates per **second**; BMv2 converts with
  ``info_rate = float(rate) / 1e6`` and the burst unchanged (and back with
  ``int(info_rate * 1e6)``).  See :meth:`RateConfig.from_per_second`.
* Each configured bucket starts full (``tokens = burst``).  An unconfigured (or
  reset) meter always returns GREEN (``0``) -- even if a pre-colour is given.
* ``execute`` looks at the buckets from the *largest* rate down (PIR first, then
  CIR).  For each bucket it first refills it, then if it holds fewer tokens than
  the packet's amount the packet gets that bucket's colour (PIR -> RED=2,
  CIR -> YELLOW=1) and evaluation stops; otherwise the amount is taken from the
  bucket and the next bucket is examined.  Hence GREEN takes from both buckets,
  YELLOW only from the PIR bucket, RED from none.  The result is
  ``max(pre_color, colour)``.
* Refill is computed against a single time origin to avoid accumulating rounding
  errors: ``tokens_since_init = int(micros_since_origin * info_rate)`` (double
  arithmetic, truncation), the bucket receives ``tokens_since_init -
  tokens_last`` new tokens and is capped at its burst size.  ``micros`` is the
  elapsed time truncated to whole microseconds.  The time origin is the meter's
  creation time and is *not* reset by (re)configuration; (re)configuring resets
  ``tokens_last`` to 0 and fills the bucket.
* For a BYTES meter the amount is the packet's *ingress* length
  (``Packet::get_ingress_length()``), whatever the pipeline did to the packet
  since; for a PACKETS meter it is 1.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "GREEN",
    "RED",
    "YELLOW",
    "Meter",
    "MeterColor",
    "MeterError",
    "MeterType",
    "RateConfig",
    "TrTCM",
]


class MeterColor(enum.IntEnum):
    """Colours returned by a two-rate BMv2 meter (v1model ``V1MODEL_METER_COLOR_*``)."""

    GREEN = 0
    YELLOW = 1
    RED = 2


GREEN = MeterColor.GREEN
YELLOW = MeterColor.YELLOW
RED = MeterColor.RED


class MeterType(enum.Enum):
    """What a meter counts: bytes (ingress length) or packets (1 per packet)."""

    BYTES = "bytes"
    PACKETS = "packets"


class MeterError(enum.IntEnum):
    """BMv2 ``Meter::MeterErrorCode`` values."""

    SUCCESS = 0
    INVALID_METER_NAME = 1
    INVALID_INDEX = 2
    BAD_RATES_LIST = 3
    INVALID_INFO_RATE_VALUE = 4
    INVALID_BURST_SIZE_VALUE = 5
    ERROR = 6


_MICROS_PER_SECOND = 1000000.0


@dataclass(frozen=True, slots=True)
class RateConfig:
    """One bucket's configuration: ``info_rate`` units/µs and ``burst_size`` units."""

    info_rate: float
    burst_size: int

    @classmethod
    def from_per_second(cls, rate_per_second: int, burst_size: int) -> RateConfig:
        """BMv2's P4Runtime/PI conversion: ``info_rate = float(rate) / 1e6``."""
        return cls(float(rate_per_second) / _MICROS_PER_SECOND, int(burst_size))

    def per_second(self) -> int:
        """Rate as P4Runtime reads it back from BMv2: ``int(info_rate * 1e6)``."""
        return int(self.info_rate * _MICROS_PER_SECOND)


class _Rate:
    __slots__ = ("valid", "info_rate", "burst_size", "tokens", "tokens_last", "color")

    def __init__(self) -> None:
        self.valid = False
        self.info_rate = 0.0
        self.burst_size = 0
        self.tokens = 0
        self.tokens_last = 0
        self.color = 0


class Meter:
    """A BMv2 ``Meter`` with ``rate_count`` token buckets and an explicit clock.

    Time is passed to :meth:`execute` as an integer number of microseconds on
    any monotonic clock; ``time_origin_us`` is the meter's creation time on that
    clock (BMv2 uses ``steady_clock::now()`` at construction).  All state is
    kept exactly as BMv2 does, so results are bit-identical given identical
    timestamps.
    """

    def __init__(
        self,
        rate_count: int = 2,
        meter_type: MeterType = MeterType.PACKETS,
        time_origin_us: int = 0,
    ) -> None:
        if rate_count < 1:
            raise ValueError("a meter needs at least one rate")
        self.meter_type = meter_type
        self._rates = [_Rate() for _ in range(rate_count)]
        self._configured = False
        self._time_origin_us = int(time_origin_us)

    # -- configuration -----------------------------------------------------

    @property
    def rate_count(self) -> int:
        return len(self._rates)

    @property
    def configured(self) -> bool:
        return self._configured

    def set_rates(self, configs: Sequence[RateConfig]) -> MeterError:
        """Configure all buckets; ``configs`` sorted from smallest to largest rate.

        Returns ``BAD_RATES_LIST`` (no change) if ``len(configs) !=
        rate_count``.  Returns ``INVALID_INFO_RATE_VALUE`` if a rate is strictly
        smaller than the previous one (equal rates are accepted); like BMv2 the
        buckets before and including the offending one have then already been
        overwritten and the ``configured`` flag is left unchanged -- callers
        should treat the meter as being in an unspecified state.  Burst sizes are
        not validated (BMv2 never returns ``INVALID_BURST_SIZE_VALUE``).
        """
        if len(configs) != len(self._rates):
            return MeterError.BAD_RATES_LIST
        for idx, cfg in enumerate(configs):
            rate = self._rates[idx]
            rate.valid = True
            rate.info_rate = float(cfg.info_rate)
            rate.burst_size = int(cfg.burst_size)
            rate.tokens = rate.burst_size
            rate.tokens_last = 0
            rate.color = idx + 1
            if idx > 0 and self._rates[idx - 1].info_rate > rate.info_rate:
                return MeterError.INVALID_INFO_RATE_VALUE
        self._rates.reverse()
        self._configured = True
        return MeterError.SUCCESS

    def get_rates(self) -> list[RateConfig]:
        """Current configuration, smallest rate first; ``[]`` when unconfigured."""
        if not self._configured:
            return []
        return [RateConfig(r.info_rate, r.burst_size) for r in reversed(self._rates)]

    def reset_rates(self) -> MeterError:
        """Return to the unconfigured state (P4Runtime "reset"); always GREEN after."""
        for rate in self._rates:
            rate.valid = False
        self._configured = False
        return MeterError.SUCCESS

    def reset_time_origin(self, time_origin_us: int) -> None:
        """Move the time origin (BMv2 ``reset_time_origin``); bucket state is kept.

        As in BMv2, moving the origin forward on a meter that has already
        accumulated tokens makes the next :meth:`execute` fail (BMv2 asserts).
        """
        self._time_origin_us = int(time_origin_us)

    # -- execution ---------------------------------------------------------

    def amount_for(self, ingress_length: int) -> int:
        """Units a packet consumes: 1 (PACKETS) or its ingress length in bytes (BYTES)."""
        return 1 if self.meter_type is MeterType.PACKETS else int(ingress_length)

    def execute_packet(self, now_us: int, ingress_length: int, pre_color: int = 0) -> int:
        """:meth:`execute` with the amount derived from the meter type."""
        return self.execute(now_us, self.amount_for(ingress_length), pre_color)

    def execute(self, now_us: int, amount: int, pre_color: int = 0) -> int:
        """Run the meter at time ``now_us`` (µs) for ``amount`` units; return a colour.

        Returns ``0`` (GREEN) for an unconfigured meter, ignoring ``pre_color``.
        Otherwise returns ``max(pre_color, colour)``, colour in ``[0, rate_count]``
        (GREEN/YELLOW/RED for two rates).  Raises :class:`ValueError` if time
        runs backwards relative to the origin or to a previous call (BMv2 has
        undefined behaviour / an assertion failure there).
        """
        if not self._configured:
            return 0
        micros = int(now_us) - self._time_origin_us
        if micros < 0:
            raise ValueError(f"time {now_us}us is before the meter's time origin")
        packet_color = 0
        for rate in self._rates:
            tokens_since_init = int(float(micros) * rate.info_rate)
            if tokens_since_init < rate.tokens_last:
                raise ValueError("meter time went backwards")
            new_tokens = tokens_since_init - rate.tokens_last
            rate.tokens_last = tokens_since_init
            rate.tokens = min(rate.tokens + new_tokens, rate.burst_size)
            if rate.tokens < amount:
                packet_color = rate.color
                break
            rate.tokens -= amount
        return max(pre_color, packet_color)


class TrTCM(Meter):
    """A v1model two-rate three-colour meter (BMv2 ``Meter`` with 2 rates)."""

    def __init__(self, meter_type: MeterType = MeterType.PACKETS, time_origin_us: int = 0) -> None:
        super().__init__(2, meter_type, time_origin_us)

    def configure(self, cir: float, cburst: int, pir: float, pburst: int) -> MeterError:
        """Configure with rates in units per **microsecond** (BMv2 CLI units).

        Returns ``INVALID_INFO_RATE_VALUE`` if ``cir > pir`` (see
        :meth:`Meter.set_rates` for the resulting state).
        """
        return self.set_rates(
            [RateConfig(float(cir), int(cburst)), RateConfig(float(pir), int(pburst))]
        )

    def configure_per_second(self, cir: int, cburst: int, pir: int, pburst: int) -> MeterError:
        """Configure with rates in units per **second** (P4Runtime ``MeterConfig``)."""
        return self.set_rates(
            [RateConfig.from_per_second(cir, cburst), RateConfig.from_per_second(pir, pburst)]
        )
