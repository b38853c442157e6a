"""SimConfig refuses a configuration that cannot run, naming the field, before any
switch is built; the incast workload refuses more senders than there are."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from controller.lb import MODE_CHOICES, GroupMode
from fabricsim.network import NetParams
from fabricsim.run import SimConfig
from fabricsim.switchnode import PfcParams
from fabricsim.workloads import make_workload


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"mode": "hash"}, "mode 'hash': one of ecmp, flowlet, spray, spray_round_robin, adaptive"),
        ({"workload": "bursty"}, "workload 'bursty': one of permutation"),
        ({"receiver": "lossy"}, "receiver 'lossy': one of tolerant, selective, go_back_n"),
        ({"flow_bytes": 0}, "flow_bytes 0: a flow carries at least one byte"),
        ({"load": 0.0}, "load 0: a fraction of the line rate"),
        ({"load": 1.5}, "load 1.5: a fraction of the line rate"),
        ({"fan_in": 0}, "fan_in 0: at least one sender"),
        ({"time_limit_ns": 0}, "time_limit_ns"),
        ({"net": NetParams(pfc=PfcParams(enabled=True, watchdog_ns=0))}, "PFC watchdog 0 ns"),
        ({"fail_link": ("leaf1", "spine1", -1)}, "fail_link at -1 ns"),
        ({"storm": ("h1", -5)}, "storm at -5 ns"),
        ({"size_mix": "datamining"}, "size_mix 'datamining': one of websearch, hadoop"),
    ],
)
def test_a_config_that_cannot_run_is_refused(change: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match="^" + says.replace("(", r"\(")):
        SimConfig(**change)
    with pytest.raises(ValueError):  # also when derived from a good one
        replace(SimConfig(), **change)


def test_edge_values_that_can_run_are_taken() -> None:
    cfg = SimConfig(flow_bytes=1, load=1.0, fan_in=1, time_limit_ns=1)
    assert (cfg.flow_bytes, cfg.load, cfg.fan_in) == (1, 1.0, 1)


def test_incast_takes_up_to_every_other_leafs_host_and_no_more() -> None:
    hosts = [f"h{i}" for i in range(1, 9)]
    leaf_of = {h: f"leaf{(i // 4) + 1}" for i, h in enumerate(hosts)}  # 4 hosts per leaf
    flows = make_workload("incast", hosts, 1000, seed=7, leaf_of=leaf_of)
    assert len(flows) == 4 and len({f.dst for f in flows}) == 1
    assert all(leaf_of[f.src] != leaf_of[f.dst] for f in flows)
    assert len(make_workload("incast", hosts, 1000, seed=7, leaf_of=leaf_of, fan_in=3)) == 3
    with pytest.raises(ValueError, match="incast fan-in 5: only 4 hosts can send to h"):
        make_workload("incast", hosts, 1000, seed=7, leaf_of=leaf_of, fan_in=5)


@pytest.mark.parametrize("label", MODE_CHOICES)
def test_every_mode_label_is_resolved_once_into_a_group_mode(label: str) -> None:
    cfg = SimConfig(mode=label, flowlet_gap_us=7)  # type: ignore[arg-type]
    assert cfg.group_mode == GroupMode.parse(label, gap_us=7)
    assert replace(cfg, flowlet_gap_us=9).group_mode == GroupMode.parse(label, gap_us=9)
