"""Mapping topology links and hosts onto Mininet: rates, names, prefixes."""

from __future__ import annotations

import pytest

from fabricnet.plan import host_prefix, interface_name, link_shape


def test_rate_becomes_htb_bandwidth_in_mbit() -> None:
    shape = link_shape(10_000_000, 1000, 0.0, bw_mbit=None, netem=False)
    assert shape.bw_mbit == 10
    assert shape.params() == {"bw": 10}


def test_override_replaces_every_rate() -> None:
    shape = link_shape(100 * 10**9, 0, 0.0, bw_mbit=25, netem=False)
    assert shape.params() == {"bw": 25}


def test_rates_above_mininets_limit_stay_unshaped() -> None:
    assert link_shape(100 * 10**9, 0, 0.0, bw_mbit=None, netem=False).params() == {}
    assert link_shape(1_000_000_000, 0, 0.0, bw_mbit=None, netem=False).bw_mbit == 1000


def test_delay_and_loss_only_with_netem() -> None:
    without = link_shape(10**7, 2500, 0.01, bw_mbit=None, netem=False)
    assert "delay" not in without.params() and "loss" not in without.params()
    with_netem = link_shape(10**7, 2500, 0.01, bw_mbit=None, netem=True)
    assert with_netem.params() == {"bw": 10, "delay": "2.5us", "loss": 1.0}


def test_interface_names() -> None:
    assert interface_name("", "leaf1", 3) == "leaf1-eth3"
    assert interface_name("t", "spine2", 12) == "tspine2-eth12"
    with pytest.raises(ValueError, match="longer than 15"):
        interface_name("", "leaf-number-one", 1)


def test_host_prefix_from_the_switch_subnet() -> None:
    assert host_prefix("10.0.1.2", ["10.0.0.0/24", "10.0.1.0/24"]) == 24
    assert host_prefix("10.0.1.2/32", ["10.0.0.0/16"]) == 16
    assert host_prefix("10.9.0.1", ["10.0.0.0/24"]) == 32
    assert host_prefix("10.0.0.1", ["2001:db8::/64"]) == 32
