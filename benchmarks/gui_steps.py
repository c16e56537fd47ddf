"""What a phone step costs and whether it reflects its action: one episode on the phone world
(Settings, then Messages) through the simulator as `serve` runs it (`--state full`), on the embedded
engine. Per step: who answered (model or state), seconds, completion tokens, the screen's nodes
and tappable elements, whether it changed from the screen before, and for a tap whether the new
screen is the tapped element's page (its name on the screen, the screen changed).

    .venv/bin/python benchmarks/gui_steps.py [--engine URL] [--seed 0] [--json out.json]

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

from _engine import engine_at, episode_arguments  # noqa: E402
from mcp_world.dialects import get_dialect  # noqa: E402
from mcp_world.engines import EnginePool, VLLMEngine  # noqa: E402
from mcp_world.errors import AgentFault  # noqa: E402
from mcp_world.simulator import Limits, Simulator  # noqa: E402
from mcp_world.store import Store  # noqa: E402
from mcp_world.world import load_world  # noqa: E402

EPISODE = [
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


async def run(url: str, seed: int, show: bool = False) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "gui.db")
        sim = Simulator(load_world("phone"), EnginePool([VLLMEngine(url, timeout_s=1800)]), store,
                        get_dialect("instruct"), Limits(), seed=seed, state_mode="full")
        before = ""
        for n, (tool, arguments) in enumerate(EPISODE):
            t0 = time.perf_counter()
            try:
                r = await sim.call("gui", tool, arguments)
                text, provenance = r.observation, r.provenance
            except AgentFault as err:
                text, provenance = "", f"error: {str(err)[:60]}"
            seconds = time.perf_counter() - t0
            step = store.query("select completion_tokens from steps where episode_id = 'gui' order by idx desc "
                               "limit 1")
            nodes, tappable, labels = _screen(text)
            if show:
                from mcp_world.rules import Call

                print(f"--- {tool} {arguments} ({provenance})\n" +
                      sim.domains["android"].rules.shown(text, Call(tool, arguments, {})) if text else "(none)")
            target = arguments.get("target")
            rows.append({"step": n, "tool": tool, "arguments": arguments, "provenance": provenance,
                         "seconds": round(seconds, 1),
                         "completion_tokens": (step[0]["completion_tokens"] or 0) if step and provenance == "model" else 0,
                         "nodes": nodes, "tappable": tappable, "changed": bool(text) and text != before,
                         "opened": (target in labels and text != before) if target else None})
            before = text or before
        store.close()
    return rows


async def main() -> None:
    ap = episode_arguments(argparse.ArgumentParser())
    ap.add_argument("--show", action="store_true", help="print each screen as an outline")
    a = ap.parse_args()
    with engine_at(a.engine, a.adapter) as url:
        rows = await run(url, a.seed, a.show)
    print(f"{'step':28} {'by':6} {'s':>6} {'tokens':>6} {'nodes':>5} {'tap':>4} {'changed':>7} {'opened':>6}")
    for r in rows:
        what = f"{r['tool'].removeprefix('android_')} {' '.join(str(v) for v in r['arguments'].values())}"[:28]
        print(f"{what:28} {r['provenance'][:6]:6} {r['seconds']:>6.1f} {r['completion_tokens']:>6} {r['nodes']:>5} "
              f"{r['tappable']:>4} {str(r['changed']):>7} {'' if r['opened'] is None else str(r['opened']):>6}")
    model = [r for r in rows if r["provenance"] == "model"]
    if model:
        print(f"\nmodel steps {len(model)}/{len(rows)}: {sum(r['seconds'] for r in model) / len(model):.1f} s and "
              f"{sum(r['completion_tokens'] for r in model) / len(model):.0f} completion tokens a step; "
              f"{sum(r['nodes'] for r in model) / len(model):.1f} nodes, "
              f"{sum(r['tappable'] for r in model) / len(model):.1f} tappable; "
              f"changed {sum(r['changed'] for r in rows)}/{len(rows)}, taps that opened their page "
              f"{sum(bool(r['opened']) for r in rows)}/{sum(r['opened'] is not None for r in rows)}; "
              f"errors {sum(r['provenance'].startswith('error') for r in rows)}")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
