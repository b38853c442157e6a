"""Rates and delays of topology files: exact decimal scaling, whole results only."""

from __future__ import annotations

import pytest

from controller.topology.units import parse_delay, parse_rate


@pytest.mark.parametrize(
    ("text", "bps"),
    [
        ("100G", 100 * 10**9),
        ("25Gbps", 25 * 10**9),
        ("1.5G", 1_500_000_000),
        ("10k", 10_000),
        ("0.001k", 1),
        (400, 400),
        ("7", 7),
    ],
)
def test_rate_values(text: object, bps: int) -> None:
    assert parse_rate(text) == bps


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("1us", 1000),
        ("0.5us", 500),
        ("2ms", 2 * 10**6),
        ("500ns", 500),
        ("1.25s", 1_250_000_000),
        (0, 0),
    ],
)
def test_delay_values(text: object, ns: int) -> None:
    assert parse_delay(text) == ns


@pytest.mark.parametrize("text", ["1.5", "0.0005k", 1.5])
def test_rate_must_be_whole_bits(text: object) -> None:
    with pytest.raises(ValueError, match="not a whole number"):
        parse_rate(text)


@pytest.mark.parametrize("text", ["0.5ns", "0.0001us", 2.5])
def test_delay_must_be_whole_ns(text: object) -> None:
    with pytest.raises(ValueError, match="not a whole number"):
        parse_delay(text)
