"""What every engine provides: a `complete(CompletionRequest) -> Completion` call, plus the pool that
sticks each episode to one engine. A request says what it wants in typed fields (a grammar, a JSON
schema, top_k, thinking on or off); each engine class turns them into its own wire format, so
fields only one server understands are built in that engine's module and nowhere else."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from ..errors import AgentFault, FaultKind


Message = dict[str, str]


@dataclass(frozen=True)
class CompletionRequest:
    messages: list[Message]
    max_tokens: int
    seed: int
    temperature: float = 0.7
    top_p: float = 0.95
    prefill: str = ""  # continue the final assistant message from this text
    stop: tuple[str, ...] = ()
    top_k: int | None = None  # None: the engine's default
    repetition_penalty: float | None = None  # None: none
    frequency_penalty: float | None = None  # OpenAI's: against tokens the answer already repeats; None: none
    grammar: str | None = None  # the answer must follow this grammar (GBNF-style, continuing the prefill)
    json_schema: dict[str, Any] | None = None  # the answer must be a JSON document matching this schema
    thinking: bool | None = None  # a reasoning model may think first; None: the model's default
    n: int = 1  # how many answers to sample in this one request (OpenAI's `n`): they share one batch


@dataclass(frozen=True)
class Completion:
    text: str  # without the prefill
    prompt_tokens: int
    completion_tokens: int
    truncated: bool  # stopped at max_tokens
    model: str
    latency_ms: float
    reasoning: str = ""  # the thinking, when the engine's reasoning parser separates it
    continued: bool = True  # the text continues the request's prefill (False: a whole answer of its own)
    texts: tuple[str, ...] = ()  # every answer when the request asked for n > 1 (`text` is the first)


class StartGate:
    """Calls wait here while an engine owned by this process is still starting (set by a thread)."""

    def __init__(self, timeout_s: float = 600.0) -> None:
        import threading

        self._done = threading.Event()
        self.error: str | None = None
        self.timeout_s = timeout_s

    def open(self, error: str | None = None) -> None:
        self.error = error
        self._done.set()

    async def wait(self) -> None:
        import asyncio

        t0 = time.monotonic()
        while not self._done.is_set():
            if time.monotonic() - t0 > self.timeout_s:
                raise AgentFault(FaultKind.ENGINE_UNAVAILABLE, "the world-model engine is still starting; try again shortly")
            await asyncio.sleep(0.25)
        if self.error:
            raise AgentFault(FaultKind.ENGINE_UNAVAILABLE, f"the world-model engine failed to start: {self.error}")


class Engine(Protocol):
    url: str
    model: str

    async def complete(self, request: CompletionRequest) -> Completion: ...

    async def aclose(self) -> None: ...


def convert(err: httpx.HTTPError, url: str, timeout_s: float) -> AgentFault:
    if isinstance(err, httpx.TimeoutException):
        return AgentFault(FaultKind.ENGINE_TIMEOUT,
                          f"the world-model engine at {url} did not answer within {timeout_s:.0f} s; try again")
    return AgentFault(FaultKind.ENGINE_UNAVAILABLE,
                      f"the world-model engine at {url} is unreachable ({type(err).__name__}: {err}); try again shortly")


class EnginePool:
    """Several endpoints; an episode sticks to one (hash of its id) so its prefix cache stays warm."""

    def __init__(self, engines: list[Engine]) -> None:
        if not engines:
            raise ValueError("an engine pool needs at least one engine")
        self.engines = engines

    def for_episode(self, episode_id: str) -> Engine:
        h = int(hashlib.sha256(episode_id.encode()).hexdigest()[:8], 16)
        return self.engines[h % len(self.engines)]

    async def aclose(self) -> None:
        for e in self.engines:
            await e.aclose()
