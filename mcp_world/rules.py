"""The one interface a domain's code implements (DESIGN.md, "Domains").

A domain is a folder (`domains/<name>/`): data — `domain.yaml`, `prompt.md`, `demonstrations.jsonl`,
grammars — and, where the domain has state that can answer or be checked, a small rules module
(`rules.py`, or a `rules/` package) whose `rules` attribute is an instance of a `Rules` subclass.
The core calls these hooks and never asks which domain it is talking to. Every hook has a default,
so a folder with no code works: answers are taken as plain text, the history is the only memory,
nothing is answered from state.

    state     state_model, initial(world), answer(state, call), apply(state, call, text, structured),
              summary(state), where(state)
    answers   prefill(call), lead(call), parse(raw, call), is_error(parsed), agent_structured(call, parsed)
    seeds     seed_model (validates `seed.<domain>` of world files)
    prompts   transcript(world, state): a terminal-like domain's prompt line (instruct dialect)
    trained   trained_action(call, moment), trained_observation(text, call, moment),
              from_trained(raw, call, moment), trained_screen(world, state): the action and the
              observation as Qwen-AgentWorld was trained on them (the agentworld dialect; each domain's
              `agentworld.md` is the mapping's table)
    reports   risks(world, call): flags for the dry-run report beyond the patterns in domain.yaml;
              display(call): the action as a person reads it
    tasks     checks: the `Check` kinds a task file's `success` list may use for this domain (each
              reads the episode's explicit state and log, never the agent's claims)

Everything a domain module needs is importable from here: `Rules`, `Call`, `Parsed`,
`FormatError`, `Transcript` and the answer checks every text domain uses (`unfence`,
`sounds_like_commentary`, `degenerate`, `refuse_repetition`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import FormatError, RepetitionError, StateError

if TYPE_CHECKING:
    from .domain import Tool
    from .world import World

__all__ = ["Call", "Check", "EpisodeView", "Lead", "Moment", "TrainedAction", "TypedText", "UrlPattern", "FormatError", "Parsed", "RepetitionError", "Rules", "StateError", "StepView", "Transcript",
           "degenerate", "exit_code_for", "refuse_repetition", "sounds_like_commentary", "unfence"]


@dataclass
class Parsed:
    """An observation as the agent receives it: the text and its structured content."""

    text: str
    structured: dict[str, Any] = field(default_factory=dict)
    repaired: bool = False  # closed a truncated document; recorded on the step
    needs_structured: bool = False  # the tool has an outputSchema the text alone does not satisfy
    thinking: str = ""  # the world model's reasoning before this answer: logged, never shown to the agent


@dataclass(frozen=True)
class Call:
    """The call being answered, as a domain's hooks see it."""

    tool: str
    arguments: dict[str, Any]
    state: dict[str, Any]  # this domain's state before the call
    truncated: bool = False  # the engine stopped at max_tokens
    spec: Tool | None = None  # the tool being called (schemas, annotations, defaults)

    def filled(self) -> dict[str, Any]:
        """The arguments with the schema's defaults filled in."""
        return self.spec.with_defaults(self.arguments) if self.spec is not None else dict(self.arguments)


MAX_LEAD_CHARS = 400  # the most of a first part kept (48 tokens are about 200 characters)


@dataclass(frozen=True)
class Lead:
    """The first part of an answer: the model writes on from the prefill until `stop` (at most
    `max_tokens`); then `stop` and `rest` are added and the model writes the rest of the answer
    from there. The first part is one line of plain text (a title, a name): what the model wrote
    past a line break or markup is cut off, and a first part with nothing left is dropped (the
    answer is then written in one part as usual). A re-ask after a bad answer starts again from the
    same first part and what follows it."""

    stop: str
    rest: str
    max_tokens: int = 48

    def first(self, text: str) -> str | None:
        """The first part as written, up to a line break or markup (a model that wrote on past a
        title without closing it), and up to where a piece of it starts repeating (a model that
        looped to the limit); None when nothing is left."""
        line = text.removesuffix(self.stop).lstrip().split("\n", 1)[0].split("<", 1)[0]
        kept = unlooped(line[:MAX_LEAD_CHARS]).rstrip()  # an engine that ignored max_tokens: bounded anyway
        return kept or None


