"""Every build profile of fabric.p4 compiles, and carries exactly its features' tables."""

from __future__ import annotations

import pytest

from softswitch.v1model.switch import Switch

from .fabric import compile_fabric

CORE = {
    "arp_responder",
    "my_station",
    "routing_v4",
    "routing_v6",
    "next_hop_group",
    "next_hop_member",
    "ecmp_hash_bits",
}
FEATURES = {
    "WITH_INT": {
        "int_watchlist",
        "int_sink_ports",
        "int_ports",
        "int_report",
        "drop_reasons",
        "queue_report_config",
    },
    "WITH_ECN": {"ecn_config"},
    "WITH_CONGESTION": {"trim_config", "cnp_config"},
}


@pytest.mark.parametrize(
    "profile",
    [
        (),
        ("WITH_CORE_ONLY",),
        ("WITH_INT",),
        ("WITH_ECN",),
        ("WITH_CONGESTION",),
        ("WITH_INT", "WITH_ECN"),
        ("WITH_INT", "WITH_CONGESTION"),
        ("WITH_ECN", "WITH_CONGESTION"),
    ],
)
def test_profile(profile: tuple[str, ...]) -> None:
    sw = Switch(compile_fabric(**{name: "1" for name in profile}))
    tables = {n.split(".")[-1] for n in sw.tables}
    chosen = [f for f in FEATURES if f in profile] if profile else list(FEATURES)
    expected = CORE.union(*(FEATURES[f] for f in chosen))
    assert tables == expected
