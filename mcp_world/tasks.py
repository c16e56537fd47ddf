"""Tasks and their verifiable success (DESIGN.md, "Tasks and rewards").

A task file lists tasks for a world: `id`, `instruction`, optional scripted `actions`, `success`
checks and an optional `judge` rubric. A check reads the episode's explicit state and log — what
the world holds after the agent acted, never what the agent says it did — and is one of the kinds
below or a kind its domain's rules declare (`Rules.checks`); every check is validated when the file
loads, against the world's domains and tools. `verify` turns the checks (and the judge's score,
when an engine is given) into a reward in [0, 1], weighted; partial credit is the weighted share.

Core kinds (any world):
    answer_contains   {text, case_sensitive: false}    the agent's final answer contains the text
    answer_matches    {pattern}                        the final answer matches (RE2, searched)
    called            {tool, arguments: {}, matches: {}, ok: true, times: 1}
                      a call of `tool` whose arguments include `arguments` (equal values) and whose
                      text arguments match `matches` (RE2, searched), answered without error when
                      `ok`, at least `times` times — e.g. a record created with given fields
    not_called        {tool, arguments: {}, matches: {}}   no such call (a safety rule)
    state             {domain, pointer, equals | contains | exists}   a JSON pointer into the state
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from .errors import MCPWorldError, WorldFileError
from .rules import Check, EpisodeView, StepView
from .store import agent_saw

_NO_VALUE = object()


def _re2(pattern: str) -> Any:
    from .schemas import compile_pattern

    try:
        return compile_pattern(pattern)
    except Exception as err:  # re2.error: the pattern does not compile, or needs backtracking
        raise ValueError(f"pattern {pattern!r} is not an RE2 regular expression: {err}") from None


def _searches(pattern: str, text: str) -> bool:
    return _re2(pattern).search(text) is not None


# -- the core check kinds ------------------------------------------------------------------------------


class AnswerContains(Check):
    kind: Literal["answer_contains"]
    text: str = Field(min_length=1)
    case_sensitive: bool = False

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        answer, text = (episode.answer, self.text) if self.case_sensitive else (episode.answer.lower(), self.text.lower())
        found = text in answer
        return found, f"the final answer {'contains' if found else 'lacks'} {self.text!r}" + (
            "" if episode.answer else " (no final answer was given)")


class AnswerMatches(Check):
    kind: Literal["answer_matches"]
    pattern: str = Field(min_length=1, max_length=2000)

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        _re2(value)
        return value

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        found = _searches(self.pattern, episode.answer)
        return found, f"the final answer {'matches' if found else 'does not match'} /{self.pattern}/"


class _CallPattern(Check):
    tool: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)
    matches: dict[str, str] = Field(default_factory=dict)

    @field_validator("matches")
    @classmethod
    def _patterns(cls, value: dict[str, str]) -> dict[str, str]:
        for pattern in value.values():
            _re2(pattern)
        return value

    def fits(self, step: StepView) -> bool:
        if step.tool != self.tool:
            return False
        for key, want in self.arguments.items():
            if key not in step.arguments or json.dumps(step.arguments[key], sort_keys=True) != json.dumps(want, sort_keys=True):
                return False
        for key, pattern in self.matches.items():
            value = step.arguments.get(key)
            if value is None or not _searches(pattern, value if isinstance(value, str) else json.dumps(value)):
                return False
        return True

    def shape(self) -> str:
        parts = [f"{k}={v!r}" for k, v in self.arguments.items()] + [f"{k}~/{v}/" for k, v in self.matches.items()]
        return f"{self.tool}({', '.join(parts)})"


class Called(_CallPattern):
    kind: Literal["called"]
    ok: bool = True  # the call must have been answered without an error
    times: int = Field(default=1, ge=1, le=1000)

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        fitting = [s for s in episode.steps if self.fits(s)]
        good = [s for s in fitting if not (self.ok and (s.error or s.is_error))]
        passed = len(good) >= self.times
        detail = f"{len(good)} call(s) of {self.shape()}" + (" answered without error" if self.ok else "")
        if fitting and len(good) < len(fitting):
            detail += f"; {len(fitting) - len(good)} more failed"
        return passed, detail + ("" if passed else f"; needed {self.times}")


class NotCalled(_CallPattern):
    kind: Literal["not_called"]

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        fitting = [s for s in episode.steps if self.fits(s)]
        return not fitting, f"{len(fitting)} call(s) of {self.shape()}"


class StateAt(Check):
    """A value in the explicit state, by JSON pointer (RFC 6901) into the domain's document."""

    kind: Literal["state"]
    domain: str  # required here: which domain's state
    pointer: str = Field(pattern=r"^(/.*)?$")
    equals: Any = None
    contains: str | None = None
    exists: bool | None = None

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        import jsonpointer

        value = jsonpointer.resolve_pointer(self.state(episode), self.pointer, _NO_VALUE)
        shown = "absent" if value is _NO_VALUE else json.dumps(value, ensure_ascii=False)[:200]
        if self.exists is not None:
            return (value is not _NO_VALUE) == self.exists, f"{self.domain}{self.pointer} is {shown}"
        if value is _NO_VALUE:
            return False, f"{self.domain}{self.pointer} is absent"
        if self.contains is not None:
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            return self.contains in text, f"{self.domain}{self.pointer} is {shown}"
        return value == self.equals, f"{self.domain}{self.pointer} is {shown}, wanted {json.dumps(self.equals)[:200]}"

    def model_post_init(self, context: Any) -> None:
        given = [x for x in ("equals", "contains", "exists") if x in self.model_fields_set]
        if len(given) != 1:
            raise ValueError("a state check takes exactly one of equals, contains, exists")


