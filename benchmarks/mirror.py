"""What mirror mode costs the agent: call latency straight to the real server-memory, through
`mcp-world mirror` with predictions off, and through the mirror with the world model predicting
every result on the embedded engine (off the agent's path). All three over stdio, one client, the
same sequence of calls. Prints p50/p99 per setup and how many predictions were logged.

    .venv/bin/python benchmarks/mirror.py [--calls 60] [--engine URL]

Without --engine it uses the background engine (`mcp-world engine start`) or starts one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MEMORY = Path(sys.prefix) / "upstreams" / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"


def calls(n: int) -> list[tuple[str, dict]]:
    out = []
    for i in range(n):
        k = i % 3
        if k == 0:
            out.append(("create_entities", {"entities": [{"name": f"E{i}", "entityType": "thing", "observations": [f"n{i}"]}]}))
        elif k == 1:
            out.append(("search_nodes", {"query": f"n{i - 1}"}))
        else:
            out.append(("open_nodes", {"names": [f"E{i - 2}"]}))
    return out


async def run(params: StdioServerParameters, seq: list[tuple[str, dict]]) -> list[float]:
    lat = []
    async with Client(params, read_timeout_seconds=120) as c:
        for tool, args in seq:
            t0 = time.perf_counter()
            r = await c.call_tool(tool, args)
            lat.append((time.perf_counter() - t0) * 1000)
            assert not r.is_error, r
    return lat


def pct(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100)[int(q) - 1] if len(xs) > 1 else xs[0]


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=60)
    ap.add_argument("--engine", default=None)
    a = ap.parse_args()
    from mcp_world import embedded
    from mcp_world.paths import cache_dir

    engine, started = (a.engine, None) if a.engine else embedded.background_or_start(cache_dir(None), say=print)
    seq = calls(a.calls)
    work = Path(tempfile.mkdtemp(prefix="mcp-world-bench-mirror-"))
    results = {}
    try:
        for label, mirror in (("direct (node server-memory)", None), ("mirror, predictions off", ["--no-predict"]),
                              ("mirror, predictions on", ["--engine", engine, "--drain-timeout", "0"])):
            env = {**os.environ, "MEMORY_FILE_PATH": str(work / f"{len(results)}.jsonl")}
            if mirror is None:
                params = StdioServerParameters(command="node", args=[str(MEMORY)], env=env)
            else:
                db = work / f"{len(results)}.db"
                params = StdioServerParameters(command=sys.executable, env=env, args=[
                    "-m", "mcp_world", "mirror", "--transport", "stdio", "--db", str(db), "--upstream-env",
                    "MEMORY_FILE_PATH", *mirror, "--", "node", str(MEMORY)])
            await run(params, seq[:3])  # warm-up: start-up and first-call costs are not what is measured
            lat = await run(params, seq)
            predicted = ""
            if mirror and "--engine" in mirror:
                con = sqlite3.connect(db)
                n = con.execute("select count(*) from steps where observation is not null").fetchone()[0]
                con.close()
                predicted = f"  ({n} predictions logged while the agent ran)"
            results[label] = lat
            print(f"{label:30} p50 {pct(lat, 50):7.1f} ms  p99 {pct(lat, 99):7.1f} ms  "
                  f"mean {statistics.mean(lat):6.1f} ms over {len(lat)} calls{predicted}")
    finally:
        if started is not None:
            started.stop()


if __name__ == "__main__":
    asyncio.run(main())
