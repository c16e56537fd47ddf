"""Shared by the benchmarks that compare mcp-world with its engine's raw throughput: an engine that
records the requests it is sent, and a raw replay of those requests straight to the engine."""

from __future__ import annotations

import asyncio
import time

from mcp_world.engines import VLLMEngine


class Recording(VLLMEngine):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.requests = []

    async def complete(self, request):
        self.requests.append(request)
        return await super().complete(request)


async def replay_seconds(url: str, requests: list, concurrency: int) -> float:
    """Wall seconds to send `requests` straight to the engine at `concurrency`."""
    engine = VLLMEngine(url, model=None, timeout_s=600)
    sem = asyncio.Semaphore(concurrency)

    async def one(r):
        async with sem:
            await engine.complete(r)

    t0 = time.perf_counter()
    await asyncio.gather(*(one(r) for r in requests))
    elapsed = time.perf_counter() - t0
    await engine.aclose()
    return elapsed