CORE_CHECKS: tuple[type[Check], ...] = (AnswerContains, AnswerMatches, Called, NotCalled, StateAt)


def _kind_of(cls: type[Check]) -> str:
    return cls.model_fields["kind"].annotation.__args__[0]


# -- tasks and task files ------------------------------------------------------------------------------


class Action(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Judge(BaseModel):
    """A rubric an engine scores 1-5 (mapped to 0..1) from the episode's transcript."""

    model_config = ConfigDict(extra="forbid")
    rubric: str = Field(min_length=1, max_length=8000)
    weight: float = Field(default=1.0, gt=0, le=1000)


class Task(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
    instruction: str = Field(min_length=1)
    actions: list[Action] | None = None  # for the scripted policy
    max_steps: int | None = Field(default=None, ge=1, le=500)
    success: list[Any] = Field(default_factory=list, max_length=100)  # checks, validated by resolve()
    judge: Judge | None = None
    _checks: list[Check] = PrivateAttr(default_factory=list)

    @property
    def checks(self) -> list[Check]:
        """The `success` list, validated (set by `resolve`)."""
        return self._checks

    def resolve(self, world: Any | None) -> Task:
        """Validate the `success` checks for `world` (None: against every registered domain)."""
        self._checks = [parse_check(raw, world, f"success[{i}]") for i, raw in enumerate(self.success)]
        return self

    def verifiable(self) -> bool:
        return bool(self.success or self.judge)


class TaskFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    world: str | None = None  # the world these tasks are written for
    tasks: list[Task] = Field(min_length=1)


FORMAT = ("{world: NAME, tasks: [{id, instruction, actions: [{tool, arguments}], max_steps, "
          "success: [{kind, ...}], judge: {rubric, weight}}]}")


def load_tasks(path: Path, world: Any | None = None) -> TaskFile:
    """Read and validate a task file; its checks are validated against `world`, or the world the
    file names when that world can be loaded, or every registered domain."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as err:
        raise WorldFileError(f"cannot read the task file {path}: {err}") from None
    return parse_tasks(data, str(path), world)


def parse_tasks(data: Any, where: str, world: Any | None = None) -> TaskFile:
    try:
        tf = TaskFile.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise WorldFileError(f"{where} is not a task file: {loc}: {first['msg']} (a task file is {FORMAT})") from None
    ids = [t.id for t in tf.tasks]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise WorldFileError(f"{where}: task ids must be unique; repeated: {dupes}")
    if world is None and tf.world:
        from .world import available_worlds, load_world

        if tf.world in available_worlds():
            world = load_world(tf.world)
    for i, task in enumerate(tf.tasks):
        try:
            task.resolve(world)
        except WorldFileError as err:
            raise WorldFileError(f"{where}: tasks[{i}] ({task.id}): {err}") from None
    return tf


def parse_task(data: Any, world: Any | None, where: str = "the task") -> Task:
    """One task given inline (an episode handle's `task`, a dataset row)."""
    try:
        task = Task.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise WorldFileError(f"{where} is not a task: {loc}: {first['msg']} (a task is {{id, instruction, "
                             "success: [{kind, ...}], judge, max_steps})") from None
    try:
        return task.resolve(world)
    except WorldFileError as err:
        raise WorldFileError(f"{where} ({task.id}): {err}") from None


def check_kinds(world: Any | None) -> dict[str, list[tuple[str | None, type[Check]]]]:
    """kind -> [(domain or None for a core kind, class)] for the world's domains (None: all)."""
    from .domain import domain_for, domain_names, load_domain

    kinds: dict[str, list[tuple[str | None, type[Check]]]] = {_kind_of(c): [(None, c)] for c in CORE_CHECKS}
    names = list(world.domains) if world is not None else domain_names()
    for name in names:
        try:
            domain = domain_for(world, name) if world is not None else load_domain(name)
        except MCPWorldError:
            continue
        for cls in domain.rules.checks:
            kinds.setdefault(_kind_of(cls), []).append((name, cls))
    return kinds


def parse_check(raw: Any, world: Any | None, where: str) -> Check:
    if not isinstance(raw, dict) or not isinstance(raw.get("kind"), str):
        raise WorldFileError(f"{where}: a check is a mapping with a `kind`; got {str(raw)[:120]!r}")
    kinds = check_kinds(world)
    kind, domain = raw["kind"], raw.get("domain")
    scope = f"world {world.name!r}" if world is not None else "the registered domains"
    if world is not None and domain is not None and domain not in world.domains:
        raise WorldFileError(f"{where}: domain {domain!r} is not in {scope} (its domains: {', '.join(world.domains)})")
    owners = kinds.get(kind, [])
    if domain is not None and kind != "state":
        owners = [o for o in owners if o[0] in (None, domain)]
    if not owners:
        raise WorldFileError(f"{where}: unknown check kind {kind!r} for {scope}; kinds accepted: "
                             f"{', '.join(sorted(kinds))}")
    if len(owners) > 1:
        raise WorldFileError(f"{where}: check kind {kind!r} exists in domains {', '.join(str(o[0]) for o in owners)}; "
                             "say which with `domain`")
    owner, cls = owners[0]
    try:
        check = cls.model_validate({**raw, **({"domain": owner} if owner else {})})
    except (ValidationError, ValueError) as err:
        if isinstance(err, ValidationError):
            first = err.errors()[0]
            loc = ".".join(str(p) for p in first["loc"]) or "(the check)"
            msg = first["msg"]
        else:
            loc, msg = "(the check)", str(err)
        fields = [f for f in cls.model_fields if f not in ("kind", "domain")]
        raise WorldFileError(f"{where}: {kind} check: {loc}: {msg} (fields of {kind}: {', '.join(fields)})") from None
    if world is not None and isinstance(check, _CallPattern):
        tools = _world_tools(world)
        if tools and check.tool not in tools:
            raise WorldFileError(f"{where}: {kind} check: no tool {check.tool!r} in world {world.name!r}; "
                                 f"tools: {', '.join(sorted(tools))}")
    if isinstance(check, StateAt) and world is not None and check.domain not in world.domains:
        raise WorldFileError(f"{where}: state check: domain {check.domain!r} is not in {scope}")
    return check


def _world_tools(world: Any) -> set[str]:
    from .domain import domain_for

    names: set[str] = set()
    for d in world.domains:
        try:
            names |= {t.name for t in domain_for(world, d).tools}
        except MCPWorldError:
            continue
    return names


# -- verify ------------------------------------------------------------------------------------------


@dataclass
class CheckResult:
    name: str
    kind: str
    passed: bool
    weight: float
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "passed": self.passed, "weight": self.weight,
                "detail": self.detail}


@dataclass
class Verdict:
    task: str
    reward: float | None  # None: nothing could be scored (no checks; the judge had no engine)
    checks: list[CheckResult] = field(default_factory=list)
    judge: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"task": self.task, "reward": self.reward, "checks": [c.as_dict() for c in self.checks],
                **({"judge": self.judge} if self.judge is not None else {})}


def view_of(world: Any, state: dict[str, dict[str, Any]], steps: list[dict[str, Any]], answer: str = "",
            real: dict[str, Any] | None = None) -> EpisodeView:
    """An episode as checks read it, from the log's rows (`Store.steps`) and the latest state."""
    views = []
    for s in steps:
        observation, structured = agent_saw(s)  # a real step's real observation: checks read what the agent got
        s = {**s, "observation": observation, "structured": structured}
        args = s.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args or "{}")
            except ValueError:
                args = {}
        structured = s.get("structured")
        if isinstance(structured, str):
            try:
                structured = json.loads(structured)
            except ValueError:
                structured = None
        views.append(StepView(tool=s["tool"], arguments=args if isinstance(args, dict) else {},
                              observation=s.get("observation"), domain=s.get("domain"),
                              structured=structured if isinstance(structured, dict) else None,
                              error=s.get("error_kind") or None, is_error=bool(s.get("is_error"))))
    return EpisodeView(world=world, state=state, steps=tuple(views), answer=answer or "", real=dict(real or {}))


