"""The viewer's charts: training reports found on disk, and fidelity across evals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MAX_REPORTS = 50


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
    try:
        from ..charts import png_data_uri, training_figure

        return png_data_uri(training_figure(report))
    except Exception:  # noqa: BLE001 - a report of another shape, or no matplotlib: the table alone
        return None


def fidelity_png(rows: list[dict[str, Any]]) -> str | None:
    if not rows:
        return None
    try:
        from ..charts import fidelity_figure, png_data_uri

        return png_data_uri(fidelity_figure(rows))
    except Exception:  # noqa: BLE001
        return None
