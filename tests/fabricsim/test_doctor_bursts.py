"""Loss timing as the doctor reads it (fabricsim.doctor_bursts): probes lost in periodic
windows are a flap, probes lost at random a lossy link; a timeline with too few losses
decides nothing; a run without a timeline (fabricsim's) is left alone."""

from __future__ import annotations

import random
from typing import Any

from fabricsim.doctor import diagnose
from fabricsim.doctor_bursts import flap_by_timing

SPORTS = [1, 2, 3, 4]


def _run(lost_at: Any, n: int = 400, step_us: int = 5_000) -> dict[str, Any]:
    """h1 -> h2 over leaf1-spine1 (sports 1, 2) and leaf1-spine2 (3, 4), a probe every
    step_us in turn; `lost_at(t_us, sport)` says which were lost (only spine1's)."""
    timeline = []
    got = dict.fromkeys(SPORTS, 0)
    for i in range(n):
        sp = SPORTS[i % 4]
        t = i * step_us
        ok = int(not (sp <= 2 and lost_at(t, sp)))
        got[sp] += ok
        timeline.append(["h1", "h2", sp, t, ok])
    probes = []
    for spine, sps in (("spine1", [1, 2]), ("spine2", [3, 4])):
        probes.append(
            {
                "src": "h1",
                "dst": "h2",
                "path": ["h1", "leaf1", spine, "leaf2", "h2"],
                "partial": False,
                "sports": sps,
                "sent": n // 2,
                "received": sum(got[s] for s in sps),
                "lat_ns": {"min": 1000, "p50": 1000, "p99": 1000, "max": 1000},
            }
        )
    return {"probes": probes, "timeline": timeline, "host_ips": {}}


def test_periodic_windows_are_a_flap() -> None:
    run = _run(lambda t, _sp: t % 400_000 < 200_000)  # down half of every 400 ms
    flap, text = flap_by_timing(run, ("leaf1", "spine1"))
    assert flap and "windows about 400 ms apart" in text, text
    d = diagnose(run)
    top = d["suspects"][0]
    assert top["cause"] == "flap" and set(top["link"]) <= {"h1", "leaf1", "spine1", "leaf2"}


def test_random_loss_is_loss() -> None:
    rng = random.Random(7)
    run = _run(lambda _t, _sp: rng.random() < 0.3)
    flap, text = flap_by_timing(run, ("leaf1", "spine1"))
    assert not flap and "spread in time" in text, text
    assert all(s["cause"] == "loss" for s in diagnose(run)["suspects"])


def test_too_few_losses_decide_nothing() -> None:
    run = _run(lambda t, sp: t == 0 and sp == 1)
    assert flap_by_timing(run, ("leaf1", "spine1")) == (False, "")


def test_a_run_without_timeline_is_left_alone() -> None:
    run = _run(lambda t, _sp: t % 400_000 < 200_000)
    del run["timeline"]
    assert flap_by_timing(run, ("leaf1", "spine1")) == (False, "")
    assert all(s["cause"] == "loss" for s in diagnose(run)["suspects"])


def test_links_sharing_the_flapping_links_probes_are_not_flaps_of_their_own() -> None:
    run = _run(lambda t, _sp: t % 400_000 < 200_000)
    links = [s for s in diagnose(run)["suspects"] if s["kind"] == "link"]
    flaps = [s for s in links if s["cause"] == "flap"]
    # the first flap, its other direction if ranked, and nothing off leaf1-spine1-leaf2
    assert flaps and all("spine1" in s["link"] for s in flaps)
    host_links = [s for s in links if {"h1", "h2"} & set(s["link"])]
    assert host_links and all(s["cause"] == "loss" for s in host_links)
    assert all("its losses are those of the flapping" in s["evidence"] for s in host_links)
