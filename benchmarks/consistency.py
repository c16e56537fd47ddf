"""Does explicit state keep the world straight? The shipped probe suite (fixtures/probes.yaml) with
history-only prompts (`--state off`), with the state summary in the prompt (`prompt`) and with the
full explicit state (`full`: summary + answers the state determines), on the same engine. Prints
the pass rate per domain, tokens per step, the share of steps the world model answered, and the
engine's prefix-cache hit rate over each run (vLLM's /metrics counters).

    .venv/bin/python benchmarks/consistency.py [--engine URL] [--modes off,prompt,full] [--world W]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world import embedded  # noqa: E402
from mcp_world.engines import EnginePool, VLLMEngine  # noqa: E402
from mcp_world.paths import cache_dir  # noqa: E402
from mcp_world.probes import load_suite, run_suite  # noqa: E402
from mcp_world.store import Store  # noqa: E402


def cache_counters(url: str) -> tuple[float, float]:
    text = httpx.get(f"{url}/metrics", timeout=10).text

    def total(name: str) -> float:
        return sum(float(m.group(1)) for m in re.finditer(rf"^{name}\{{[^}}]*\}} ([0-9.e+]+)$", text, re.M))

    return total("vllm:prefix_cache_hits_total"), total("vllm:prefix_cache_queries_total")


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default=None)
    ap.add_argument("--modes", default="off,prompt,full")
    ap.add_argument("--world", default=None)
    ap.add_argument("--concurrency", type=int, default=4)
    a = ap.parse_args()
    url, started = (a.engine, None) if a.engine else embedded.background_or_start(cache_dir(None), say=print)
    probes = [p for p in load_suite() if a.world in (None, p.world)]
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "probes.db")
            for mode in a.modes.split(","):
                engine = VLLMEngine(url, model=None, timeout_s=900)
                hits0, queries0 = cache_counters(url)
                report = await run_suite(probes, EnginePool([engine]), store, mode, seed=0, concurrency=a.concurrency)
                hits1, queries1 = cache_counters(url)
                await engine.aclose()
                result = report.as_json()
                cached = (hits1 - hits0) / (queries1 - queries0) if queries1 > queries0 else float("nan")
                rows.append((mode, result, cached))
                per = "  ".join(f"{d} {r['passed']}/{r['total']}" for d, r in result["domains"].items())
                print(f"state {mode:6} passed {result['overall']['passed']}/{result['overall']['total']}  ({per})  "
                      f"tokens/step {result['tokens_per_step']:.0f}  model answered {result['model_share']:.0%}  "
                      f"prefix cache {cached:.0%}", flush=True)
            store.close()
    finally:
        if started is not None:
            started.stop()
    print("\n| state | " + " | ".join(rows[0][1]["domains"]) + " | overall | tokens/step | model-answered | prefix-cache hits |")
    print("|---" * (len(rows[0][1]["domains"]) + 5) + "|")
    for mode, result, cached in rows:
        cells = [f"{r['passed']}/{r['total']}" for r in result["domains"].values()]
        o = result["overall"]
        print(f"| {mode} | " + " | ".join(cells) + f" | {o['passed']}/{o['total']} ({o['passed'] / o['total']:.0%}) | "
              f"{result['tokens_per_step']:.0f} | {result['model_share']:.0%} | {cached:.0%} |")


if __name__ == "__main__":
    asyncio.run(main())
