"""`sprayfabric doctor --html`: one self-contained page; the faulty link is the one drawn
as suspect, the probe matrix has a cell per host pair, the suspects table one row per
suspect. Headless Chromium renders the page: through playwright when it and its browser are
installed, else the system's `chromium` (Debian's package, which CI installs) takes a
screenshot whose pixels are checked."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

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
    return simulate(load_topology(TOPO), cfg).to_dict()


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
        "playwright.sync_api",
        reason="playwright is not installed (pip install playwright); "
        "test_page_in_system_chromium renders with the system's browser",
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


def _system_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _chromium_pixels(
    browser: str, page_file: Path, profile: Path, size: tuple[int, int]
) -> list[tuple[int, int, int]]:
    """Headless Chromium's screenshot of `page_file` at `size`, as RGB pixels."""
    shot = profile.with_suffix(".png")
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",  # CI runs as root
            "--disable-gpu",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            f"--window-size={size[0]},{size[1]}",
            f"--screenshot={shot}",
            page_file.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    with Image.open(shot) as img:
        assert img.size == size
        raw = img.convert("RGB").tobytes()
    return list(zip(raw[0::3], raw[1::3], raw[2::3], strict=True))


def test_page_in_system_chromium(run: dict[str, Any], tmp_path: Path) -> None:
    """The page as a browser draws it: the screenshot holds the fabric's links (grey), the
    suspect link in the doctor's red, and text; a page that fails to render is blank."""
    browser = _system_chromium()
    if browser is None:
        pytest.skip("no chromium on PATH (apt-get install chromium)")
    page_file = tmp_path / "report.html"
    page_file.write_text(render_html(run, diagnose(run)))
    pixels = _chromium_pixels(browser, page_file, tmp_path / "profile", (1200, 900))
    red = sum(1 for r, g, b in pixels if r > 180 and g < 120 and b < 120)
    grey = sum(1 for r, g, b in pixels if 170 < r < 230 and abs(r - g) < 8 and abs(g - b) < 8)
    dark = sum(1 for r, g, b in pixels if r < 80 and g < 80 and b < 80)
    assert red > 300, red  # the suspect link leaf2-spine1, drawn thick
    assert grey > 2_000, grey  # the other links and the matrix's borders
    assert dark > 2_000, dark  # the headings and the verdict


@pytest.fixture(scope="module")
def reported() -> dict[str, Any]:
    """A blackhole at spine1 with drop and queue reports on: spine1's drop reports back
    the top suspect."""
    cfg = SimConfig(
        flow_bytes=5_000,
        probes=True,
        time_limit_ns=300_000,
        faults=(parse_fault("blackhole:spine1,10.0.2.0/24@0"),),
        reports=True,
    )
    return simulate(load_topology(TOPO), cfg).to_dict()


def test_page_lists_the_reports_behind_the_suspects(reported: dict[str, Any]) -> None:
    d = diagnose(reported)
    page = _Page()
    page.feed(render_html(reported, d))
    rows = reported["alerts"]["reports"]
    assert page.rows["reports"] == len(rows) + 1
    drops = page.find("tr", **{"data-type": "drop", "data-switch": "spine1"})
    assert drops and all(r["data-reason"] == "ROUTE_BLACKHOLE" for r in drops)
    # the top suspect is spine1 and its drop reports are shaded as its evidence
    assert d["suspects"][0]["where"] == "spine1"
    assert all("1" in (r["data-suspects"] or "").split() for r in drops)
    assert all(r["class"] == "backs" for r in drops)


def test_page_without_reports_says_so(run: dict[str, Any]) -> None:
    page = _Page()
    page.feed(render_html(run, diagnose(run)))
    assert page.find("p", id="no-reports") and "reports" not in page.rows


def test_reports_in_system_chromium(reported: dict[str, Any], tmp_path: Path) -> None:
    """The reports section as a browser draws it: the DOM it parsed has the table, and a
    page tall enough to hold it shows the shaded rows behind the top suspect."""
    browser = _system_chromium()
    if browser is None:
        pytest.skip("no chromium on PATH (apt-get install chromium)")
    page_file = tmp_path / "report.html"
    page_file.write_text(render_html(reported, diagnose(reported)))
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    dom = subprocess.run(
        [*flags, f"--user-data-dir={tmp_path / 'p1'}", "--dump-dom", page_file.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    page = _Page()
    page.feed(dom)
    assert page.rows["reports"] == len(reported["alerts"]["reports"]) + 1
    pixels = _chromium_pixels(browser, page_file, tmp_path / "p2", (1200, 4000))
    # the shaded rows' background, #fbd5d5 (the matrix's cells have red 255)
    shaded = sum(1 for r, g, b in pixels if r == 251 and 210 <= g <= 216 and g == b)
    assert shaded > 1_000, shaded
