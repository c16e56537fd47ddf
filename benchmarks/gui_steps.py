"""What a GUI step costs and whether it reflects its action: one episode on the phone world
(Settings, then Messages) or on the desktop world (`--world desktop`: Files, Text Editor and Calc),
through the simulator as `serve` runs it (`--state full`), on the embedded engine. Per step: who
answered (model or state), seconds, completion tokens, the screen's nodes, whether it changed from
the screen before; on the phone its tappable elements and, for a tap, whether the new screen is the
tapped element's page (its name on the screen, the screen changed); on the desktop its windows and
how many of the windows before are still there with every node as it was.

    .venv/bin/python benchmarks/gui_steps.py [--world phone|desktop] [--engine URL] [--seed 0] [--json out.json]

Run it from two checkouts to compare (the README's table: before and after screens as outlines).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from lxml import etree

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world import embedded  # noqa: E402
from mcp_world.dialects import get_dialect  # noqa: E402
from mcp_world.engines import EnginePool, VLLMEngine  # noqa: E402
from mcp_world.errors import AgentFault  # noqa: E402
from mcp_world.simulator import Limits, Simulator  # noqa: E402
from mcp_world.store import Store  # noqa: E402
from mcp_world.world import load_world  # noqa: E402

DESKTOP = [
    ("desktop_get_tree", {}),
    ("desktop_click", {"target": "Save"}),
    ("desktop_click", {"target": "invoice-2026-11.pdf"}),
    ("desktop_hotkey", {"keys": "Return"}),
    ("desktop_hotkey", {"keys": "alt+F4"}),
    ("desktop_click", {"target": "File"}),
    ("desktop_hotkey", {"keys": "Escape"}),
    ("desktop_click", {"target": "Wi-Fi"}),
    ("desktop_hotkey", {"keys": "ctrl+n"}),
    ("desktop_type", {"text": "Dear Sam,"}),
]
PHONE = [
    ("android_dump_ui", {}),
    ("android_launch_app", {"package": "com.android.settings"}),
    ("android_tap", {"target": "Network & internet"}),
    ("android_tap", {"target": "Internet"}),
    ("android_press_key", {"key": "BACK"}),
    ("android_press_key", {"key": "HOME"}),
    ("android_launch_app", {"package": "com.google.android.apps.messaging"}),
    ("android_tap", {"target": "Alex"}),
    ("android_type", {"text": "On my way"}),
    ("android_press_key", {"key": "BACK"}),
]


def _screen(text: str) -> tuple[int, int, set[str]]:
    try:
        root = etree.fromstring(text.encode())
    except etree.XMLSyntaxError:
        return 0, 0, set()
    nodes = list(root.iter("node"))
    labels = {(n.get("text") or n.get("content-desc") or "").strip() for n in nodes} - {""}
    return len(nodes), sum(n.get("clickable") == "true" for n in nodes), labels


def _windows(text: str) -> dict[str, list[str]]:
    """A desktop tree's windows (the root's children), each with its subtree's lines."""
    import importlib

    from mcp_world.domain import load_domain

    tree = importlib.import_module(type(load_domain("os").rules).__module__ + ".tree")
    try:
        nodes = tree.parse_tree(text) if text else []
    except Exception:
        return {}
    out: dict[str, list[str]] = {}
    for n in nodes[1:]:
        if n.depth == 1:
            lines = out.setdefault(f"{n.role} {n.name}", [])
        lines.append(n.line())
    return out


