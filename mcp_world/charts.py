"""Charts (matplotlib, headless): a training run's curves and held-out fidelity, and fidelity per
domain across evals. `train` saves the first as training.png; `mcp-world view` shows both."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def training_figure(report: dict[str, Any]) -> Any:
    """Left: reward (mean ± std), groups with spread and the warm start's loss per step; right:
    held-out similarity and binary score before, after the warm start, and after."""
    plt = _pyplot()
    steps = report.get("steps") or []
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    if steps:
        xs = [r["step"] for r in steps]
        mean = [r["reward"] for r in steps]
        std = [r.get("reward_std", 0.0) for r in steps]
        a.plot(xs, mean, label="reward (mean)")
        a.fill_between(xs, [m - s for m, s in zip(mean, std)], [m + s for m, s in zip(mean, std)], alpha=0.2)
        if all("groups_with_spread" in r for r in steps):
            a.plot(xs, [r["groups_with_spread"] for r in steps], label="groups with differing rewards", ls="--")
    sft = (report.get("stages") or {}).get("warmup_sft")
    if sft and sft.get("steps"):
        a.plot([r["step"] for r in sft["steps"]], [r["loss"] for r in sft["steps"]], label="warm start loss", ls=":")
    a.set_xlabel("step")
    a.set_title("training")
    if a.get_legend_handles_labels()[0]:
        a.legend(loc="best")
    labels, sims, bins = [], [], []
    rows = [("before", report.get("held_out_before"))]
    if sft and steps:
        rows.append(("warm start", sft.get("held_out_after")))
    rows.append(("after", report.get("held_out_after")))
    for name, row in rows:
        if row:
            labels.append(name)
            sims.append(row["mean_similarity"])
            bins.append(row["binary_score"])
    x = range(len(labels))
    b.bar([i - 0.2 for i in x], sims, width=0.4, label="mean similarity")
    b.bar([i + 0.2 for i in x], bins, width=0.4, label="binary score")
    b.set_xticks(list(x), labels)
    b.set_ylim(0, 1)
    b.set_title("held-out fidelity")
    if labels:
        b.legend(loc="best")
    else:  # `train --held-out 0`: every episode trained; the held-out figures were measured apart
        b.text(0.5, 0.5, "no held-out episodes in this run\n(--held-out 0: measure with benchmarks/)",
               ha="center", va="center", transform=b.transAxes)
    fig.tight_layout()
    return fig


def fidelity_figure(rows: list[dict[str, Any]]) -> Any:
    """Mean similarity per domain, one group of bars per eval run (rows: run, domain, mean)."""
    plt = _pyplot()
    runs = list(dict.fromkeys(r["run"] for r in rows))
    domains = sorted({r["domain"] or "?" for r in rows})
    fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(runs) * max(1, len(domains)) / 2), 3.5))
    width = 0.8 / max(1, len(domains))
    for j, d in enumerate(domains):
        ys = [next((r["mean"] for r in rows if r["run"] == run and (r["domain"] or "?") == d), 0.0) for run in runs]
        ax.bar([i + j * width for i in range(len(runs))], ys, width=width, label=d)
    ax.set_xticks([i + width * (len(domains) - 1) / 2 for i in range(len(runs))], [str(r)[:24] for r in runs],
                  rotation=20, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("mean similarity")
    ax.set_title("fidelity per domain, by eval run")
    ax.legend(loc="best")
    fig.tight_layout()
    return fig


def save(fig: Any, path: Path) -> None:
    fig.savefig(path, dpi=100)
    _pyplot().close(fig)


def png_data_uri(fig: Any) -> str:
    """The figure as a `data:` URI (what the viewer's content-security policy lets an <img> show)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    _pyplot().close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
