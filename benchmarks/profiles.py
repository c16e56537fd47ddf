"""What a user loses on an engine that takes only the documented Chat Completions fields: the
shipped tasks' scripted actions, per domain, answered by the same real engine twice — directly
under the `vllm` profile (prefill, grammars, top_k, repetition penalty) and through a strict
hosted-API proxy under the `openai` profile (prefill as an instruction, no grammar) — with the
share of answers that are valid observations and the seconds per answer.

    .venv/bin/python benchmarks/profiles.py [--engine URL] [--actions 6]

Without --engine it uses the background engine (`mcp-world engine start`), else starts one.
Answers from the explicit state are off (every action goes to the engine).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._strict_proxy import StrictProxy  # noqa: E402
from mcp_world import embedded  # noqa: E402
from mcp_world.dialects import get_dialect  # noqa: E402
from mcp_world.engines import EnginePool, open_url  # noqa: E402
from mcp_world.errors import AgentFault  # noqa: E402
from mcp_world.generate import load_tasks  # noqa: E402
from mcp_world.paths import FIXTURES_DIR, cache_dir  # noqa: E402
from mcp_world.simulator import Simulator  # noqa: E402
from mcp_world.store import Store  # noqa: E402
from mcp_world.world import load_world  # noqa: E402

WORLDS = {"terminal": "devbox", "browser": "webshop", "android": "phone", "search": "research",
          "os": "desktop", "swe": "repo", "mcp": "helpdesk"}
KEY = "sk-benchmark"


async def domain_row(url: str, profile: str, world_name: str, actions: int, store: Store) -> tuple[int, int, int, float]:
    """(answers, valid answers, valid and not empty, seconds per answer) for one world's first
    `actions` scripted actions (an empty output is valid for a terminal, and is what a model that
    cannot follow the prefill's instruction often gives)."""
    engine = open_url(url, api_key=KEY, profile=profile, timeout_s=900)
    sim = Simulator(load_world(world_name), EnginePool([engine]), store, get_dialect("instruct"), seed=0,
                    state_mode="off")
    tasks = load_tasks(FIXTURES_DIR / "tasks" / f"{world_name}.yaml").tasks
    plan = [(t.id, a) for t in tasks for a in t.actions][:actions]

    async def episode(task_id: str, steps: list) -> int:
        valid = 0
        for a in steps:
            try:
                await sim.call(f"{profile}-{world_name}-{task_id}", a.tool, a.arguments)
                valid += 1
            except AgentFault:
                pass
        return valid

    by_task: dict[str, list] = {}
    for task_id, a in plan:
        by_task.setdefault(task_id, []).append(a)
    t0 = time.perf_counter()
    valid = sum(await asyncio.gather(*(episode(t, steps) for t, steps in by_task.items())))
    seconds = time.perf_counter() - t0
    await engine.aclose()
    filled = store.query("select count(*) n from steps where episode_id like ? and error_kind is null "
                         "and trim(coalesce(observation, '')) != ''", (f"{profile}-{world_name}-%",))[0]["n"]
    return len(plan), valid, filled, seconds / max(len(plan), 1)


async def run(url: str, actions: int) -> None:
    proxy = StrictProxy(url, KEY)
    with tempfile.TemporaryDirectory() as tmp, proxy.serving() as strict:
        store = Store(Path(tmp) / "profiles.db")
        print(f"engine {url}; {actions} scripted actions per domain (state answers off)")
        print(f"{'':9} {'--- vllm ---':^29}   {'--- openai ---':^29}")
        print(f"{'domain':9} " + f"{'valid':>9} {'non-empty':>9} {'s/answer':>9}   " * 2)
        totals = {"vllm": [0, 0, 0], "openai": [0, 0, 0]}
        for domain, world in WORLDS.items():
            cells = []
            for profile, target in (("vllm", url), ("openai", strict)):
                n, valid, filled, per = await domain_row(target, profile, world, actions, store)
                totals[profile] = [a + b for a, b in zip(totals[profile], (n, valid, filled))]
                cells.append(f"{valid:>5}/{n:<3} {filled:>5}/{n:<3} {per:>9.1f}")
            print(f"{domain:9} {cells[0]}   {cells[1]}")
        store.close()
    print(f"{'all':9} " + "   ".join(f"{t[1]:>5}/{t[0]:<3} {t[2]:>5}/{t[0]:<3} {'':>9}" for t in totals.values()))
    print(f"strict proxy: {len(proxy.bodies)} requests forwarded, {len(proxy.refused)} refused")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", help="an engine URL; default: the background engine, else a fresh one")
    ap.add_argument("--actions", type=int, default=6)
    args = ap.parse_args()
    url, started = (args.engine, None) if args.engine else embedded.background_or_start(cache_dir(None), say=print)
    try:
        asyncio.run(run(url, args.actions))
    finally:
        if started is not None:
            started.stop()


if __name__ == "__main__":
    main()