async def run(url: str, seed: int, show: bool = False, world: str = "phone") -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "gui.db")
        sim = Simulator(load_world(world), EnginePool([VLLMEngine(url, timeout_s=1800)]), store,
                        get_dialect("instruct"), Limits(), seed=seed, state_mode="full")
        before = sim.domains["os"].rules.initial(sim.world)["tree"] if world == "desktop" else ""
        for n, (tool, arguments) in enumerate(DESKTOP if world == "desktop" else PHONE):
            t0 = time.perf_counter()
            try:
                r = await sim.call("gui", tool, arguments)
                text, provenance = r.observation, r.provenance
            except AgentFault as err:
                text, provenance = "", f"error: {str(err)[:60]}"
            seconds = time.perf_counter() - t0
            step = store.query("select completion_tokens from steps where episode_id = 'gui' order by idx desc "
                               "limit 1")
            if show:
                from mcp_world.rules import Call

                domain = sim.domains[sim.tools[tool].domain]
                print(f"--- {tool} {arguments} ({provenance})\n" +
                      domain.rules.shown(text, Call(tool, arguments, {}), before) if text else "(none)")
            row = {"step": n, "tool": tool, "arguments": arguments, "provenance": provenance,
                   "seconds": round(seconds, 1),
                   "completion_tokens": (step[0]["completion_tokens"] or 0) if step and provenance == "model" else 0,
                   "changed": bool(text) and text != before}
            if world == "desktop":
                now, was = _windows(text), _windows(before)
                row.update(nodes=sum(len(v) for v in now.values()) + bool(now), windows=len(now),
                           kept=sum(now.get(k) == v for k, v in was.items()), before=len(was))
            else:
                nodes, tappable, labels = _screen(text)
                target = arguments.get("target")
                row.update(nodes=nodes, tappable=tappable,
                           opened=(target in labels and text != before) if target else None)
            rows.append(row)
            before = text or before
        store.close()
    return rows


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--world", choices=("phone", "desktop"), default="phone")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--show", action="store_true", help="print each screen as an outline")
    ap.add_argument("--adapter", default=None, help="the embedded engine's adapter: a folder, or 'none' (default: "
                                                    "the shipped one)")
    a = ap.parse_args()
    if a.engine:
        url, started = a.engine, None
    else:
        started = embedded.start(embedded.EmbeddedConfig(adapter=embedded.resolve_adapter(a.adapter)), say=print)
        url = started.url
    try:
        rows = await run(url, a.seed, a.show, a.world)
    finally:
        if started is not None:
            started.stop()
    desktop = a.world == "desktop"
    extra = f"{'windows':>7} {'kept':>5}" if desktop else f"{'tap':>4} {'opened':>6}"
    print(f"{'step':28} {'by':6} {'s':>6} {'tokens':>6} {'nodes':>5} {'changed':>7} {extra}")
    for r in rows:
        what = f"{r['tool'].split('_', 1)[1]} {' '.join(str(v) for v in r['arguments'].values())}"[:28]
        extra = f"{r['windows']:>7} {r['kept']:>2}/{r['before']:<2}" if desktop else \
            f"{r['tappable']:>4} {'' if r['opened'] is None else str(r['opened']):>6}"
        print(f"{what:28} {r['provenance'][:6]:6} {r['seconds']:>6.1f} {r['completion_tokens']:>6} {r['nodes']:>5} "
              f"{str(r['changed']):>7} {extra}")
    model = [r for r in rows if r["provenance"] == "model"]
    if model:
        per = f"{sum(r['seconds'] for r in model) / len(model):.1f} s and " \
              f"{sum(r['completion_tokens'] for r in model) / len(model):.0f} completion tokens a step; " \
              f"{sum(r['nodes'] for r in model) / len(model):.1f} nodes"
        if desktop:
            per += (f", {sum(r['windows'] for r in model) / len(model):.1f} windows; windows kept exactly "
                    f"{sum(r['kept'] for r in model)}/{sum(r['before'] for r in model)}")
        else:
            per += (f", {sum(r['tappable'] for r in model) / len(model):.1f} tappable; taps that opened their page "
                    f"{sum(bool(r['opened']) for r in rows)}/{sum(r['opened'] is not None for r in rows)}")
        print(f"\nmodel steps {len(model)}/{len(rows)}: {per}; changed {sum(r['changed'] for r in rows)}/{len(rows)}; "
              f"errors {sum(r['provenance'].startswith('error') for r in rows)}")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