def run_checks(task: Task, episode: EpisodeView) -> list[CheckResult]:
    results = []
    for check in task.checks:
        try:
            passed, detail = check.run(episode)
        except Exception as err:  # a check that cannot read this state fails; it never crashes verify
            passed, detail = False, f"the check could not be evaluated: {type(err).__name__}: {str(err)[:200]}"
        results.append(CheckResult(check.label(), check.kind, bool(passed), check.weight, detail))
    return results


def reward_of(checks: list[CheckResult], judge: dict[str, Any] | None, judge_weight: float = 1.0) -> float | None:
    total = sum(c.weight for c in checks)
    got = sum(c.weight for c in checks if c.passed)
    if judge is not None and judge.get("score") is not None:
        total += judge_weight
        got += judge_weight * float(judge["score"])
    return round(got / total, 6) if total else None


async def verify(task: Task, episode: EpisodeView, judge_engine: Any | None = None) -> Verdict:
    """The reward and each check's outcome; with a judge rubric and an engine, the judge's score
    (and its reasoning) too."""
    # Checks that read a real machine run commands there: off the event loop.
    checks = await asyncio.to_thread(run_checks, task, episode) if episode.real else run_checks(task, episode)
    judged = None
    if task.judge is not None:
        judged = await judge(task, episode, judge_engine) if judge_engine is not None else \
            {"score": None, "reasoning": "", "detail": "the task has a judge rubric, but no judge engine was given"}
    return Verdict(task.id, reward_of(checks, judged, task.judge.weight if task.judge else 1.0), checks, judged)


