"""The `instruct` dialect, for small general instruct models (the embedded SmolLM2 among them).

Two layouts, both append-only so the engine's prefix cache is reused from step to step:

* terminal — a *transcript*: the system prompt holds the domain's rules and the world; the
  assistant's answer is prefilled with the session so far (demonstrations, then this episode's
  steps) as a real terminal shows it, `user@host:~/dir$ command` lines and their output, ending
  at the new command. The model continues the transcript and is stopped at the next prompt line.
  Measured on the embedded model: chat turns made it explain commands; the transcript makes it
  print output-shaped text.
* documents (HTML, uiautomator XML) — chat turns: user = the action, assistant = the document;
  the new answer is prefilled with the document's head from the format. The terminal takes this
  layout too on an engine that cannot continue a prefill (engines/profiles.py). A domain with a
  compact form (`Rules.compact`: the phone's screens as outlines) is shown, and answers, in it;
  the domain's code turns the answer back into the tool's observation.
Plain text either way: forcing the tiny model into JSON made its answers worse (STACK.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..domain import Domain
from ..engines import Message
from ..rules import Call, Transcript
from ..world import World
from .base import Rendered, Turn, estimate_tokens

WINDOW_CHUNK = 8  # history turns dropped at once when an episode outgrows the context
TRANSCRIPT_REQUEST = "Continue the terminal session: print exactly what the last command outputs, nothing else."


class InstructDialect:
    name = "instruct"

    def system_prompt(self, world: World, domain: Domain, state: dict[str, Any]) -> str:
        parts = [domain.system_prompt, f"# The world: {world.name}\n{world.description.strip()}"]
        if domain.tools_from_world:
            parts.append("# The server's tools\n" + "\n".join(_tool_line(t) for t in domain.tools))
        seed = world.seed_text(domain.name)
        if seed:
            parts.append(f"# Initial state\n{seed}")
        facts = state.get("facts")
        if facts:
            parts.append("# Established so far\n" + json.dumps(facts, ensure_ascii=False))
        return "\n\n".join(p for p in parts if p)

    def render(self, world: World, domain: Domain, state: dict[str, Any], history: Sequence[Turn],
               action: str, answer_prefix: str, budget_tokens: int, note: str = "", prefill: bool = True,
               call: Any = None) -> Rendered:
        system = self.system_prompt(world, domain, state)
        demos = [Turn(_action(domain, d.tool, d.arguments), d.observation, tool=d.tool, arguments=d.arguments)
                 for d in domain.demonstrations_for(world, seen=bool(history))]
        shown = None
        if domain.rules.compact and call is not None:
            rules = domain.rules
            # Each turn is shown against the one before it: demonstrations in their file's order,
            # the episode's steps from the world's first screen.
            demos = _compacted(rules, demos, "")
            history = _compacted(rules, history, rules.trained_screen(world, rules.initial(world)))
            answer_prefix = rules.compact_prefill(call)
            if rules.compact_screen:  # the answer is written against the screen now: show it whole
                action = f"The screen now:\n{rules.trained_screen(world, state)}\n{action}"

            def shown(text: str) -> str:
                return rules.shown(text, call)
        # The transcript is a prefill. An engine that cannot continue one gets chat turns instead:
        # measured on the embedded model through the openai profile, the transcript given as an
        # instruction got an empty output for 6 of 6 commands, chat turns an output for each.
        layout = domain.rules.transcript(world, state) if prefill else None
        if layout is not None:
            where = domain.rules.where(state) or layout.start
            return self._transcript(layout, where, system, demos, history, action, budget_tokens, note)
        current = f"{action}\n\n(Current state: {note})" if note else action
        fixed = estimate_tokens(system) + estimate_tokens(current) + estimate_tokens(answer_prefix)
        kept_demos, kept_history = _fit(demos, history, budget_tokens - fixed, _chat_cost)
        messages: list[Message] = [{"role": "system", "content": system}]
        for turn in kept_demos + kept_history:
            messages.append({"role": "user", "content": turn.action})
            messages.append({"role": "assistant", "content": turn.observation})
        messages.append({"role": "user", "content": current})
        if shown is not None:  # the answer is read back by the domain (`read`), its prefill with it
            return Rendered(messages, prefill=answer_prefix, answer_prefix="", history_used=len(kept_history),
                            shown=shown, max_tokens=domain.rules.compact_max_tokens)
        return Rendered(messages, prefill=answer_prefix, answer_prefix=answer_prefix,
                        history_used=len(kept_history))

    def _transcript(self, layout: Transcript, where: str, system: str, demos: list[Turn],
                    history: Sequence[Turn], action: str, budget: int, note: str = "") -> Rendered:
        prompt_of = layout.prompt
        # Demonstrations run where the world starts; history carries where each step ran.
        demo_turns = [Turn(prompt_of(layout.start) + t.action.removeprefix("$ "), t.observation) for t in demos]
        hist_turns = [Turn(prompt_of(t.where or layout.start) + t.action.removeprefix("$ "), t.observation)
                      for t in history]
        now = prompt_of(where) + action.removeprefix("$ ")
        if note:  # the state as a shell comment just before the command: after the history, so the prefix holds
            now = prompt_of(where) + "# state: " + note.replace("\n", " ") + "\n" + now
        fixed = estimate_tokens(system) + estimate_tokens(TRANSCRIPT_REQUEST) + estimate_tokens(now)
        kept_demos, kept_history = _fit(demo_turns, hist_turns, budget - fixed, _transcript_cost)
        text = "".join(_transcript_entry(t) for t in kept_demos + kept_history) + now + "\n"
        messages: list[Message] = [
            {"role": "system", "content": system},
            {"role": "user", "content": TRANSCRIPT_REQUEST},
        ]
        return Rendered(messages, prefill=text, answer_prefix="", stop=layout.stop,
                        history_used=len(kept_history))

    def action_text(self, tool: Any, arguments: dict[str, Any]) -> str:
        return tool.render_action(arguments)

    def read(self, world: World, domain: Domain, call: Any, raw: str, history: Sequence[Turn]) -> str:
        if domain.rules.compact:  # the domain's compact form, continued from its prefill
            head = domain.rules.compact_prefill(call)
            whole = raw if head and raw.lstrip().startswith(head.strip()) else head + raw  # an engine may repeat it
            return domain.rules.unshown(whole, call)
        return raw  # observations are shown as our tools give them

    def extract(self, completion: str) -> str:
        return completion

    def thinking_of(self, completion: str) -> str:
        return ""

    def completion_for(self, observation: str, rendered: Rendered) -> str:
        if rendered.stop:  # a transcript: the output, then the next prompt line (where the server stops)
            if observation and not observation.endswith("\n"):
                observation += "\n"
            return observation + rendered.stop[-1]
        if rendered.shown is not None:
            return rendered.shown(observation).removeprefix(rendered.prefill)
        return observation.removeprefix(rendered.answer_prefix)


def _tool_line(tool: Any) -> str:
    schema = json.dumps(tool.input_schema.get("properties", {}), ensure_ascii=False, separators=(",", ":"))
    if len(schema) > 600:
        schema = schema[:600] + "…"
    return f"- {tool.name}: {tool.description.splitlines()[0] if tool.description else ''} arguments {schema}"


def _transcript_entry(turn: Turn) -> str:
    out = turn.observation
    if out and not out.endswith("\n"):
        out += "\n"
    return f"{turn.action}\n{out}"


def _compacted(rules: Any, turns: Sequence[Turn], before: str) -> list[Turn]:
    out = []
    for t in turns:
        out.append(replace(t, observation=rules.shown(t.observation, Call(t.tool, t.arguments, {}), before)))
        before = t.observation
    return out


def _chat_cost(t: Turn) -> int:
    return estimate_tokens(t.action) + estimate_tokens(t.observation)


def _transcript_cost(t: Turn) -> int:
    return estimate_tokens(t.action + "\n" + t.observation) + 2


def _fit(demos: list[Turn], history: Sequence[Turn], remaining: int, cost) -> tuple[list[Turn], list[Turn]]:
    """Recent history matters most, then demonstrations; the oldest history goes first, and at least
    one demonstration stays whenever it fits at all."""
    reserve = cost(demos[0]) if demos else 0
    kept_history: list[Turn] = []
    for turn in reversed(history):
        c = cost(turn)
        if c > remaining - reserve:
            break
        kept_history.insert(0, turn)
        remaining -= c
    dropped = len(history) - len(kept_history)
    if dropped:
        # Drop the oldest turns in whole chunks: the window's start then stays put for several steps,
        # and so does the prompt prefix the engine has cached.
        cut = -(-dropped // WINDOW_CHUNK) * WINDOW_CHUNK
        for turn in kept_history[: cut - dropped]:
            remaining += cost(turn)
        kept_history = kept_history[cut - dropped:]
    kept_demos: list[Turn] = []
    for turn in demos:
        c = cost(turn)
        if c > remaining:
            break
        kept_demos.append(turn)
        remaining -= c
    return kept_demos, kept_history


def _action(domain: Domain, tool: str, arguments: dict[str, Any]) -> str:
    t = domain.tool(tool)
    return t.render_action(arguments) if t else f"{tool}({json.dumps(arguments)})"
