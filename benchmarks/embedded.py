"""The embedded engine end to end: cold start, steps/s and latency per domain at concurrency 1 and
8 through the MCP server (in-memory client), the engine's raw throughput on the very same requests
replayed directly, and peak resident memory of server + engine.

    .venv/bin/python benchmarks/embedded.py [--steps 4]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402  (installed with vllm)

from mcp import Client  # noqa: E402

from mcp_world import embedded  # noqa: E402
from mcp_world.dialects import get_dialect  # noqa: E402
from mcp_world.engines import EnginePool  # noqa: E402
from mcp_world.server import build_server  # noqa: E402
from mcp_world.simulator import Simulator  # noqa: E402
from mcp_world.store import Store  # noqa: E402
from mcp_world.world import load_world  # noqa: E402

from _replay import Recording, replay_seconds  # noqa: E402  (benchmarks/)

PLANS = {
    "terminal": ("devbox", [("run_command", {"command": c}) for c in ["ls", "cat README.md", "git status", "pwd", "ls src", "groups"]]),
    "browser": ("webshop", [("browser_navigate", {"url": "https://greenleaf.example/"}), ("browser_click", {"target": "Sencha"}),
                            ("browser_back", {})]),
    "android": ("phone", [("android_launch_app", {"package": "com.android.settings"}), ("android_tap", {"target": "Apps"}),
                          ("android_press_key", {"key": "BACK"})]),
}



class PeakRSS:
    def __init__(self, pids):
        self.pids, self.peak, self._stop = pids, 0, threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while not self._stop.is_set():
            total = 0
            for pid in self.pids:
                try:
                    # PSS: shared pages (torch's libraries, mapped in every vLLM process) counted once.
                    p = psutil.Process(pid)
                    total += sum(q.memory_full_info().pss for q in [p, *p.children(recursive=True)])
                except psutil.Error:
                    pass
            self.peak = max(self.peak, total)
            time.sleep(0.5)

    def stop(self):
        self._stop.set()


async def run_domain(url, domain, steps, concurrency, db):
    world, plan = PLANS[domain]
    plan = plan[:steps]
    engine = Recording(url, model=None, timeout_s=600)
    store = Store(db)
    sim = Simulator(load_world(world), EnginePool([engine]), store, get_dialect("instruct"), seed=1)
    lat, errors = [], 0

    async def agent(i):
        nonlocal errors
        async with Client(build_server(sim, connection_key=f"{domain}-{concurrency}-{i}")) as c:
            for tool, args in plan:
                t0 = time.perf_counter()
                r = await c.call_tool(tool, args)
                lat.append(time.perf_counter() - t0)
                errors += r.is_error

    t0 = time.perf_counter()
    await asyncio.gather(*(agent(i) for i in range(concurrency)))
    wall = time.perf_counter() - t0
    # The same requests, straight to the engine, at the same concurrency.
    reqs = list(engine.requests)
    raw_wall = await replay_seconds(url, reqs, concurrency)
    await engine.aclose()
    store.close()
    n = len(lat)
    # Raw throughput in *steps*: the engine requests behind our steps (repairs included) replayed.
    return n, n / wall, statistics.median(lat), max(lat), errors, n / raw_wall, len(reqs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    a = ap.parse_args()
    cache = embedded.cache_dir()
    t0 = time.perf_counter()
    embedded.prepare_model(cache, print)
    prep = time.perf_counter() - t0
    t0 = time.perf_counter()
    proc = embedded.start(embedded.EmbeddedConfig(cache=cache), say=print)
    cold = time.perf_counter() - t0
    peak = PeakRSS([proc.pid, psutil.Process().pid])
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for domain in PLANS:
                for conc in (1, 8):
                    r = asyncio.run(run_domain(proc.url, domain, a.steps, conc, Path(tmp) / f"{domain}{conc}.db"))
                    rows.append((domain, conc, *r))
                    print(f"  {domain} x{conc}: done", flush=True)
    finally:
        peak.stop()
        proc.stop()
    print(f"\nmodel preparation: {prep:.1f} s (0 when already converted); engine cold start: {cold:.1f} s")
    print(f"peak memory (PSS), server + engine: {peak.peak / 2**30:.2f} GiB\n")
    print(f"{'domain':9} {'conc':>4} {'steps':>5} {'steps/s':>8} {'p50 s':>7} {'max s':>7} {'errors':>6} {'raw steps/s':>11} {'ours/raw':>8}")
    for d, c, n, sps, p50, mx, err, raw, nreq in rows:
        print(f"{d:9} {c:>4} {n:>5} {sps:>8.3f} {p50:>7.2f} {mx:>7.2f} {err:>6} {raw:>11.3f} {sps / raw:>8.2f}")


if __name__ == "__main__":
    main()
