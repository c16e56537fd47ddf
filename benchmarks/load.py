"""Load: N concurrent HTTP episodes x M steps against the real server on the embedded engine.
Every call must get a result (an observation or a clear error); afterwards every step must be in
SQLite exactly once, in order, with its episode. Prints p50/p99 latency, calls/s and error counts.

    .venv/bin/python benchmarks/load.py [--episodes 64 --steps 20] [--engine URL]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx2  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

COMMANDS = ["ls", "pwd", "whoami", "echo hello", "cat requirements.txt", "ls src", "date", "git branch"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def episode(url, i, steps, lat, errors, results):
    async with httpx2.AsyncClient(headers={"X-Episode-Id": f"load-{i}"}, timeout=httpx2.Timeout(900)) as hc:
        async with Client(streamable_http_client(url, http_client=hc), read_timeout_seconds=900) as c:
            for n in range(steps):
                t0 = time.perf_counter()
                r = await c.call_tool("run_command", {"command": COMMANDS[(i + n) % len(COMMANDS)]})
                lat.append(time.perf_counter() - t0)
                results.append(r)
                if r.is_error:
                    errors[r.content[0].text.split(":", 1)[0]] += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=64)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--engine", default="embedded")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "load.db"
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "mcp_world", "serve", "--engine", a.engine, "--db", str(db),
                                   "--port", str(port), "--seed", "1"], stderr=subprocess.PIPE, text=True)
        try:
            for line in server.stderr:
                sys.stderr.write(line)
                if "Press Ctrl+C" in line:
                    break
            url = f"http://127.0.0.1:{port}/mcp"
            lat, errors, results = [], collections.Counter(), []

            async def run():
                await asyncio.gather(*(episode(url, i, a.steps, lat, errors, results) for i in range(a.episodes)))

            t0 = time.perf_counter()
            asyncio.run(run())
            wall = time.perf_counter() - t0
        finally:
            server.terminate()
            server.wait(timeout=60)
        con = sqlite3.connect(db)
        rows = list(con.execute("select episode_id, idx from steps order by episode_id, idx"))
        integrity = con.execute("pragma integrity_check").fetchone()[0]
        con.close()
    per = collections.defaultdict(list)
    for e, i in rows:
        per[e].append(i)
    complete = all(per[f"load-{i}"] == list(range(a.steps)) for i in range(a.episodes))
    lat.sort()
    print(f"\n{a.episodes} episodes x {a.steps} steps = {len(results)} calls in {wall:.0f} s ({len(results) / wall:.2f} calls/s)")
    print(f"latency p50 {statistics.median(lat):.2f} s, p99 {lat[int(len(lat) * 0.99) - 1]:.2f} s, max {lat[-1]:.2f} s")
    print(f"errors: {sum(errors.values())} {dict(errors)}")
    print(f"SQLite: {len(rows)} step rows, every step exactly once and in order: {complete}; integrity: {integrity}")


if __name__ == "__main__":
    main()
