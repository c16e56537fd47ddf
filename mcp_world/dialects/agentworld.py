"""The `agentworld` dialect: the conversation format Qwen-AgentWorld was trained on (facts from
the model's own repository, QwenLM/Qwen-AgentWorld: `eval/eval.py`, `prompts/<domain>/`).

    system     the domain's world-model prompt: "# Role and Objective" … the action space, the tool
               definitions and few-shot examples where the domain has those slots, then the world
               (ours, in our words and that structure; or the model's own `system_prompt.txt` files
               from the user's copy of its repository: --agentworld-prompts DIR)
    user       ### Turn N
               **Current State:**        (the first turn shown only: the screen it starts from)
               <the terminal's prompt line, the page, the phone's dump, the desktop's tree>

               **Action:**
               ```json                   (```python for code actions: web, desktop)
               <the action as the model was trained on it>
               ```
    assistant  **Environment Observation:**
               <the observation as the model was trained on it>

Each domain maps our tool calls onto the trained action space and our observations onto the
trained ones and back (`Rules.trained_action`, `trained_observation`, `from_trained`; the table
is `agentworld.md` in the domain's folder): a `run_command` is a keystroke array and its output a
terminal screen, a click on a page is BrowserGym's `click(bid)` on element ids the page carries,
a desktop click is `pyautogui.click(x, y)`. The model thinks first (`<think>…</think>`, or a
separate reasoning field under `--reasoning-parser qwen3`); `split` removes the thinking, which the
simulator logs beside the step and never shows the agent. The explicit state's summary is not sent:
the trained format has no place for it (state answers still apply in `--state full`).
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..domain import Domain, load_domain
from ..errors import FormatError, WorldFileError
from ..engines import Message
from ..rules import Call, Moment, Rules, TrainedAction
from ..world import World
from .base import Rendered, Turn, estimate_tokens

MARKER = "**Environment Observation:**"
OPEN, CLOSE = "<predicted_observation>", "</predicted_observation>"
TOOLS_SLOT, DEMOS_SLOT = "{tool_definitions}", "{demonstrations}"
SAMPLING = {"temperature": 0.6, "top_p": 0.95, "top_k": 20}  # the model card's recommendation
MAX_CACHED_SYSTEMS = 64  # (world, domain) pairs whose system prompt is kept
MAX_CACHED_TURNS = 1024  # earlier turns kept in the trained form (bounded: pages can be large)


class OfficialPrompts:
    """The model's own system prompts, read from the user's copy of its repository (the project
    ships none of that text). `root` is the clone or its `prompts/` folder; each domain's file is
    `<folder>/system_prompt.txt` (and `judge_system_prompt.txt` for the judge)."""

    def __init__(self, root: str | Path) -> None:
        root = Path(root).expanduser()
        if not root.is_dir():
            raise WorldFileError(f"--agentworld-prompts {root}: not a folder (give a copy of the Qwen-AgentWorld "
                                 f"repository, or its prompts/ folder)")
        self.root = root / "prompts" if (root / "prompts").is_dir() else root
        found = sorted(p.parent.name for p in self.root.glob("*/system_prompt.txt"))
        if not found:
            raise WorldFileError(f"--agentworld-prompts {root}: no <domain>/system_prompt.txt files in "
                                 f"{self.root} (expected e.g. prompts/terminal/system_prompt.txt)")
        self.folders = found

    def text(self, folder: str, name: str = "system_prompt.txt") -> str:
        path = self.root / folder / name
        if not path.is_file():
            raise WorldFileError(f"--agentworld-prompts: {path} is missing (this copy has prompts for "
                                 f"{', '.join(self.folders)})")
        return path.read_text(encoding="utf-8")


class AgentWorldDialect:
    name = "agentworld"

    def __init__(self, thinking: bool = True, thinking_budget: int = 4096,
                 prompts: str | Path | OfficialPrompts | None = None) -> None:
        self.thinking = thinking
        self.thinking_budget = thinking_budget if thinking else 0
        self.prompts = prompts if isinstance(prompts, OfficialPrompts) or prompts is None else OfficialPrompts(prompts)
        # Every step re-renders the system prompt and the history in the trained form; both depend only on
        # what they show, so they are kept (bounded) instead of redone — a browser history otherwise
        # re-parses every earlier page at every step.
        self._systems: OrderedDict[tuple[int, int], tuple[World, Domain, str]] = OrderedDict()
        self._turns: OrderedDict[tuple, tuple[World, TrainedAction, str]] = OrderedDict()

    @property
    def extra_tokens(self) -> int:
        return self.thinking_budget

    # -- the system prompt ------------------------------------------------------------------------
    def system_prompt(self, world: World, domain: Domain) -> str:
        key = (id(world), id(domain))
        hit = self._systems.get(key)
        if hit is not None and hit[0] is world and hit[1] is domain:  # the entry holds both: ids are not reused
            self._systems.move_to_end(key)
            return hit[2]
        text = self._system_prompt(world, domain)
        self._systems[key] = (world, domain, text)
        if len(self._systems) > MAX_CACHED_SYSTEMS:
            self._systems.popitem(last=False)
        return text

    def _system_prompt(self, world: World, domain: Domain) -> str:
        folder = domain.agentworld.folder
        if self.prompts is not None and folder is not None:
            text = self.prompts.text(folder)
            tools, demos = self._tool_definitions(domain), self._demonstrations(world, domain)
            text = text.replace(TOOLS_SLOT, tools) if TOOLS_SLOT in text else text
            text = text.replace(DEMOS_SLOT, demos) if DEMOS_SLOT in text else text + demos
            return text.rstrip() + "\n\n---\n\n" + self._environment(world, domain)
        return self._our_prompt(world, domain)

    def _our_prompt(self, world: World, domain: Domain) -> str:
        info = domain.agentworld
        output = (f"First, think step by step about what the action does to the environment. Then output exactly "
                  f"one complete and closed `{OPEN}{CLOSE}` block holding the whole next state and nothing else; "
                  f"keep every part the action does not touch as it was." if info.wrapped else
                  f"First, think step by step about what the action does to the environment. Then answer with "
                  f"`{MARKER}` on its own line followed by the observation exactly as the environment shows it, "
                  f"with no commentary.")
        parts = [
            "# Role and Objective",
            f"You are {'an' if info.role[:1].lower() in 'aeiou' else 'a'} **{info.role}** — a precise simulator of "
            "the environment described below. Your task is "
            "to predict the exact next environment observation after an agent action is executed.",
            "## Task Definition",
            "Given the earlier turns of this session (each an action and what the environment showed), the state "
            "the session started from, and the current action, predict what the environment shows next.",
            "## Core Responsibilities",
            "1. **State Prediction**: produce the complete observation the real environment returns.\n"
            "2. **Context Maintenance**: everything established in earlier turns (files written, pages "
            "visited, settings changed, items created) persists; never contradict it.\n"
            "3. **Behavioral Fidelity**: behave like the real environment, including errors, invalid "
            "actions and actions with no visible effect.",
            "---",
            "# Input Definitions & Action Space",
        ]
        if info.actions:
            parts.append(info.actions.strip())
        tools = self._tool_definitions(domain)
        if tools:
            parts.append("You can simulate the following tools:\n\n" + tools)
        parts += ["---", "# Predicted Observation Requirements", f"An observation is {info.observation}.", output]
        text = "\n\n".join(parts) + self._demonstrations(world, domain)
        return text + "\n\n---\n\n" + self._environment(world, domain)

    def _tool_definitions(self, domain: Domain) -> str:
        """The tools as JSON (by their trained names), for domains whose actions are JSON tool calls."""
        if not domain.tools or not _is_call(domain):
            return ""
        names = domain.agentworld.action_names
        return json.dumps([{"name": names.get(t.name, t.name), "description": t.description.strip(),
                            "parameters": t.input_schema} for t in domain.tools], indent=2, ensure_ascii=False)

    def _demonstrations(self, world: World, domain: Domain) -> str:
        """The demonstrations as one example session, in the conversation's turn layout (each acts on
        the screen the one before it left)."""
        demos = domain.demonstrations_for(world)
        if not demos:
            return ""
        start = domain.rules.initial(world)
        where = domain.rules.where(start)
        turns, screen = [], ""
        for n, d in enumerate(demos, 1):
            moment = Moment(world, screen, where, where, start)
            call = Call(d.tool, dict(d.arguments), start, spec=domain.tool(d.tool))
            observation = domain.rules.trained_observation(d.observation, call, moment)
            first = domain.rules.trained_screen(world, start, where) if n == 1 else ""
            turns.append(_user_turn(n, _trained(domain, d.tool, d.arguments, moment, call), first)
                         + f"\n{MARKER}\n{observation}")
            screen = d.observation
        return "\n\n# Few-shot Examples\n\n## Example 1\n" + "\n\n".join(turns)

    def _environment(self, world: World, domain: Domain) -> str:
        seed = world.seed_text(domain.name)
        text = f"# Environment\n\n**{world.name}**: {world.description.strip()}"
        return text + (f"\n\n## Initial State\n{seed}" if seed else "")

    # -- the conversation ---------------------------------------------------------------------------
    def render(self, world: World, domain: Domain, state: dict[str, Any], history: Sequence[Turn],
               action: str, answer_prefix: str, budget_tokens: int, note: str = "", prefill: bool = True,
               call: Call | None = None) -> Rendered:
        system = self.system_prompt(world, domain)
        shown = self._shown(world, domain, state, history)
        where = domain.rules.where(state)
        now = Moment(world, history[-1].observation if history else "", where, where, state)
        current_action = _trained(domain, call.tool, call.arguments, now, call) if call is not None \
            else TrainedAction(action)
        current_n = len(shown) + 1
        fixed = estimate_tokens(system) + estimate_tokens(current_action.text) + 32
        kept: list[tuple[TrainedAction, str, str]] = []
        # Room for the screen the first turn shown starts from (the trained format's `**Current State:**`),
        # sized by the current screen.
        reserve = estimate_tokens(domain.rules.trained_screen(world, state, where))
        remaining = budget_tokens - fixed - reserve
        for turn in reversed(shown):  # the most recent turns matter most
            cost = estimate_tokens(turn[0].text) + estimate_tokens(turn[1]) + 16
            if cost > remaining:
                break
            kept.insert(0, turn)
            remaining -= cost
        first = current_n - len(kept)
        start = kept[0][2] if kept else domain.rules.trained_screen(world, state, where)
        if estimate_tokens(start) > remaining + reserve:
            start = ""
        messages: list[Message] = [{"role": "system", "content": system}]
        for n, (act, observation, _) in enumerate(kept, first):
            messages.append({"role": "user", "content": _user_turn(n, act, start if n == first else "")})
            messages.append({"role": "assistant", "content": f"{MARKER}\n{observation}"})
        messages.append({"role": "user", "content": _user_turn(current_n, current_action, "" if kept else start)})
        return Rendered(messages, history_used=min(len(kept), len(history)), extra_tokens=self.thinking_budget,
                        constrained=False, thinking=self.thinking, top_k=SAMPLING["top_k"], repetition_penalty=1.0,
                        temperature=SAMPLING["temperature"],
                        shown=_shown_as_trained(domain, call, now) if call is not None else None)

    def _shown(self, world: World, domain: Domain, state: dict[str, Any],
               history: Sequence[Turn]) -> list[tuple[TrainedAction, str, str]]:
        """Each earlier turn as (trained action, trained observation, the screen it started from)."""
        start_state = domain.rules.initial(world)
        whole_screens = domain.agentworld.wrapped  # a GUI's screen is its last observation; a shell's, its prompt
        shown: list[tuple[TrainedAction, str, str]] = []
        for i, turn in enumerate(history):
            after = history[i + 1].where if i + 1 < len(history) else domain.rules.where(state)
            moment = Moment(world, history[i - 1].observation if i else "", turn.where, after,
                            state if i else start_state)
            if turn.tool and domain.tool(turn.tool):
                act, observation = self._turn(world, domain, turn, moment, bool(i))
            else:  # a turn logged without its call (older logs): as it was rendered then
                act, observation = TrainedAction(turn.action), turn.observation
            screen = shown[-1][1] if i and whole_screens else \
                domain.rules.trained_screen(world, moment.state, turn.where)
            shown.append((act, observation, screen))
        return shown

    def _turn(self, world: World, domain: Domain, turn: Turn, moment: Moment, later: bool) -> tuple[TrainedAction, str]:
        """One earlier turn's trained action and observation, kept for the next steps. What they depend
        on is the key: the call, its observation, the screen before it, where it ran and where the next
        ran (and, for the first turn, the world's start: `later` is False)."""
        key = (id(world), domain.name, turn.tool, json.dumps(turn.arguments, sort_keys=True, default=str),
               turn.observation, moment.screen, moment.before, moment.after, later)
        hit = self._turns.get(key)
        if hit is not None and hit[0] is world:  # the entry holds the world: its id is not reused
            self._turns.move_to_end(key)
            return hit[1], hit[2]
        call = Call(turn.tool, dict(turn.arguments), moment.state, spec=domain.tool(turn.tool))
        act = _trained(domain, turn.tool, turn.arguments, moment, call)
        observation = domain.rules.trained_observation(turn.observation, call, moment)
        self._turns[key] = (world, act, observation)
        if len(self._turns) > MAX_CACHED_TURNS:
            self._turns.popitem(last=False)
        return act, observation

    def read(self, world: World, domain: Domain, call: Call, raw: str, history: Sequence[Turn]) -> str:
        """The model's observation (thinking and markers removed) read back as our tool's."""
        where = domain.rules.where(call.state)
        moment = Moment(world, history[-1].observation if history else "", where, where, call.state)
        return domain.rules.from_trained(raw, call, moment)

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
        # As earlier turns are shown in the history, in the trained form (real data has no thinking to imitate).
        return f"{MARKER}\n{rendered.shown(observation) if rendered.shown else observation}"


def _shown_as_trained(domain: Domain, call: Call, now: Moment) -> Any:
    """Our observation of `call` in the trained form; where the next step runs is read from the
    state the observation leads to (a `cd` moves the terminal's next prompt)."""

    def shown(text: str) -> str:
        after = now.before
        try:
            parsed = domain.rules.parse(text, call)
            after = domain.rules.where(domain.rules.apply(dict(now.state), call, text, parsed.structured)) or after
        except (FormatError, ValueError):
            pass
        return domain.rules.trained_observation(text, call, replace(now, after=after))

    return shown


def _trained(domain: Domain, tool: str, arguments: dict[str, Any], moment: Moment,
             call: Call | None = None) -> TrainedAction:
    call = call or Call(tool, dict(arguments), moment.state, spec=domain.tool(tool))
    found = domain.rules.trained_action(call, moment) if domain.tool(tool) else None
    if found is not None:
        return found
    return TrainedAction(action_json(tool, arguments, domain.agentworld.action_names, indent=2))


def _is_call(domain: Domain) -> bool:
    """The domain's actions are JSON tool calls `{"name", "arguments"}` (mcp, swe, search): its rules
    leave `trained_action` to the default."""
    return type(domain.rules).trained_action is Rules.trained_action


def action_json(tool: str, arguments: dict[str, Any], names: dict[str, str] | None = None,
                indent: int | None = None) -> str:
    """The action as this model reads a tool call: a JSON object naming the tool (by the name it was
    trained on, where the domain gives one) and its arguments."""
    return json.dumps({"name": (names or {}).get(tool, tool), "arguments": arguments}, ensure_ascii=False,
                      indent=indent)


def _user_turn(n: int, action: TrainedAction | str, state: str) -> str:
    act = action if isinstance(action, TrainedAction) else TrainedAction(action)
    head = f"**Current State:**\n{state.rstrip()}\n\n" if state.strip() else ""
    return f"### Turn {n}\n{head}**Action:**\n```{act.fence}\n{act.text}\n```"


def without_thinking(text: str, answer_tag: str = OPEN) -> tuple[str, str]:
    """(thinking, the rest) of an answer, as the reference evaluation removes thinking: closed
    `<think>…</think>` blocks (nested ones too), everything before a lone `</think>` (the chat
    template opened it), and an unclosed `<think>` up to `answer_tag` if one follows, else to the end
    (the budget ran out)."""
    thinking: list[str] = []
    while "</think>" in text:
        head, _, text = text.partition("</think>")
        before, opened, inside = head.rpartition("<think>")
        thinking.append(inside if opened else head)
        if opened:
            text = before + text
    if "<think>" in text:
        before, _, rest = text.partition("<think>")
        thought, tag, tail = rest.partition(answer_tag)
        thinking.append(thought)
        text = before + tag + tail
    return "\n".join(t.strip() for t in thinking if t.strip()), text


def split(completion: str) -> tuple[str, str]:
    """(thinking, observation) of a raw answer: thinking removed as `without_thinking` does; the
    observation is the last complete `<predicted_observation>` block, else an unclosed one's rest,
    else the whole answer, without the `**Environment Observation:**` marker or a code fence
    around it all."""
    thinking, text = without_thinking(completion)
    blocks = re.findall(re.escape(OPEN) + r"(.*?)" + re.escape(CLOSE), text, re.S)
    if blocks:
        text = blocks[-1]
    elif OPEN in text:
        text = text.rsplit(OPEN, 1)[1]  # cut off at the token limit before the closing tag
    text = text.replace(CLOSE, "")
    if MARKER in text:
        text = text.split(MARKER, 1)[1]  # a sentence before the marker is not part of the observation
    text = text.lstrip(" \t").removeprefix("\n").rstrip()
    fence = re.fullmatch(r"```[\w-]*\n(.*?)\n?```", text, re.S)
    if fence:
        text = fence.group(1).rstrip()
    return thinking, text + ("\n" if text else "")


__all__ = ["MARKER", "SAMPLING", "AgentWorldDialect", "OfficialPrompts", "action_json", "split", "without_thinking"]
