"""`sprayfabric doctor --html`: one self-contained page; the faulty link is the one drawn
as suspect, the probe matrix has a cell per host pair, the suspects table one row per
suspect. A headless Chromium check runs when playwright and its Chromium are installed."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from controller.topology import load_topology
from fabricsim.doctor import diagnose
from fabricsim.doctor_html import render_html
from fabricsim.faults import parse_fault
from fabricsim.run import SimConfig, simulate
from sprayfabric.cli import main

TOPO = Path(__file__).resolve().parents[2] / "topologies" / "leaf-spine-4x4.yaml"


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.stack: list[str] = []
        self.table: str | None = None
        self.rows: dict[str, int] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "table":
            self.table = a.get("id")
        if tag == "tr" and self.table:
            self.rows[self.table] = self.rows.get(self.table, 0) + 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.table = None

    def find(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [
            a for t, a in self.tags if t == tag and all(a.get(k) == v for k, v in attrs.items())
        ]


@pytest.fixture(scope="module")
def run() -> dict[str, Any]:
    cfg = SimConfig(
        flow_bytes=5_000,
        probes=True,
        time_limit_ns=300_000,
        faults=(parse_fault("loss:leaf2-spine1,0.2@0"),),
    )
    return simulate(load_topology(TOPO), cfg)


def test_page_draws_the_fault(run: dict[str, Any]) -> None:
    d = diagnose(run)
    page = _Page()
    page.feed(render_html(run, d))
    lines = page.find("line")
    assert len(lines) == len(run["topology"]["links"])  # 16 switch links + 16 host links
    by = {frozenset((a["data-a"], a["data-b"])): float(a["data-suspicion"] or 0) for a in lines}
    worst = max(by, key=lambda k: by[k])
    assert worst == frozenset(("leaf2", "spine1")) and by[worst] > 0
    assert all(v == 0 for k, v in by.items() if "leaf2" not in k and "spine1" not in k)
    ringed = {g["data-name"] for g in page.find("g") if g.get("data-suspect") == "1"}
    assert ringed == {s["where"] for s in d["suspects"] if s["kind"] != "link"}
    hosts = run["topology"]["hosts"]
    cells = page.find("td", **{"data-src": "h5"})
    peers = {a["dst"] for a in run["probes"] if a["src"] == "h5"}  # 6 of 15 on 16 hosts
    assert {c["data-dst"] for c in cells} == peers
    assert page.rows["matrix"] == len(hosts) + 1
    assert page.rows["suspects"] == len(d["suspects"]) + 1
    # self-contained: nothing fetched
    assert not page.find("script") and not page.find("link") and not page.find("img")


def test_cli_writes_the_page(run: dict[str, Any], tmp_path: Path) -> None:
    src = tmp_path / "run.json"
    src.write_text(json.dumps(run))
    out = tmp_path / "report.html"
    assert main(["doctor", str(src), "--html", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and 'id="fabric"' in text


def test_cli_refuses_a_run_without_topology(
    run: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "run.json"
    src.write_text(json.dumps({k: v for k, v in run.items() if k != "topology"}))
    assert main(["doctor", str(src), "--html", str(tmp_path / "x.html")]) == 1
    assert "the run has no topology" in capsys.readouterr().err


def test_page_in_headless_chromium(run: dict[str, Any], tmp_path: Path) -> None:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
    )
    page_file = tmp_path / "report.html"
    page_file.write_text(render_html(run, diagnose(run)))
    with sync_api.sync_playwright() as p:
        try:
            browser = p.chromium.launch()
        except Exception as e:  # no browser binary: playwright install chromium
            pytest.skip(f"no Chromium for playwright: {e}")
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(page_file.as_uri())
        box = page.locator("#fabric").bounding_box()
        n = page.locator("#fabric line").count()
        cells = page.locator("#matrix td[data-src]").count()
        browser.close()
    assert not errors
    assert box is not None and box["width"] > 100 and box["height"] > 100
    assert n == len(run["topology"]["links"]) and cells > 0