def unlooped(text: str, times: int = 3) -> str:
    """`text` up to where a piece of it (3 characters or more) starts repeating back to back `times`
    times: "A - B - B - B - B" is "A - B". Quadratic in the length: for short texts (a title)."""
    n = len(text)
    for start in range(n):
        for size in range(3, (n - start) // times + 1):
            unit = text[start:start + size]
            if all(text[start + k * size:start + (k + 1) * size] == unit for k in range(1, times)):
                return text[:start + size]
    return text


@dataclass(frozen=True)
class Transcript:
    """How a terminal-like domain shows a session: the prompt line before each action (`where` is
    where it ran, e.g. the cwd), where the demonstrations ran, and what ends an answer."""

    prompt: Callable[[str], str]
    start: str
    stop: tuple[str, ...]


@dataclass(frozen=True)
class TrainedAction:
    """An action as Qwen-AgentWorld reads it: the text inside the user turn's fenced block and the
    block's language (`json` for JSON actions, `python` for code actions)."""

    text: str
    fence: str = "json"


@dataclass(frozen=True)
class Moment:
    """Where one step of an episode happened, as the trained format needs it: the world, the screen
    the action was taken on (the domain's previous observation, "" at the start: then the world's
    own start screen, `trained_screen`), and where it ran and where the next one runs (`where`)."""

    world: World | None = None
    screen: str = ""
    before: str = ""
    after: str = ""
    state: dict[str, Any] = field(default_factory=dict)  # the domain's state now (not at that step)


@dataclass(frozen=True)
class StepView:
    """One logged step as a check reads it."""

    tool: str
    arguments: dict[str, Any]
    observation: str | None  # what the world model (or the real tool) answered; None: the call failed
    domain: str | None = None
    structured: dict[str, Any] | None = None  # the structured content logged with the observation
    error: str | None = None  # the call was refused or failed (bad arguments, engine down …)
    is_error: bool = False  # the simulated tool answered with an error result


@dataclass(frozen=True)
class EpisodeView:
    """What a task's checks read: the world, the explicit state per domain, the log and the final
    answer. Never the agent's own account of what it did."""

    world: World
    state: dict[str, dict[str, Any]]
    steps: tuple[StepView, ...] = ()
    answer: str = ""
    # Domains whose agent got real tools: domain -> a reader of the real machine (executors'
    # `reader`), which that domain's checks read instead of the state.
    real: dict[str, Any] = field(default_factory=dict)


class Check(BaseModel):
    """One success check of a task (`success:` in a task file). A kind is a subclass with
    `kind: Literal["..."]`, its own fields, and `run`; a domain lists its kinds in `Rules.checks`.
    `domain` is filled in when the task file loads (the world's domain that owns the kind)."""

    model_config = ConfigDict(extra="forbid")
    kind: str
    name: str | None = Field(default=None, max_length=200)
    weight: float = Field(default=1.0, gt=0, le=1000)
    domain: str | None = None

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        """(passed, what was found): the detail says what was checked against what was there."""
        raise NotImplementedError

    def state(self, episode: EpisodeView) -> dict[str, Any]:
        """This check's domain's state in the episode."""
        return episode.state.get(self.domain or "", {})

    def label(self) -> str:
        fields = self.model_dump(exclude={"kind", "name", "weight", "domain"}, exclude_defaults=True)
        args = ", ".join(f"{k}={v!r}" for k, v in fields.items())
        return self.name or f"{self.kind}({args})"


class UrlPattern(Check):
    """A check on URLs seen (a domain's subclass gives `kind` and which URLs): one of `url` (equal,
    trailing slash ignored) or `matches` (RE2, searched)."""

    url: str | None = None
    matches: str | None = None

    def model_post_init(self, context: Any) -> None:
        if (self.url is None) == (self.matches is None):
            raise ValueError(f"a {self.kind} check takes exactly one of url, matches")

    def hits(self, urls: list[str]) -> list[str]:
        import re2

        return [u for u in urls if (self.url is not None and u.rstrip("/") == self.url.rstrip("/"))
                or (self.matches is not None and re2.search(self.matches, u))]


class TypedText(Check):
    """Everything typed in the domain (its state's `typed` list, in order) contains `text`
    (case ignored). A domain with such a list subclasses it with its `kind`."""

    text: str = Field(min_length=1)

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        typed = " ".join(self.state(episode).get("typed", []))
        return self.text.lower() in typed.lower(), f"typed: {typed[-200:]!r}"


MAX_LABEL = 120  # characters of a box's label in a picture (an observation's text is untrusted and unbounded)
MAX_BOXES = 3000


@dataclass(frozen=True)
class Box:
    """One element of a screen: its bounds in screen pixels, what it says, what it is."""

    x: int
    y: int
    w: int
    h: int
    label: str = ""
    role: str = ""
    flags: tuple[str, ...] = ()  # clickable, checked, focused, selected, active, editable, target, ...


@dataclass(frozen=True)
class Picture:
    """How a person sees one observation (`mcp-world view`); a domain's `Rules.picture` makes it.

    kind: `screen` (boxes on a width x height screen, `point` where the action touched it),
    `page` (the observation is an HTML document: shown in a sandboxed frame), `results` (search results: url, title,
    snippet, date), `terminal` (the prompt, the command and its output)."""

    kind: str
    width: int = 0
    height: int = 0
    boxes: tuple[Box, ...] = ()
    point: tuple[int, int] | None = None
    results: tuple[dict[str, str], ...] = ()
    prompt: str = ""
    command: str = ""
    output: str = ""


def short(text: Any, limit: int = MAX_LABEL) -> str:
    """A label for a picture: one line, at most `limit` characters."""
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Rules:
    """A domain's behaviour. Subclass it in the domain's rules module and expose an instance as
    `rules`; override only what the domain has."""

    state_model: type[BaseModel] | None = None  # the state document; None: a free mapping
    checks: tuple[type[Check], ...] = ()  # the success-check kinds of this domain's tasks
    seed_model: type[BaseModel] | None = None  # a structured `seed.<domain>` in world files

    def seed(self, raw: Any) -> Any:
        """The world's `seed.<domain>` as this domain reads it (validated; ValueError when malformed)."""
        if self.seed_model is not None and isinstance(raw, dict):
            return self.seed_model.model_validate(raw)
        return raw

    def seed_prompt(self, raw: Any) -> str | None:
        """The world's `seed.<domain>` as the prompt shows it; None: as written (YAML). A domain whose
        seed holds what is shown another way (a site's pages, shown as demonstrations) leaves it out."""
        return None

    def check_world(self, world: World) -> None:
        """Check what of the world this domain reads beyond its seed (the seed against the world's
        tools); ValueError says what is wrong and what is accepted."""

    def seed_demonstrations(self, world: World, seen: bool = False) -> list[Any]:
        """Demonstrations the world's seed makes (`Demonstration`s: a site's known pages, a server's
        known results), shown as the world's own; `seen`: the episode has an observation of its own."""
        return []

    # -- state ----------------------------------------------------------------------------------
    def initial(self, world: World) -> dict[str, Any]:
        return self.state_model().model_dump() if self.state_model is not None else {}

    def answer(self, state: dict[str, Any], call: Call) -> Parsed | None:
        """The observation when the state alone determines it; None: ask the world model."""
        return None

    def apply(self, state: dict[str, Any], call: Call, text: str, structured: dict[str, Any]) -> dict[str, Any]:
        """The state after the call was answered with `text` (the core validates what comes back)."""
        return state

    def summary(self, state: dict[str, Any]) -> str:
        """What the state establishes, compactly, for the prompt (the core bounds its length)."""
        return ""

    def where(self, state: dict[str, Any]) -> str:
        """Where the next action runs, for layouts that show it (a shell's cwd)."""
        return ""

    def picture(self, text: str, call: Call, where: str = "") -> Picture | None:
        """How a person sees the observation `text` of `call` (the viewer draws it); None: as text.
        `text` is untrusted: bound what is kept (`short`, `MAX_BOXES`); the viewer escapes it."""
        return None

    def validated(self, state: Any, domain: str = "") -> dict[str, Any]:
        """`state` as a valid document, or StateError (the caller keeps the old one)."""
        if self.state_model is None:
            if not isinstance(state, dict):
                raise StateError(f"the {domain or 'domain'} state must be a mapping")
            return state
        try:
            return self.state_model.model_validate(state).model_dump()
        except ValidationError as err:
            first = err.errors()[0]
            raise StateError(f"rejected {domain or 'domain'} state update: "
                             f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from None

    # -- answers --------------------------------------------------------------------------------
    def prefill(self, call: Call) -> str:
        """The start of every valid answer: sent for the model to continue, part of the observation."""
        return ""

    def lead(self, call: Call) -> Lead | None:
        """A short first part of the answer the model writes alone before the domain adds what it
        knows comes next (a page's title, then the rest of its site's head and the start of its
        body); None (the default): the answer is written in one part."""
        return None

    def parse(self, raw: str, call: Call) -> Parsed:
        """The answer as an observation, or FormatError saying what is wrong. Default: plain text,
        refused when it talks about the tool instead of being its output."""
        text = unfence(raw.replace("\r\n", "\n")).strip("\n")
        if sounds_like_commentary(text):
            raise FormatError("the answer talks about the tool instead of being its output")
        refuse_repetition(text, call)
        return Parsed(text + "\n" if text else "", {})

    def history(self, call: Call, turns: Sequence[Any]) -> Sequence[Any]:
        """The episode's earlier turns the model is shown for this call (the dialect fits them to
        the context); the default: all. A domain whose calls do not build on one another (searches)
        shows those that bear on this one: a small model copies the turn before, whatever it was."""
        return turns

    def situation(self, state: dict[str, Any]) -> dict[str, Any]:
        """The state as the replay cache keys it (what makes two situations the same); the default,
        the whole document. A domain leaves out what differs between the same situations (the
        terminal, when each path was written)."""
        return state

    def max_tokens(self, call: Call) -> int | None:
        """The most tokens this call's answer needs, where the call says it is fewer than the
        domain's `max_tokens` (three search results are not ten); None (the default): the domain's."""
        return None

    def grammar(self, call: Call, grammar: str) -> str | None:
        """This call's grammar, where the state narrows the domain's `grammar` (the known test files
        a run can name); None (the default): the domain's as it is."""
        return None

    def continuation(self, answer: str, call: Call) -> str | None:
        """An answer that stopped (at max_tokens, `call.truncated`, or on its own) before it was a
        valid observation, cut where the domain can go on (with what must come next), for the model
        to continue in a second part instead of starting again; None (the default): the step is
        asked again from the start."""
        return None

    def is_error(self, parsed: Parsed) -> bool:
        """The simulated tool itself failed (returned to the agent as an isError result)."""
        return bool(parsed.structured.get("error"))

    def agent_structured(self, call: Call, parsed: Parsed) -> dict[str, Any] | None:
        """The structured content the agent receives with the text (None: none)."""
        return parsed.structured

    # -- a compact form for the instruct dialect ---------------------------------------------------
    # A domain whose observations are long and mostly fixed markup (a uiautomator dump) may show
    # them to the world model, and have it write the next one, in a compact form of its own; the
    # code turns the model's answer back into the tool's observation (then `parse`d as usual).
    compact: bool = False
    compact_screen: bool = False  # the current screen is shown in full with the action (answers are written against it)
    compact_max_tokens: int | None = None  # the most tokens a compact answer takes (None: the domain's max_tokens)

    def compact_prefill(self, call: Call) -> str:
        """The start of every compact answer (sent for the model to continue)."""
        return ""

    def shown(self, text: str, call: Call, before: str = "") -> str:
        """Observation `text` of `call` in the compact form (demonstrations, history, training targets).
        `before`: the observation shown just before it (the screen the call changed); "" when there
        is none, and then `call.state` is the state it changed (the answer being asked for)."""
        return text

    def unshown(self, raw: str, call: Call) -> str:
        """The model's compact answer (prefill included) as the tool's observation; FormatError when
        it cannot be read. `call.state` is the state before the step (the screen being changed)."""
        return raw

    # -- prompts and reports ----------------------------------------------------------------------
    def transcript(self, world: World, state: dict[str, Any]) -> Transcript | None:
        """A terminal-like layout for the instruct dialect; None: chat turns."""
        return None

    # -- Qwen-AgentWorld's trained format (the agentworld dialect) ---------------------------------
    def trained_action(self, call: Call, moment: Moment) -> TrainedAction | None:
        """The action as the model was trained to read it; None: a JSON tool call `{"name",
        "arguments"}` under the tool's trained name (domain.yaml's `agentworld.action_names`)."""
        return None

    def trained_observation(self, text: str, call: Call, moment: Moment) -> str:
        """Our observation `text` of `call` as the trained format shows it (a terminal's screen, a page
        whose elements carry ids)."""
        return text

    def from_trained(self, raw: str, call: Call, moment: Moment) -> str:
        """The model's observation in the trained format read back as our tool's (then `parse`d)."""
        return raw

    def trained_screen(self, world: World, state: dict[str, Any], where: str = "") -> str:
        """What the screen shows before the first turn the prompt keeps (`**Current State:**`); "" for
        domains without a screen."""
        return ""

    def display(self, call: Call) -> str | None:
        """How a person reads this action in reports (`$ ls`); None: as a call, `tool({arguments})`."""
        return None

    def risks(self, world: World, call: Call) -> list[tuple[str, str]]:
        """(category, reason) flags for the dry-run report that need code (domain.yaml's `risks`
        patterns are applied by the report itself)."""
        return []


# -- checks every text answer may need -------------------------------------------------------------

_COMMENTARY = re.compile(
    r"^\s*(this command|the command|the output|sure[,!. ]|here('s| is| are)|i (can|cannot|can't|am|will)|"
    r"as an ai|explanation:|output:|note:|certainly|the `)",
    re.IGNORECASE,
)


def sounds_like_commentary(text: str) -> bool:
    """The answer explains or introduces the output instead of being it (small models do)."""
    return bool(_COMMENTARY.match(text))


def degenerate(text: str) -> bool:
    """A run cut at max_tokens whose tail repeats one line or one short pattern over and over."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) >= 6 and len(set(lines[-6:])) == 1:
        return True
    tail = text[-400:]
    return len(tail) >= 160 and any(tail.count(tail[-k:]) * k >= len(tail) * 0.7 for k in range(2, 80))


def refuse_repetition(text: str, call: Call) -> None:
    """RepetitionError when the answer was cut at its token limit looping (see `degenerate`)."""
    if call.truncated and degenerate(text):
        raise RepetitionError("the answer degenerated into repetition")


def unfence(text: str, languages: str = r"[a-z]*") -> str:
    """The inside of a Markdown code fence wrapped around the whole answer (with a newline), else the text."""
    fence = re.fullmatch(r"\s*```" + languages + r"\n(.*?)\n?```\s*", text, re.S)
    return fence.group(1) + "\n" if fence else text


_EXIT_RULES: list[tuple[re.Pattern[str], int]] = [
    (re.compile(r"command not found\s*$", re.M), 127),
    (re.compile(r"^fatal: ", re.M), 128),
    (re.compile(r"^usage: ", re.M | re.I), 2),
    (re.compile(r"(?i:no such file or directory|permission denied|command not found)|cannot |Traceback \(most recent call last\)|"
                r"^error(\[\w+\])?:|^E: |Is a directory|Not a directory|: invalid option|syntax error|"
                r"^FAILED|failed|Operation not permitted|^ERROR|^git: '.+' is not a git command", re.M), 1),
]


def exit_code_for(output: str) -> int:
    """The exit code a command-line program that printed `output` most likely exited with, read by
    rules (a small model cannot be trusted with it: forcing it into `{output, exit_code}` JSON made
    its outputs worse)."""
    for pattern, code in _EXIT_RULES:
        if pattern.search(output):
            return code
    return 0
