"""The `agentworld` dialect: the conversation format Qwen-AgentWorld was trained on.

    system     "# Role and Objective" — a per-domain world-model prompt (ours, in that model's
               conventions: role, core responsibilities, state and action rules, output rules)
    user       ### Turn N
               **Current State:** (the explicit state's summary; the current turn only)
               **Action:**
               ```json
               {"name": "execute_bash", "arguments": {"command": "ls"}}
               ```
    assistant  **Environment Observation:**
               <the observation>        (GUI domains: inside one <predicted_observation> block)

The model thinks first (`<think>…</think>`, or a separate reasoning field when vLLM runs with
`--reasoning-parser qwen3`); `split` removes the thinking, which the simulator logs beside the step
and never shows the agent. Thinking can be switched off (`enable_thinking: false` through the chat
template) and is given its own token budget on top of the observation's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ..domain import Domain, load_domain
from ..errors import FormatError
from ..engines import Message
from ..world import World
from .base import Rendered, Turn, estimate_tokens

MARKER = "**Environment Observation:**"
OPEN, CLOSE = "<predicted_observation>", "</predicted_observation>"
class AgentWorldDialect:
    name = "agentworld"

    def __init__(self, thinking: bool = True, thinking_budget: int = 4096) -> None:
        self.thinking = thinking
        self.thinking_budget = thinking_budget if thinking else 0

    @property
    def extra_tokens(self) -> int:
        return self.thinking_budget

    def system_prompt(self, world: World, domain: Domain) -> str:
        role, observation = domain.agentworld.role, domain.agentworld.observation
        gui = domain.agentworld.wrapped
        output = (f"First, think step by step about what the action does to the environment. Then give the "
                  f"complete next observation wrapped strictly within `{OPEN}{CLOSE}` tags; inside the tags, "
                  f"only the observation." if gui else
                  f"First, think step by step about what the action does to the environment. Then answer with "
                  f"`{MARKER}` on its own line followed by the observation exactly as the tool returns it, "
                  f"with no commentary.")
        parts = [
            "# Role and Objective",
            f"You are a **{role}** — a precise simulator of the environment described below. Your task is "
            "to predict the exact next environment observation after an agent action is executed.",
            "## Core Responsibilities",
            "1. **State Prediction**: produce the complete observation the real environment returns.\n"
            "2. **Context Maintenance**: everything established in earlier turns (files written, pages "
            "visited, settings changed, items created) persists; never contradict it.\n"
            "3. **Behavioral Fidelity**: behave like the real environment, including errors, invalid "
            "actions and actions with no visible effect.",
            "## Observation Format",
            f"An observation is {observation}.",
            "## Output Requirements",
            output,
            "## Environment",
            f"**{world.name}**: {world.description.strip()}",
        ]
        if domain.tools_from_world:
            parts.append("### Tools\n" + "\n".join(
                f"- `{t.name}`: {t.description.splitlines()[0] if t.description else ''} "
                f"input schema {json.dumps(t.input_schema, ensure_ascii=False)[:800]}" for t in domain.tools))
        seed = world.seed_text(domain.name)
        if seed:
            parts.append(f"### Initial State\n{seed}")
        return "\n\n".join(parts)

    def render(self, world: World, domain: Domain, state: dict[str, Any], history: Sequence[Turn],
               action: str, answer_prefix: str, budget_tokens: int, note: str = "", prefill: bool = True) -> Rendered:
        system = self.system_prompt(world, domain)
        names = domain.agentworld.action_names
        demos = [Turn(action_json(d.tool, d.arguments, names), d.observation) for d in domain.demonstrations]
        demos += [Turn(action_json(d.tool, d.arguments, names), d.observation)
                  for d in world.demonstrations if domain.tool(d.tool)]
        turns = demos + list(history)
        current_n = len(turns) + 1
        current = _user_turn(current_n, action, note)
        fixed = estimate_tokens(system) + estimate_tokens(current)
        kept: list[Turn] = []
        remaining = budget_tokens - fixed
        for turn in reversed(turns):  # the most recent turns matter most
            cost = estimate_tokens(turn.action) + estimate_tokens(turn.observation) + 16
            if cost > remaining:
                break
            kept.insert(0, turn)
            remaining -= cost
        first = current_n - len(kept)
        messages: list[Message] = [{"role": "system", "content": system}]
        for n, turn in enumerate(kept, first):
            messages.append({"role": "user", "content": _user_turn(n, turn.action, "")})
            messages.append({"role": "assistant", "content": f"{MARKER}\n{turn.observation}"})
        messages.append({"role": "user", "content": _user_turn(current_n, action, note)})
        # History comes after the demonstrations, so the kept suffix holds history first. top_k 20 and no
        # repetition penalty: the model's recommended sampling (with temperature 0.6, top_p 0.95:
        # `serve --temperature 0.6`).
        return Rendered(messages, history_used=min(len(kept), len(history)), extra_tokens=self.thinking_budget,
                        constrained=False, thinking=self.thinking, top_k=20, repetition_penalty=1.0)

    def action_text(self, tool: Any, arguments: dict[str, Any]) -> str:
        return action_json(tool.name, arguments, load_domain(tool.domain).agentworld.action_names)

    def extract(self, completion: str) -> str:
        if "<think>" in completion and "</think>" not in completion.split("<think>", 1)[1]:
            raise FormatError(f"the answer ended inside its thinking, with no observation (the thinking "
                              f"budget is {self.thinking_budget} tokens: raise --thinking-budget or use --no-thinking)")
        return split(completion)[1]

    def thinking_of(self, completion: str) -> str:
        return split(completion)[0]

    def completion_for(self, observation: str, rendered: Rendered) -> str:
        # As earlier turns are shown in the history (real data has no thinking to imitate).
        return f"{MARKER}\n{observation}"


def action_json(tool: str, arguments: dict[str, Any], names: dict[str, str] | None = None) -> str:
    """The action as this model reads it: a JSON block naming the action (by the name it was trained
    on, where the domain gives one) and its arguments."""
    return json.dumps({"name": (names or {}).get(tool, tool), "arguments": arguments}, ensure_ascii=False)


def _user_turn(n: int, action: str, note: str) -> str:
    state = f"**Current State:**\n{note}\n\n" if note else ""
    return f"### Turn {n}\n{state}**Action:**\n```json\n{action}\n```"


def split(completion: str) -> tuple[str, str]:
    """(thinking, observation) of a raw answer. The thinking is `<think>…</think>` (or everything
    before a lone `</think>`: the chat template opened it); an unclosed `<think>` is all thinking
    (the budget ran out) and leaves no observation. The observation is the last complete
    `<predicted_observation>` block, else an unclosed one's rest, else the whole answer, without the
    `**Environment Observation:**` marker."""
    text = completion
    thinking = ""
    if "<think>" in text:
        before, _, rest = text.partition("<think>")
        if "</think>" in rest:
            thinking, _, after = rest.partition("</think>")
            text = before + after
        else:
            thinking, text = rest, before
    elif "</think>" in text:
        thinking, _, text = text.partition("</think>")
    blocks = re.findall(re.escape(OPEN) + r"(.*?)" + re.escape(CLOSE), text, re.S)
    if blocks:
        text = blocks[-1]
    elif OPEN in text:
        text = text.split(OPEN, 1)[1]  # cut off at the token limit before the closing tag
    text = text.replace(CLOSE, "")
    if MARKER in text:
        text = text.split(MARKER, 1)[1]  # a sentence before the marker is not part of the observation
    text = text.lstrip(" \t").removeprefix("\n").rstrip()
    fence = re.fullmatch(r"```[\w-]*\n(.*?)\n?```", text, re.S)
    if fence:
        text = fence.group(1).rstrip()
    return thinking.strip(), text + ("\n" if text else "")
