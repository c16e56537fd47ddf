"""What every dialect provides."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..domain import Domain
from ..engines import Message
from ..rules import Call
from ..world import World


@dataclass(frozen=True)
class Turn:
    """One earlier step as the world model sees it: the action text and what was observed."""

    action: str
    observation: str
    where: str = ""  # where the action ran (the terminal's cwd), when the layout shows it
    tool: str = ""  # the call itself, for dialects that show it in a format of their own (agentworld)
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Rendered:
    messages: list[Message]
    prefill: str = ""  # the start of the model's answer, sent to the engine to continue
    answer_prefix: str = ""  # the part of the prefill that belongs to the observation itself
    stop: tuple[str, ...] = ()
    history_used: int = 0  # how many of the offered history turns fit the budget
    extra_tokens: int = 0  # tokens the answer may spend before the observation (thinking)
    max_tokens: int | None = None  # the answer's own limit (a compact form needs fewer than the domain's)
    constrained: bool = True  # a domain's grammar may apply (not when the answer is wrapped in markup)
    grammar: str | None = None  # this call's own grammar (the rules' `grammar` hook), else the domain's
    thinking: bool | None = None  # a reasoning model thinks first (None: the model's default)
    top_k: int | None = None  # sampling this model family wants (None: the engine's default)
    repetition_penalty: float | None = None  # None: the server's sampling settings decide
    temperature: float | None = None  # the model family's recommended temperature (None: the server's default)
    # Our observation of this step as the dialect shows observations (None: as it is): the trainer's target.
    shown: Callable[[str], str] | None = None

    def answer_tokens(self, domain_max_tokens: int) -> int:
        """The most tokens the engine may write for this answer: its own limit or the domain's, and
        what it may spend before the observation."""
        return (self.max_tokens or domain_max_tokens) + self.extra_tokens


class Dialect(Protocol):
    name: str

    def render(self, world: World, domain: Domain, state: dict[str, Any], history: Sequence[Turn],
               action: str, answer_prefix: str, budget_tokens: int, note: str = "", prefill: bool = True,
               call: Call | None = None) -> Rendered:
        """`note`: the explicit state's summary, placed after the history (the prefix stays stable).
        `prefill`: the engine can continue a prefilled answer (False: a layout that needs none).
        `call`: the call itself, for dialects that show actions in a format of their own."""
        ...

    def action_text(self, tool: Any, arguments: dict[str, Any]) -> str:
        """The action as this dialect shows it to the model."""
        ...

    def extract(self, completion: str) -> str:
        """The observation inside a raw completion (dialects with markers or thinking strip them)."""
        ...

    def read(self, world: World, domain: Domain, call: Call, raw: str, history: Sequence[Turn]) -> str:
        """The observation as our tool gives it, from the one the dialect asked for (the same text
        unless the dialect shows observations in a format of its own)."""
        ...

    def thinking_of(self, completion: str) -> str:
        """The reasoning in a raw completion, logged beside the step and never shown to the agent."""
        ...

    def completion_for(self, observation: str, rendered: Rendered) -> str:
        """The answer that, read as the server reads an answer, gives `observation` (the supervised
        warm start's target; the end-of-turn token is the trainer's to add)."""
        ...


def estimate_tokens(text: str) -> int:
    """A cheap, deliberately pessimistic token estimate: 2.5 characters a token (markup and prose run
    3-4 with SmolLM2's tokenizer; numbers and word fragments less). The simulator also corrects it
    with the prompt sizes the engine reports (Simulator._learn_ratio)."""
    return len(text) * 2 // 5 + 4
