"""mcp-world's own overhead per call, beside a bare MCP echo server on the same transport.

mcp-world runs with an *instant engine* (a test double that returns a fixed observation at once —
allowed here only, to isolate our own cost: schema check, episode, prompt rendering, parsing,
SQLite log). Both servers run as subprocesses serving streamable HTTP on 127.0.0.1; one client
process drives them at concurrency 1 and 32. Prints calls/s and p50/p99 latency.

    .venv/bin/python benchmarks/overhead.py [--calls 400]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def serve_mcp_world(port: int, db: str) -> None:
    import uvicorn

    from mcp_world.dialects import get_dialect
    from mcp_world.engines import Completion, EnginePool
    from mcp_world.server import build_server
    from mcp_world.simulator import Simulator
    from mcp_world.store import Store
    from mcp_world.world import load_world

    class InstantEngine:
        url = "instant://"
        model = "instant"

        async def complete(self, request):
            return Completion("README.md\nsrc\ntests\n", 0, 0, False, self.model, 0.0)

        async def aclose(self):
            pass

    sim = Simulator(load_world("devbox"), EnginePool([InstantEngine()]), Store(db), get_dialect("instruct"), seed=1)
    app = build_server(sim).streamable_http_app(host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def serve_echo(port: int) -> None:
    from mcp.server import MCPServer

    server = MCPServer("echo")

    @server.tool()
    def run_command(command: str) -> str:
        """Echo."""
        return "README.md\nsrc\ntests\n"

    import uvicorn

    uvicorn.run(server.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=port, log_level="warning")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"server on {port} did not start")


async def drive(url: str, calls: int, concurrency: int) -> tuple[float, list[float]]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    latencies: list[float] = []
    per_worker = calls // concurrency

    async def worker(i: int) -> None:
        async with httpx2.AsyncClient(headers={"X-Episode-Id": f"bench-{i}-{time.time_ns()}"}, timeout=60) as hc:
            async with Client(streamable_http_client(url, http_client=hc)) as c:
                await c.call_tool("run_command", {"command": "ls"})  # warm up
                for _ in range(per_worker):
                    t0 = time.perf_counter()
                    r = await c.call_tool("run_command", {"command": "ls"})
                    latencies.append((time.perf_counter() - t0) * 1000)
                    assert not r.is_error, r

    t0 = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    return time.perf_counter() - t0, latencies


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=384)
    ap.add_argument("--serve", choices=["mcp-world", "echo"])
    ap.add_argument("--port", type=int)
    ap.add_argument("--db")
    a = ap.parse_args()
    if a.serve == "mcp-world":
        return serve_mcp_world(a.port, a.db)
    if a.serve == "echo":
        return serve_echo(a.port)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("echo", "mcp-world"):
            port = free_port()
            proc = subprocess.Popen([sys.executable, __file__, "--serve", name, "--port", str(port),
                                     "--db", os.path.join(tmp, "bench.db")])
            try:
                wait_port(port)
                for conc in (1, 32):
                    wall, lat = asyncio.run(drive(f"http://127.0.0.1:{port}/mcp", a.calls, conc))
                    results[(name, conc)] = (len(lat) / wall, statistics.median(lat), pct(lat, 0.99))
            finally:
                proc.terminate()
                proc.wait(timeout=20)
    print(f"\n{'server':10} {'conc':>4} {'calls/s':>9} {'p50 ms':>8} {'p99 ms':>8}")
    for (name, conc), (rate, p50, p99) in results.items():
        print(f"{name:10} {conc:>4} {rate:>9.1f} {p50:>8.2f} {p99:>8.2f}")
    for conc in (1, 32):
        e, m = results[("echo", conc)], results[("mcp-world", conc)]
        print(f"concurrency {conc}: mcp-world overhead at p50 {m[1] - e[1]:+.2f} ms; throughput {m[0] / e[0]:.2f}x the bare echo server")


if __name__ == "__main__":
    main()
