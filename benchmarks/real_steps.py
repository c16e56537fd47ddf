"""What a real step costs the agent: `serve --world devbox --shadow terminal --real terminal` over
streamable HTTP, a few episodes of the commands agents type, each answered by the bubblewrap
sandbox while the world model's prediction of it is logged beside it. Prints the latency the agent
sees per call, how long the server took to stop (it logs the predictions still running first), and
how many predictions reached the log.

    .venv/bin/python benchmarks/real_steps.py [--episodes 3] [--engine URL] [--source CHECKOUT]

`--source` serves from another checkout of mcp-world (say, a `git worktree` of an older commit)
for a before/after. Without --engine it uses the background engine (`mcp-world engine start`) or
starts one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

COMMANDS = [
    "ls", "cat README.md", "grep -rn def src", "echo 'print(1)' > scratch.py", "python3 scratch.py",
    "git status --short", "wc -l src/notes.py tests/test_notes.py", "sed -n 1,3p src/notes.py",
    "cat missing.txt", "git log --oneline | head -3", "find . -name '*.py' | sort", "pwd",
]


def pct(xs: list[float], q: int) -> float:
    return statistics.quantiles(xs, n=100)[q - 1] if len(xs) > 1 else xs[0]


async def episode(url: str, key: str) -> list[float]:
    from tests.helpers import http_client

    lat = []
    async with http_client(url, key) as c:
        for command in COMMANDS:
            t0 = time.perf_counter()
            r = await c.call_tool("run_command", {"command": command})
            lat.append((time.perf_counter() - t0) * 1000)
            assert r.meta["mcp-world/provenance"] == "real", (command, r)
    return lat


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=3)
    ap.add_argument("--engine", default=None)
    ap.add_argument("--source", type=Path, default=None, help="serve from this checkout of mcp-world")
    a = ap.parse_args()
    from mcp_world import embedded
    from mcp_world.paths import cache_dir
    from tests.helpers import free_port, http_process, serve_args

    engine, started = (a.engine, None) if a.engine else embedded.background_or_start(cache_dir(None), say=print)
    work = Path(tempfile.mkdtemp(prefix="mcp-world-bench-real-"))
    db = work / "real.db"
    env = {}
    if a.source:  # `python -m mcp_world` finds the package in its working folder first
        os.chdir(a.source)
    port = free_port()
    try:
        with http_process(serve_args(engine, db, "--port", str(port), "--world", "devbox", "--shadow", "terminal",
                                     "--real", "terminal"), port, env) as (url, proc):
            await episode(url, "warm-up")  # start-up and first-call costs are not what is measured
            t0 = time.perf_counter()
            lat = [x for n in range(a.episodes) for x in await episode(url, f"bench-{n}")]
            ran = time.perf_counter() - t0
            t1 = time.perf_counter()
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=600)
            except subprocess.TimeoutExpired:
                proc.kill()
            stopped = time.perf_counter() - t1
        con = sqlite3.connect(db)
        rows = con.execute("select observation is not null, prediction_error, prediction_ms from steps "
                           "where episode_id like 'bench-%'").fetchall()
        con.close()
        logged = sum(r[0] for r in rows)
        failed = sum(1 for r in rows if r[1] and not r[1].startswith("abandoned"))
        abandoned = sum(1 for r in rows if r[1] and r[1].startswith("abandoned"))
        source = a.source or ROOT
        head = subprocess.run(["git", "-C", str(source), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
        print(f"serving from {source} ({head or 'not a git checkout'}), engine {engine}")
        print(f"{len(lat)} real calls in {a.episodes} episodes: agent-seen p50 {pct(lat, 50):.0f} ms, "
              f"p90 {pct(lat, 90):.0f} ms, max {max(lat):.0f} ms, mean {statistics.mean(lat):.0f} ms; "
              f"the episodes took {ran:.1f} s")
        made = [r[2] for r in rows if r[2] is not None]
        print(f"server stopped {stopped:.1f} s after SIGTERM; predictions logged {logged}/{len(rows)}, failed "
              f"{failed}, abandoned {abandoned}"
              + (f"; a prediction took {statistics.mean(made) / 1000:.1f} s on average" if made else ""))
    finally:
        if started is not None:
            started.stop()


if __name__ == "__main__":
    asyncio.run(main())
