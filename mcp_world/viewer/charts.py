"""The viewer's charts: training reports found on disk, and fidelity across evals.

Drawing takes matplotlib about a second a chart on two cores (more on its first import), so each
chart is drawn once per content, under one lock (pyplot is not thread-safe), and the viewer draws
them off its event loop: a page of charts never holds up the other pages."""

from __future__ import annotations

import functools
import json
import threading
from pathlib import Path
from typing import Any

MAX_REPORTS = 50
_DRAWING = threading.Lock()


def find_reports(roots: tuple[Path, ...]) -> list[tuple[Path, dict[str, Any]]]:
    """Training reports (`report.json` written by `mcp-world train`) under the given folders, and
    the shipped adapters'; unreadable ones are skipped."""
    from ..paths import ADAPTERS_DIR

    found: list[tuple[Path, dict[str, Any]]] = []
    for root in (*roots, ADAPTERS_DIR):
        root = Path(root)
        candidates = [root] if root.is_file() else sorted(root.glob("**/report.json")) if root.is_dir() else []
        for path in candidates:
            try:
                report = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if isinstance(report, dict) and ("held_out_before" in report or "steps" in report):
                found.append((path, report))
            if len(found) >= MAX_REPORTS:
                return found
    return found


def training_png(report: dict[str, Any]) -> str | None:
    return _drawn("training", json.dumps(report, sort_keys=True, default=str))


def fidelity_png(rows: list[dict[str, Any]]) -> str | None:
    return _drawn("fidelity", json.dumps(rows, sort_keys=True, default=str)) if rows else None


@functools.lru_cache(maxsize=2 * MAX_REPORTS)
def _drawn(kind: str, content: str) -> str | None:
    """The chart of `content` (its JSON) as a data URI, or None where it cannot be drawn."""
    try:
        from .. import charts

        figure = charts.training_figure if kind == "training" else charts.fidelity_figure
        with _DRAWING:
            return charts.png_data_uri(figure(json.loads(content)))
    except Exception:  # noqa: BLE001 - a report of another shape, or no matplotlib: the table alone
        return None
