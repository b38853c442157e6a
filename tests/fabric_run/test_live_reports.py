"""Drop and queue reports and loss timing on a live fabric of softswitch processes (UDP
cables, no root): the fabric's collector turns fabric.p4's reports on, a probe run's JSON
carries those received while it ran (`alerts`, fabricsim's layout) and every probe's send
time and outcome (`timeline`); the doctor backs a blackhole with its drop reports and
tells a flapping link from a lossy one by when the probes were lost.

One 2x2 leaf-spine (a host per leaf, ECMP, the default policy's INT on the probes): the
fabric where, without reports, a blackhole at spine1 reads as the link leaf1->spine1
(docs/doctor.md, "Limits"); its drop reports name the switch.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from controller.fabric.desired import QUEUE_REPORT_THRESHOLD, REPORT_GAP_US
from controller.fabric.live_probe import LiveProber
from controller.fabric.runner import FabricRun
from fabricsim.doctor import diagnose
from fabricsim.doctor_html import render_html
from fabricsim.doctor_reports import BLACKHOLE_REASONS
from tests.fabric_run.live_fabric import live_fabric


@pytest.fixture(scope="module")
def fabric(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FabricRun]:
    with live_fabric(2, tmp_path_factory.mktemp("livereports"), control=False) as run:
        yield run


def probe(run: FabricRun, rounds: int = 15) -> dict[str, Any]:
    return LiveProber(run, rounds=rounds).run_probes()


def test_reports_are_on_and_a_healthy_fabric_has_no_report_suspect(live: FabricRun) -> None:
    out = probe(live)
    alerts = out["alerts"]
    assert (alerts["drop_gap_us"], alerts["queue_threshold"]) == (
        REPORT_GAP_US,
        QUEUE_REPORT_THRESHOLD,
    )
    assert alerts["span_us"] > 0 and alerts["undecoded"] == 0
    assert not [r for r in alerts["reports"] if r.get("reason") in BLACKHOLE_REASONS]
    assert len(out["timeline"]) == sum(a["sent"] for a in out["probes"])
    d = diagnose(out)
    assert d["verdict"] == "no fault found" and not d["suspects"], d
    assert d["reports"]["drop"] == 0


def test_blackhole_is_backed_by_its_drop_reports(live: FabricRun) -> None:
    prefix = str(live.topology.switch("leaf2").subnets[0])
    live.faults.inject(f"blackhole:spine1,{prefix}")
    out = probe(live)
    drops = [r for r in out["alerts"]["reports"] if r["type"] == "drop"]
    bh = [r for r in drops if r["reason"] == "ROUTE_BLACKHOLE"]
    assert {r["switch"] for r in bh} == {"spine1"}, drops
    n = sum(r["count"] for r in bh)
    assert n >= 2 and all(prefix.rsplit(".", 1)[0] in ip for r in bh for ip in r["dsts"])
    d = diagnose(out)
    top = d["suspects"][0]
    assert (top["kind"], top["where"], top["cause"]) == ("switch", "spine1", "blackhole"), d
    assert top["prefix"] == prefix and top["drop_reports"] == n
    assert f"{n} drop reports, reason ROUTE_BLACKHOLE, at spine1" in top["evidence"]
    # the page lists the reports and marks them as the top suspect's
    page = render_html(out, d)
    assert 'id="reports"' in page and 'data-switch="spine1" data-reason="ROUTE_BLACKHOLE"' in page
    assert 'class="backs"' in page


@pytest.mark.parametrize(
    ("spec", "cause"),
    [("flap:leaf1-spine1,400ms/0.5", "flap"), ("loss:leaf1-spine1,0.5", "loss")],
)
def test_flap_and_loss_told_apart_by_loss_timing(live: FabricRun, spec: str, cause: str) -> None:
    live.faults.inject(spec)
    # 1.5 s of probes: about four flap periods; on this fabric one of h1's four source
    # ports crosses leaf1->spine1, 30 probes, so a 50% loss loses 4 or more all but surely
    out = probe(live, rounds=30)
    # as a fabric without port counters gives it (softswitch's cables count carrier
    # transitions, which would name the flap before its losses' timing is looked at)
    carrier = sum(p["carrier_transitions"] for p in out.pop("ports"))
    assert (carrier > 0) == (cause == "flap")
    d = diagnose(out)
    top = d["suspects"][0]
    assert top["kind"] == "link" and set(top["link"]) == {"leaf1", "spine1"}, d["suspects"][:3]
    assert top["cause"] == cause, top
    assert "runs test z" in top["evidence"]