JUDGE_SYSTEM = (
    "You grade how well an agent did a task in a simulated environment, from the episode's log (the "
    "tool calls it made, what each returned, and its final answer). Apply the rubric strictly; judge "
    "what the log shows, not what the agent claims. Reply with one JSON object: "
    '{"reasoning": "<two or three sentences>", "score": <1-5>} where 1 = not done at all, '
    "3 = partly done, 5 = fully done as the rubric asks."
)
JUDGE_SCHEMA = {"type": "object", "properties": {"reasoning": {"type": "string", "maxLength": 1500},
                                                 "score": {"type": "integer", "minimum": 1, "maximum": 5}},
                "required": ["reasoning", "score"], "additionalProperties": False}


def judge_prompt(task: Task, episode: EpisodeView, max_chars: int = 12_000) -> list[dict[str, str]]:
    lines = []
    for i, s in enumerate(episode.steps):
        out = s.observation if s.observation is not None else f"(failed: {s.error})"
        lines.append(f"[{i}] {s.tool} {json.dumps(s.arguments, ensure_ascii=False)[:400]}\n{out[:1200]}")
    log = "\n\n".join(lines)
    if len(log) > max_chars:
        log = "…\n" + log[-max_chars:]
    user = (f"# Task\n{task.instruction}\n\n# Rubric\n{task.judge.rubric if task.judge else ''}\n\n"
            f"# Log ({len(episode.steps)} steps)\n{log or '(no steps)'}\n\n# Final answer\n{episode.answer or '(none)'}")
    return [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": user}]


async def judge(task: Task, episode: EpisodeView, engine: Any) -> dict[str, Any]:
    """Ask `engine` (any engine of engines/: embedded, vLLM, an OpenAI-compatible URL) to score the
    rubric. A failed or unreadable answer is reported, with score None (it does not count)."""
    from .engines import CompletionRequest
    from .errors import AgentFault

    request = CompletionRequest(messages=judge_prompt(task, episode), max_tokens=400, temperature=0.0,
                                json_schema=JUDGE_SCHEMA, seed=0)
    try:
        done = await engine.complete(request)
    except AgentFault as fault:
        return {"score": None, "reasoning": "", "detail": f"the judge engine failed: {fault.message}",
                "engine": getattr(engine, "url", "")}
    raw = done.text.strip()
    try:
        answer = json.loads(raw[raw.find("{"): raw.rfind("}") + 1])
        score = int(answer["score"])
        if not 1 <= score <= 5:
            raise ValueError(score)
    except (ValueError, KeyError, TypeError):
        return {"score": None, "reasoning": raw[:1500], "detail": "the judge's answer was not {reasoning, score 1-5}",
                "engine": getattr(engine, "url", "")}
    return {"score": (score - 1) / 4, "raw_score": score, "reasoning": str(answer.get("reasoning", ""))[:1500],
            "engine": getattr(engine, "url", ""), "model": getattr(engine, "model", "")}


def shipped_tasks(world_name: str) -> TaskFile | None:
    """The shipped task file written for `world_name`, if there is one."""
    from .paths import FIXTURES_DIR
    from .world import load_world

    folder = FIXTURES_DIR / "tasks"
    for path in sorted(folder.glob("*.yaml")):
        try:
            head = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError):
            continue
        if isinstance(head, dict) and head.get("world") == world_name:
            return load_tasks(path, load_world(world_name))
    return None


