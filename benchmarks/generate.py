"""Synthetic-episode throughput: `generate` with the scripted policy on the devbox tasks at
concurrency 1, 8 and 32 on the embedded engine — episodes per hour and steps/s — and beside each,
the engine's raw throughput on the very same world-model requests replayed straight to it at the
same concurrency (the ceiling: what generate would reach if MCP, the server and the log cost nothing).
Steps the explicit state answers need no engine request, so steps outnumber model requests; `share`
compares the engine requests per second inside generate with the same requests replayed raw.

    .venv/bin/python benchmarks/generate.py [--engine URL] [--episodes-per-worker 1]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world import embedded  # noqa: E402
from mcp_world.engines import EnginePool  # noqa: E402
from mcp_world.generate import GenerateConfig, generate, load_tasks  # noqa: E402
from mcp_world.paths import FIXTURES_DIR, cache_dir  # noqa: E402
from mcp_world.serving import ServeConfig  # noqa: E402
from mcp_world.world import load_world  # noqa: E402

from _replay import Recording, replay_seconds  # noqa: E402  (benchmarks/)


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default=None)
    ap.add_argument("--episodes-per-worker", type=int, default=1)
    a = ap.parse_args()
    url, started = (a.engine, None) if a.engine else embedded.background_or_start(cache_dir(None), say=print)
    tf = load_tasks(FIXTURES_DIR / "tasks" / "devbox.yaml")
    world = load_world("devbox")
    print(f"{'concurrency':>11} {'episodes':>8} {'steps':>6} {'model req':>9} {'seconds':>8} {'episodes/h':>10} "
          f"{'steps/s':>8} {'req/s':>6} {'raw req/s':>9} {'share':>6}")
    try:
        for c in (1, 8, 32):
            n = max(c, 4) * a.episodes_per_worker
            tasks = [tf.tasks[i % len(tf.tasks)].model_copy(update={"id": f"{tf.tasks[i % len(tf.tasks)].id}-{i}"})
                     for i in range(n)]
            with tempfile.TemporaryDirectory() as tmp:
                engine = Recording(url, model=None, timeout_s=600)
                cfg = GenerateConfig(ServeConfig(world=world, db=Path(tmp) / "g.db"), tasks, "scripted",
                                     concurrency=c, seed=c, run_id=f"bench-{c}")
                summary = await generate(cfg, EnginePool([engine]))
                await engine.aclose()
                raw = len(engine.requests) / await replay_seconds(url, engine.requests, c)
            steps_s = summary.steps / summary.seconds
            req_s = len(engine.requests) / summary.seconds
            print(f"{c:>11} {n:>8} {summary.steps:>6} {len(engine.requests):>9} {summary.seconds:>8.1f} "
                  f"{n / summary.seconds * 3600:>10.0f} {steps_s:>8.2f} {req_s:>6.2f} {raw:>9.2f} {req_s / raw:>6.2f}",
                  flush=True)
    finally:
        if started is not None:
            started.stop()


if __name__ == "__main__":
    asyncio.run(main())
