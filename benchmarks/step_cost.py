"""What one simulated step costs, per domain and dialect: the task files' scripted actions for one
world of each of the seven domains are played through the simulator (every step asks the world
model: `--state off`), and for each domain it prints the steps, the share answered in a valid
format, prompt and completion tokens per step, thinking characters per step and seconds per step.

    .venv/bin/python benchmarks/step_cost.py                                   # embedded engine, instruct
    .venv/bin/python benchmarks/step_cost.py --engine http://127.0.0.1:8000 --dialect agentworld \
        --thinking on,off --temperature 0.6                                    # Qwen-AgentWorld on a GPU

With the embedded 135M model and `--dialect agentworld` it measures only the plumbing (that model
does not know the format); the figures that matter come from Qwen-AgentWorld (benchmarks/gpu_check.sh).
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

from mcp_world import embedded  # noqa: E402
from mcp_world.dialects import get_dialect  # noqa: E402
from mcp_world.engines import EnginePool, VLLMEngine  # noqa: E402
from mcp_world.errors import AgentFault  # noqa: E402
from mcp_world.generate import load_tasks  # noqa: E402
from mcp_world.paths import FIXTURES_DIR, cache_dir  # noqa: E402
from mcp_world.simulator import Limits, Sampling, Simulator  # noqa: E402
from mcp_world.store import Store  # noqa: E402
from mcp_world.world import load_world  # noqa: E402

WORLDS = {"terminal": "devbox", "browser": "webshop", "android": "phone", "search": "research",
          "os": "desktop", "swe": "repo", "mcp": "helpdesk"}


async def run(url: str, model: str | None, dialect: str, thinking: bool, budget: int, per_domain: int,
              temperature: float, context: int, store: Store) -> list[tuple]:
    rows = []
    for domain, world_name in WORLDS.items():
        engine = VLLMEngine(url, model=model, timeout_s=1800)
        world = load_world(world_name)
        sim = Simulator(world, EnginePool([engine]), store, get_dialect(dialect, thinking=thinking,
                                                                          thinking_budget=budget),
                        Limits(context_tokens=context), seed=0, sampling=Sampling(temperature=temperature),
                        state_mode="off")
        tasks = load_tasks(FIXTURES_DIR / "tasks" / f"{world_name}.yaml").tasks
        actions = [(t.id, a) for t in tasks for a in t.actions][:per_domain]
        steps = valid = 0
        seconds = 0.0
        t0 = time.perf_counter()
        for n, (task_id, a) in enumerate(actions):
            try:
                await sim.call(f"cost-{dialect}-{thinking}-{domain}-{task_id}", a.tool, a.arguments)
                valid += 1
            except AgentFault:
                pass
            steps += 1
        seconds = time.perf_counter() - t0
        tokens = store.query("select avg(prompt_tokens), avg(completion_tokens), avg(length(coalesce(thinking, ''))) "
                             "from steps where episode_id like ?", (f"cost-{dialect}-{thinking}-{domain}-%",))[0]
        await engine.aclose()
        rows.append((domain, steps, valid / max(steps, 1), *(v or 0 for v in tokens.values()), seconds / max(steps, 1)))
    return rows


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default=None)
    ap.add_argument("--model", default=None)
    ap.add_argument("--dialect", default="auto")
    ap.add_argument("--thinking", default="on", help="on, off or on,off")
    ap.add_argument("--thinking-budget", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=6, help="steps per domain")
    ap.add_argument("--temperature", type=float, default=0.3)
    ap.add_argument("--context-tokens", type=int, default=8192)
    a = ap.parse_args()
    url, started = (a.engine, None) if a.engine else embedded.background_or_start(cache_dir(None), say=print)
    model = a.model  # None: the engine says which model it serves
    try:
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "cost.db")
            for mode in a.thinking.split(","):
                rows = await run(url, model, a.dialect, mode == "on", a.thinking_budget, a.steps, a.temperature,
                                 a.context_tokens, store)
                print(f"\ndialect {a.dialect}, thinking {mode} (engine {url})")
                print(f"{'domain':9} {'steps':>5} {'valid':>6} {'prompt tok':>10} {'compl tok':>9} "
                      f"{'think chars':>11} {'s/step':>7}")
                for d, steps, valid, pt, ct, th, sec in rows:
                    print(f"{d:9} {steps:>5} {valid:>6.2f} {pt:>10.0f} {ct:>9.0f} {th:>11.0f} {sec:>7.2f}")
            store.close()
    finally:
        if started is not None:
            started.stop()


if __name__ == "__main__":
    asyncio.run(main())