async def verify_logged(store: Any, episode_id: str, task: Task | None = None, answer: str | None = None,
                        judge_engine: Any | None = None, record: bool = True,
                        real: dict[str, Any] | None = None) -> Verdict:
    """Verify an episode from the log (its world, latest state, steps and final answer) against
    `task` (default: the task logged with it), and record the verdict on its row. `real`: readers of
    the real machines of the domains whose agent got real tools (`Simulator.readers`)."""
    from .world import World

    row = store.episode(episode_id)
    if row is None:
        raise MCPWorldError(f"no episode {episode_id!r} in {store.path}")
    try:
        world = World.model_validate_json(row["world"])
    except ValueError as err:
        raise MCPWorldError(f"episode {episode_id}: its logged world is unreadable ({err})") from None
    if task is None:
        if not row.get("task"):
            raise MCPWorldError(f"episode {episode_id} has no task logged with it; give the task file (--tasks) "
                                "and the task id")
        task = parse_task(json.loads(row["task"]), world, f"the task logged with {episode_id}")
    else:
        task = task.model_copy(deep=True).resolve(world)
    state = store.state_of(episode_id) or {}
    final = answer if answer is not None else (row.get("final_answer") or "")
    verdict = await verify(task, view_of(world, state, store.steps(episode_id), final, real), judge_engine)
    if record:
        fields = {"reward": verdict.reward, "verdict": json.dumps(verdict.as_dict(), ensure_ascii=False),
                  "task": task.model_dump_json(exclude_defaults=True)}
        if answer is not None:
            fields["final_answer"] = answer
        await store.write(lambda db: db["episodes"].update(episode_id, fields))
    return verdict
