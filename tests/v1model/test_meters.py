"""Tests for softswitch.v1model.meters (fake clock, BMv2 token-bucket semantics)."""

from __future__ import annotations

import pytest

from softswitch.v1model.meters import (
    GREEN,
    RED,
    YELLOW,
    Meter,
    MeterError,
    MeterType,
    RateConfig,
    TrTCM,
)


def _meter() -> TrTCM:
    # CIR 1000 pkt/s (0.001 pkt/us) burst 2; PIR 2000 pkt/s burst 4
    m = TrTCM(MeterType.PACKETS, time_origin_us=0)
    assert m.configure(0.001, 2, 0.002, 4) is MeterError.SUCCESS
    return m


def test_unconfigured_is_green_even_with_precolor() -> None:
    m = TrTCM()
    assert not m.configured
    assert [m.execute(0, 1) for _ in range(10)] == [GREEN] * 10
    assert m.execute(5, 1, pre_color=RED) == GREEN


def test_burst_then_yellow_then_red() -> None:
    m = _meter()
    colors = [m.execute(0, 1) for _ in range(7)]
    # buckets start full: 2 green (both buckets), 2 yellow (PIR only), then red
    assert colors == [GREEN, GREEN, YELLOW, YELLOW, RED, RED, RED]


def test_refill_over_time() -> None:
    m = _meter()
    for _ in range(6):
        m.execute(0, 1)
    # after 1000us: PIR +2 tokens, CIR +1 token
    assert [m.execute(1000, 1) for _ in range(4)] == [GREEN, YELLOW, RED, RED]
    # a long idle period refills to the burst sizes only
    assert [m.execute(10_000_000, 1) for _ in range(6)] == [
        GREEN,
        GREEN,
        YELLOW,
        YELLOW,
        RED,
        RED,
    ]


def test_conforming_traffic_stays_green() -> None:
    m = _meter()
    assert all(m.execute(t, 1) == GREEN for t in range(0, 1_000_000, 1000))


def test_between_cir_and_pir_is_yellow() -> None:
    m = _meter()
    # 1500 pkt/s: above CIR (1000) below PIR (2000) -> eventually yellow, never red
    colors = [m.execute(t * 2000 // 3, 1) for t in range(3000)]
    assert RED not in colors
    assert colors[-100:].count(YELLOW) > 0
    assert colors[-100:].count(GREEN) > 0


def test_fractional_tokens_not_lost() -> None:
    m = Meter(1, MeterType.PACKETS)
    assert m.set_rates([RateConfig(0.3, 1)]) is MeterError.SUCCESS
    assert m.execute(0, 1) == GREEN  # empties the bucket
    got = [m.execute(t, 1) for t in range(1, 11)]
    # tokens_since_init = int(t * 0.3): 0,0,0,1,1,1,2,2,2,3 -> new token at t=4,7,10
    assert [i + 1 for i, c in enumerate(got) if c == GREEN] == [4, 7, 10]


def test_bytes_meter_and_amount() -> None:
    m = TrTCM(MeterType.BYTES)
    m.configure(0.0, 1500, 0.0, 3000)
    assert m.amount_for(1000) == 1000
    assert m.execute_packet(0, 1000) == GREEN
    assert m.execute_packet(0, 1000) == YELLOW  # CIR bucket has 500 left
    assert m.execute_packet(0, 1000) == YELLOW  # PIR bucket 1000 -> 0, CIR still 500
    assert m.execute_packet(0, 1) == RED  # PIR bucket empty
    assert TrTCM(MeterType.PACKETS).amount_for(1000) == 1


def test_precolor_is_max() -> None:
    m = _meter()
    assert m.execute(0, 1, pre_color=YELLOW) == YELLOW
    assert m.execute(0, 1, pre_color=RED) == RED
    # the pre-colour does not change bucket accounting: two greens consumed
    assert m.execute(0, 1) == YELLOW


def test_red_does_not_consume() -> None:
    m = TrTCM()
    m.configure(0.0, 1, 0.0, 1)
    assert m.execute(0, 2) == RED  # too big for PIR bucket, nothing taken
    assert m.execute(0, 1) == GREEN


def test_config_errors_and_readback() -> None:
    m = TrTCM()
    assert m.configure(0.002, 1, 0.001, 1) is MeterError.INVALID_INFO_RATE_VALUE
    assert not m.configured
    assert m.set_rates([RateConfig(1.0, 1)]) is MeterError.BAD_RATES_LIST
    assert m.configure(0.001, 10, 0.001, 20) is MeterError.SUCCESS  # equal rates ok
    assert m.get_rates() == [RateConfig(0.001, 10), RateConfig(0.001, 20)]
    m.reset_rates()
    assert m.get_rates() == []
    assert m.execute(0, 100) == GREEN


def test_per_second_units() -> None:
    assert RateConfig.from_per_second(1000, 5) == RateConfig(0.001, 5)
    assert RateConfig.from_per_second(1000, 5).per_second() == 1000
    m = TrTCM()
    assert m.configure_per_second(1000, 2, 2000, 4) is MeterError.SUCCESS
    assert m.get_rates() == [RateConfig(0.001, 2), RateConfig(0.002, 4)]


def test_time_origin_and_backwards_time() -> None:
    m = TrTCM(time_origin_us=1_000_000)
    m.configure(0.001, 2, 0.002, 4)
    with pytest.raises(ValueError):
        m.execute(0, 1)
    assert m.execute(1_000_000, 1) == GREEN
    m.execute(1_002_000, 1)
    with pytest.raises(ValueError):
        m.execute(1_000_000, 1)
