"""Bytes of explicit state written to the log over one long episode: the state as per-step patches
between checkpoints (now) beside the whole state rewritten at every step (before: the figure is what
that scheme writes for the very same states). A scripted engine answers what the state does not
(this measures the log, not the model).

    .venv/bin/python benchmarks/state_writes.py [--steps 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.dialects import get_dialect  # noqa: E402
from mcp_world.engines import Completion, EnginePool  # noqa: E402
from mcp_world.simulator import Simulator  # noqa: E402
from mcp_world.store import Store  # noqa: E402
from mcp_world.world import load_world  # noqa: E402


class Scripted:
    url, model = "scripted://", "scripted"

    async def complete(self, request):
        return Completion("ok\n", 10, 2, False, self.model, 1.0)

    async def aclose(self):
        pass


def command(i: int) -> str:
    """An agent's mix: new files, appends, reads, listings, folders, moves."""
    pad = "x" * 40
    return [f"echo 'entry {i}: {pad}' > notes-{i}.txt", f"echo more >> notes-{i - 1}.txt", f"cat notes-{i - 2}.txt",
            "ls", f"mkdir -p build/part{i}", f"cp notes-{i - 3}.txt build/part{i - 1}/", "pwd", "git status"][i % 8]


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "s.db")
        sim = Simulator(load_world("devbox"), EnginePool([Scripted()]), store, get_dialect("instruct"), seed=0)
        whole = 0
        per_step_now, per_step_before = [], []
        for i in range(a.steps):
            before = store.state_bytes
            await sim.call("long", "run_command", {"command": command(i)})
            ep = await sim.episode("long")
            whole += len(json.dumps(ep.state, ensure_ascii=False))
            per_step_before.append(len(json.dumps(ep.state, ensure_ascii=False)))
            per_step_now.append(store.state_bytes - before)
        rebuilt = store.state_of(ep.id)
        assert rebuilt == ep.state, "the logged patches do not rebuild the state"
        store.close()
    n = a.steps
    print(f"{n} steps on devbox; state at the end: {per_step_before[-1]:,} bytes")
    print("| scheme | state bytes written | per step, first 50 | per step, last 50 |")
    print("|---|---|---|---|")
    print(f"| whole state every step (before) | {whole:,} | {sum(per_step_before[:50]) / 50:,.0f} | "
          f"{sum(per_step_before[-50:]) / 50:,.0f} |")
    print(f"| patches + checkpoints (now) | {sum(per_step_now):,} | {sum(per_step_now[:50]) / 50:,.0f} | "
          f"{sum(per_step_now[-50:]) / 50:,.0f} |")
    print(f"ratio: {whole / max(1, sum(per_step_now)):.1f}x fewer bytes; the rebuilt state equals the live one")


if __name__ == "__main__":
    asyncio.run(main())
