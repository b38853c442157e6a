"""A flapping link told from a lossy one by when its probes were lost, for a run without
carrier counters (a live fabric: softswitch UDP cables have no carrier, so the doctor's
counter check, doctor_counters.flap_suspects, has nothing to read).

The run's `timeline` (live_probe.py writes it): every probe as (src, dst, source port, sent
us from the probe's start, delivered 0/1), in the order sent. A link's probes are those
whose 5-tuple's path crosses it, either direction (a flap takes both down). In send order:

- a link that drops at random loses its probes spread over the run: their outcomes
  change as often as chance says (Wald-Wolfowitz runs test, z about 0);
- a link that goes down for part of every period loses every probe in its down windows
  and none in between: few runs of losses, each a window (z well below 0).

`flap_by_timing(run, link)` says "flap" when the runs test's z is below MAX_Z and the
losses fall into at least MIN_WINDOWS windows (runs of MIN_RUN or more lost probes): the
evidence gives the windows, their spacing (the period, roughly) and length. Too few
probes either way (MIN_EACH lost and delivered) decide nothing.

A link whose probes also cross a flapping link loses them in the same windows: the doctor
asks `explained_by(run, link, flapping)` (every 5-tuple it lost crosses the flapping
link) before calling a lower-ranked link a flap of its own. `label_flaps` does both over
the doctor's ranked suspects.
"""

from __future__ import annotations

import math
from statistics import median
from typing import Any

__all__ = ["explained_by", "flap_by_timing", "label_flaps"]

MAX_Z = -3.0  # the runs test's z below this: losses clustered in time, not at random
MIN_WINDOWS = 2  # a flap repeats: at least two windows of losses
MIN_RUN = 2  # a window: this many consecutive lost probes or more
MIN_EACH = 4  # lost and delivered probes needed to judge


def _crossing(run: dict[str, Any], link: tuple[str, str]) -> set[tuple[str, str, int]]:
    """The (src, dst, source port) whose path crosses `link` either way."""
    a, b = link
    hops = {(a, b), (b, a)}
    out: set[tuple[str, str, int]] = set()
    for agg in run.get("probes", []):
        p = agg["path"]
        if hops & set(zip(p, p[1:], strict=False)):
            out.update((agg["src"], agg["dst"], sp) for sp in agg["sports"])
    return out


def _timeline(run: dict[str, Any], link: tuple[str, str]) -> list[tuple[int, int]]:
    """(sent us, delivered) of the probes whose 5-tuple's path crosses `link` either way."""
    crossing = _crossing(run, link)
    rows = run.get("timeline") or []
    return sorted((r[3], r[4]) for r in rows if (r[0], r[1], r[2]) in crossing)


def explained_by(run: dict[str, Any], link: tuple[str, str], flapping: tuple[str, str]) -> bool:
    """Whether every 5-tuple that lost a probe crossing `link` crosses `flapping` too."""
    mine = _crossing(run, link)
    lost = {(r[0], r[1], r[2]) for r in run.get("timeline") or [] if not r[4]} & mine
    return bool(lost) and lost <= _crossing(run, flapping)


def _runs_z(outcomes: list[int]) -> float:
    """Wald-Wolfowitz: how far the number of runs is below chance, in standard deviations."""
    n1 = outcomes.count(0)
    n2 = len(outcomes) - n1
    n = n1 + n2
    runs = 1 + sum(1 for x, y in zip(outcomes, outcomes[1:], strict=False) if x != y)
    mu = 2 * n1 * n2 / n + 1
    var = 2 * n1 * n2 * (2 * n1 * n2 - n) / (n * n * (n - 1))
    return (runs - mu) / math.sqrt(var) if var > 0 else 0.0


def flap_by_timing(run: dict[str, Any], link: tuple[str, str]) -> tuple[bool, str]:
    """Whether `link`'s lost probes came in periodic windows (see the module docstring),
    and a phrase for the evidence ("" when the run has no timeline or too few probes)."""
    probes = _timeline(run, link)
    outcomes = [ok for _, ok in probes]
    lost = outcomes.count(0)
    if not run.get("timeline") or lost < MIN_EACH or len(outcomes) - lost < MIN_EACH:
        return False, ""
    z = _runs_z(outcomes)
    windows: list[tuple[int, int, int]] = []  # (first sent us, last sent us, probes lost)
    start = None
    for i, (_, ok) in enumerate([*probes, (probes[-1][0], 1)]):
        if not ok and start is None:
            start = i
        elif ok and start is not None:
            if i - start >= MIN_RUN:
                windows.append((probes[start][0], probes[i - 1][0], i - start))
            start = None
    if z >= MAX_Z or len(windows) < MIN_WINDOWS:
        return False, f"; its {lost} losses spread in time (runs test z {z:.1f})"
    period = median(b[0] - a[0] for a, b in zip(windows, windows[1:], strict=False))
    length = median(w[1] - w[0] for w in windows)
    return True, (
        f"; {sum(w[2] for w in windows)} of its {lost} losses in {len(windows)} windows "
        f"about {period / 1000:.0f} ms apart, each {length / 1000:.0f} ms or more long "
        f"(runs test z {z:.1f}): down and up again, not random loss"
    )


def label_flaps(run: dict[str, Any], suspects: list[dict[str, Any]]) -> None:
    """In rank order, make each `loss` link suspect whose losses came in periodic windows
    a `flap`, and add the timing to its evidence; a link whose lost 5-tuples all cross a
    flapping link ranked above it is that link's finding (a flap too when it is the same
    cable's other direction) and says so."""
    timed: list[tuple[str, str]] = []
    for s in suspects:
        if s["kind"] != "link" or s["cause"] != "loss":
            continue
        link = (s["link"][0], s["link"][1])
        by = next((f for f in timed if explained_by(run, link, f)), None)
        if by is not None:
            if set(by) == set(link):  # the other direction of the same cable
                s["cause"] = "flap"
                s["evidence"] += f"; the other direction of the flapping {by[0]}-{by[1]}"
            else:
                s["evidence"] += f"; its losses are those of the flapping {by[0]}-{by[1]}"
            continue
        flapped, text = flap_by_timing(run, link)
        if flapped:
            s["cause"] = "flap"
            timed.append(link)
        s["evidence"] += text
