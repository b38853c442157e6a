"""PNG figures of runs (matplotlib, Agg backend: no display needed).

- `throughput_fct.png`: per workload, throughput (% of line rate) and FCT p50/p99 per mode;
- `queues.png`: the deepest switch queue over time, per mode (one workload);
- `uplinks_<workload>_<mode>.png`: utilisation of every leaf uplink over time (heat map).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["plot_queues", "plot_summary", "plot_uplinks"]


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_summary(summary: dict[str, dict[str, dict[str, Any]]], path: Path) -> Path:
    """Bars: throughput % of line rate and FCT p50/p99 (us), workload x mode."""
    plt = _plt()
    workloads = list(summary)
    fig, axes = plt.subplots(len(workloads), 2, figsize=(10, 3.2 * len(workloads)), squeeze=False)
    for row, wl in enumerate(workloads):
        modes = list(summary[wl])
        x = range(len(modes))
        tp = [summary[wl][m]["throughput_pct_of_line_rate"] for m in modes]
        ax = axes[row][0]
        ax.bar(x, tp, color="#4c72b0")
        ax.set_xticks(list(x), modes)
        ax.set_ylim(0, 105)
        ax.set_ylabel("% of line rate")
        ax.set_title(f"{wl}: throughput")
        for i, v in enumerate(tp):
            ax.text(i, v + 1, f"{v:.0f}", ha="center", fontsize=8)
        ax = axes[row][1]
        p50 = [summary[wl][m]["fct_p50_us"] for m in modes]
        p99 = [summary[wl][m]["fct_p99_us"] for m in modes]
        w = 0.38
        ax.bar([i - w / 2 for i in x], p50, w, label="p50", color="#55a868")
        ax.bar([i + w / 2 for i in x], p99, w, label="p99", color="#c44e52")
        ax.set_xticks(list(x), modes)
        ax.set_ylabel("flow completion time (us)")
        ax.set_title(f"{wl}: FCT")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def plot_queues(runs: dict[str, dict[str, Any]], title: str, path: Path) -> Path:
    """The deepest egress queue of the fabric over time, one line per mode."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 3.2))
    for mode, r in runs.items():
        series = r["series"]["queue"]
        ax.plot([s[0] for s in series], [s[1] for s in series], label=mode, linewidth=1)
    ax.set_xlabel("time (us)")
    ax.set_ylabel("deepest queue (packets)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def plot_uplinks(run: dict[str, Any], rate_bps: float, title: str, path: Path) -> Path:
    """Heat map: leaf uplinks (rows) x time bins (columns), utilisation 0..1."""
    plt = _plt()
    ups = run["series"]["uplinks"]
    names = sorted(ups)
    bin_us = run["series"]["uplink_bins_us"]
    cap = rate_bps * bin_us / 1e6 / 8  # bytes per bin at line rate
    rows = [[b / cap for b in ups[n]] for n in names]
    fig, ax = plt.subplots(figsize=(8, 0.25 * len(names) + 1.5))
    im = ax.imshow(
        rows,
        aspect="auto",
        vmin=0,
        vmax=1,
        cmap="viridis",
        interpolation="nearest",
        extent=(0, bin_us * max((len(r) for r in rows), default=1), len(names) - 0.5, -0.5),
    )
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.set_xlabel("time (us)")
    ax.set_title(title)
    fig.colorbar(im, ax=ax, label="utilisation")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path
