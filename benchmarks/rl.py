"""RL throughput through episode handles: N episodes at once, each opened with POST /episodes, driven
by AsyncWorldEnv over its own MCP endpoint (a real MCP client per episode), verified and ended.

Each episode is a short devbox rollout: three steps the explicit state answers (cd, pwd, cat of a
seeded file) and one the world model answers (git checkout -b), then verify. Prints episodes/s,
steps/s, the share of steps answered from the state, and the engine requests/s inside the run
against the same requests replayed straight to the engine at the same concurrency.

    .venv/bin/python benchmarks/rl.py                    # the embedded engine (background or started)
    .venv/bin/python benchmarks/rl.py --engine URL --sizes 64 256 1024
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import uvicorn  # noqa: E402

from mcp_world import embedded  # noqa: E402
from mcp_world.dialects import get_dialect  # noqa: E402
from mcp_world.engines import EnginePool  # noqa: E402
from mcp_world.handles import Handles, http_app  # noqa: E402
from mcp_world.paths import cache_dir  # noqa: E402
from mcp_world.rl import AsyncWorldEnv  # noqa: E402
from mcp_world.server import build_server  # noqa: E402
from mcp_world.serving import QuietServer, free_loopback_port  # noqa: E402
from mcp_world.simulator import Limits, Simulator  # noqa: E402
from mcp_world.store import Store  # noqa: E402
from mcp_world.world import load_world  # noqa: E402

from _replay import Recording, replay_seconds  # noqa: E402  (benchmarks/)

TASK = {"id": "branch-x", "instruction": "Create a branch for your work and show the README.",
        "success": [{"kind": "git_branch", "exists": "main"}, {"kind": "cwd", "path": "~/notes-app"}]}
SCRIPT = ["cd ~/notes-app", "pwd", "cat README.md", "git checkout -b feature/{n}"]


async def run_size(url: str, n: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "rl.db")
        engine = Recording(url, model=None, timeout_s=900)
        sim = Simulator(load_world("devbox"), EnginePool([engine]), store, get_dialect("auto"),
                        Limits(max_episodes=max(4096, 2 * n)), None)
        handles = Handles(sim)
        port = free_loopback_port()
        app = http_app(build_server(sim), handles, host="127.0.0.1")
        server = QuietServer(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on",
                                            limit_concurrency=4 * n + 64))
        serving = asyncio.ensure_future(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        rewards: list[float] = []
        steps = 0

        async def episode(i: int) -> None:
            nonlocal steps
            env = AsyncWorldEnv(f"http://127.0.0.1:{port}", task=TASK, timeout_s=900)
            try:
                await env.reset(seed=i)
                for command in SCRIPT:
                    await env.step({"tool": "run_command", "arguments": {"command": command.format(n=i)}})
                    steps += 1
                _, reward, *_ = await env.step({"answer": "done"})
                rewards.append(reward)
            finally:
                await env.close()

        t0 = time.perf_counter()
        await asyncio.gather(*(episode(i) for i in range(n)))
        seconds = time.perf_counter() - t0
        provenance = store.query("select provenance, count(*) as n from steps group by provenance")
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(serving, 30)
        await engine.aclose()
        store.close()
        requests = list(engine.requests)
    raw = len(requests) / await replay_seconds(url, requests, n) if requests else float("nan")
    by = {r["provenance"]: r["n"] for r in provenance}
    return {"episodes": n, "steps": steps, "seconds": seconds, "state_share": by.get("state", 0) / max(1, sum(by.values())),
            "requests": len(requests), "req_s": len(requests) / seconds, "raw_req_s": raw,
            "mean_reward": sum(rewards) / len(rewards) if rewards else float("nan")}


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default=None, help="an engine URL (default: the embedded engine)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[64, 256])
    a = ap.parse_args()
    url, started = (a.engine, None) if a.engine else embedded.background_or_start(cache_dir(None), say=print)
    print(f"{'episodes':>8} {'steps':>6} {'seconds':>8} {'episodes/s':>10} {'steps/s':>8} {'from state':>10} "
          f"{'model req':>9} {'req/s':>6} {'raw req/s':>9} {'share':>6} {'reward':>6}")
    try:
        for n in a.sizes:
            r = await run_size(url, n)
            print(f"{r['episodes']:>8} {r['steps']:>6} {r['seconds']:>8.1f} {r['episodes'] / r['seconds']:>10.2f} "
                  f"{r['steps'] / r['seconds']:>8.2f} {r['state_share']:>10.2f} {r['requests']:>9} {r['req_s']:>6.2f} "
                  f"{r['raw_req_s']:>9.2f} {r['req_s'] / r['raw_req_s']:>6.2f} {r['mean_reward']:>6.2f}", flush=True)
    finally:
        if started is not None:
            started.stop()


if __name__ == "__main__":
    asyncio.run(main())
