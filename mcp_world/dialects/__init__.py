"""Dialects render (world, state, history, action) into messages for a model family.

Registered by name; `get_dialect("instruct")`. A new dialect is one module added to `DIALECTS`.
`auto` (the default) picks one per episode from the engine's model name (`dialect_for_model`).
"""

from __future__ import annotations

from typing import Any

from ..errors import UnknownName
from .agentworld import AgentWorldDialect, OfficialPrompts
from .base import Dialect, Rendered, Turn
from .instruct import InstructDialect

DIALECTS: dict[str, type] = {"instruct": InstructDialect, "agentworld": AgentWorldDialect}


class AutoDialect:
    """Chooses the dialect when an episode starts, from the model its engine serves."""

    name = "auto"

    def __init__(self, **options: Any) -> None:
        if options.get("prompts") is not None:  # read (and checked) once, not per episode
            options["prompts"] = OfficialPrompts(options["prompts"]) \
                if not isinstance(options["prompts"], OfficialPrompts) else options["prompts"]
        self.options = options

    def for_model(self, model: str) -> Dialect:
        return get_dialect(dialect_for_model(model), **self.options)


def dialect_for_model(model: str) -> str:
    """The dialect a model name calls for: Qwen-AgentWorld checkpoints (and adapters named after them)
    speak `agentworld`; everything else gets `instruct`."""
    return "agentworld" if "agentworld" in model.lower().replace("-", "").replace("_", "") else "instruct"


def get_dialect(name: str, **options: Any) -> Any:
    """`options` (thinking, thinking_budget, prompts) go to the dialects that take them."""
    if name == "auto":
        return AutoDialect(**options)
    try:
        cls = DIALECTS[name]
    except KeyError:
        raise UnknownName(f"unknown dialect {name!r}; known: auto, {', '.join(sorted(DIALECTS))}") from None
    return cls(**options) if cls is AgentWorldDialect else cls()


__all__ = ["DIALECTS", "AutoDialect", "Dialect", "Rendered", "Turn", "dialect_for_model", "get_dialect"]
