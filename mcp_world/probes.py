"""Consistency probes (`mcp-world probe`): does the world keep itself straight?

Each probe is a short scripted episode — write, then read — with a machine-checkable expectation
about an answer (fixtures/probes.yaml documents the kinds). Probes run as fresh episodes of their
world on the given engines, several at once, through the same simulator path as `serve`.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from lxml import etree
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import AgentFault, WorldFileError
from .tasks import Action as Step  # a probe's step is a task file's action
from .paths import FIXTURES_DIR

SUITE = FIXTURES_DIR / "probes.yaml"


class Expect(BaseModel):
    model_config = ConfigDict(extra="forbid")
    step: int = -1
    contains: str | list[str] | None = None
    not_contains: str | list[str] | None = None
    equals: str | None = None
    regex: str | None = None
    exit_code: int | str | None = None
    structured: dict[str, Any] | None = None
    same_as_step: int | None = None
    xpath: str | None = None


class Probe(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    world: str
    steps: list[Step] = Field(min_length=1)
    expect: Expect


class Shorthand(BaseModel):
    """A suite's plain-string steps mean one tool's one argument (e.g. a shell command)."""

    model_config = ConfigDict(extra="forbid")
    tool: str
    argument: str


def _expand(probe: Any, shorthand: Shorthand | None) -> Any:
    if not isinstance(probe, dict) or not isinstance(probe.get("steps"), list):
        return probe
    steps = []
    for v in probe["steps"]:
        if isinstance(v, str):
            if shorthand is None:
                raise WorldFileError(f"probe {probe.get('id')!r}: a plain-string step needs the suite's "
                                     "`shorthand: {tool, argument}`")
            v = {"tool": shorthand.tool, "arguments": {shorthand.argument: v}}
        steps.append(v)
    return {**probe, "steps": steps}


def load_suite(path: Path = SUITE) -> list[Probe]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        shorthand = Shorthand.model_validate(data["shorthand"]) if data.get("shorthand") else None
        probes = [Probe.model_validate(_expand(p, shorthand)) for p in data["probes"]]
    except (OSError, yaml.YAMLError, KeyError, TypeError) as err:
        raise WorldFileError(f"cannot read the probe suite {path}: {err}") from None
    except ValidationError as err:
        first = err.errors()[0]
        raise WorldFileError(f"{path}: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    ids = [p.id for p in probes]
    if len(set(ids)) != len(ids):
        raise WorldFileError(f"{path}: probe ids must be unique")
    return probes


@dataclass
class Answer:
    text: str | None
    structured: dict[str, Any] | None
    error: str | None = None


def judge(expect: Expect, answers: list[Answer]) -> tuple[bool, str]:
    """Whether the answers meet the expectation, and why not."""
    failed = [i for i, a in enumerate(answers) if a.error]
    if failed:
        return False, f"step {failed[0]} got no observation ({answers[failed[0]].error})"
    a = answers[expect.step]
    text = a.text or ""
    s = a.structured or {}

    def many(v: str | list[str]) -> list[str]:
        return [v] if isinstance(v, str) else v

    if expect.contains is not None:
        missing = [c for c in many(expect.contains) if c not in text]
        if missing:
            return False, f"does not contain {missing}"
    if expect.not_contains is not None:
        present = [c for c in many(expect.not_contains) if c in text]
        if present:
            return False, f"still contains {present}"
    if expect.equals is not None and text != expect.equals:
        return False, f"is {text[:120]!r}, expected {expect.equals!r}"
    if expect.regex is not None and not re.search(expect.regex, text, re.M):
        return False, f"does not match /{expect.regex}/"
    if expect.exit_code is not None:
        code = s.get("exit_code")
        ok = code not in (None, 0) if expect.exit_code == "nonzero" else code == expect.exit_code
        if not ok:
            return False, f"exit code {code}, expected {expect.exit_code}"
    if expect.structured:
        wrong = {k: s.get(k) for k, v in expect.structured.items() if s.get(k) != v}
        if wrong:
            return False, f"structured content differs: {wrong}"
    if expect.same_as_step is not None and text != (answers[expect.same_as_step].text or ""):
        return False, f"differs from step {expect.same_as_step}'s answer"
    if expect.xpath is not None:
        try:
            root = etree.fromstring(text.encode("utf-8"))
            if not root.xpath(expect.xpath):
                return False, "no node matches the expected xpath"
        except etree.XMLSyntaxError as err:
            return False, f"not XML: {err}"
    return True, ""


@dataclass
class ProbeResult:
    id: str
    domain: str
    world: str
    passed: bool
    reason: str
    answer: str | None
    steps: int
    prompt_tokens: int
    completion_tokens: int
    model_steps: int  # steps the world model answered (the rest came from the explicit state)
    seconds: float


@dataclass
class SuiteReport:
    state_mode: str
    results: list[ProbeResult] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        per: dict[str, dict[str, int]] = defaultdict(lambda: {"total": 0, "passed": 0})
        for r in self.results:
            per[r.domain]["total"] += 1
            per[r.domain]["passed"] += r.passed
        steps = sum(r.steps for r in self.results) or 1
        return {
            "state": self.state_mode,
            "overall": {"total": len(self.results), "passed": sum(r.passed for r in self.results)},
            "domains": dict(sorted(per.items())),
            "tokens_per_step": round(sum(r.prompt_tokens + r.completion_tokens for r in self.results) / steps, 1),
            "prompt_tokens_per_step": round(sum(r.prompt_tokens for r in self.results) / steps, 1),
            "model_share": round(sum(r.model_steps for r in self.results) / steps, 3),
            "probes": [r.__dict__ for r in self.results],
        }


async def run_suite(probes: list[Probe], engines: Any, store: Any, state_mode: str = "full", seed: int = 0,
                    concurrency: int = 4, progress: Any = None) -> SuiteReport:
    from .dialects import get_dialect
    from .simulator import Simulator
    from .world import load_world

    sims: dict[str, Simulator] = {}
    for p in probes:
        if p.world not in sims:
            sims[p.world] = Simulator(load_world(p.world), engines, store, get_dialect("instruct"), seed=seed,
                                      state_mode=state_mode)
    report = SuiteReport(state_mode)
    sem = asyncio.Semaphore(concurrency)
    run = uuid.uuid4().hex[:6]

    async def one(p: Probe) -> None:
        async with sem:
            sim = sims[p.world]
            key = f"probe-{run}-{state_mode}-{p.id}"
            answers: list[Answer] = []
            t0 = time.perf_counter()
            for step in p.steps:
                try:
                    r = await sim.call(key, step.tool, step.arguments)
                    answers.append(Answer(r.observation, r.structured))
                except AgentFault as fault:
                    answers.append(Answer(None, None, f"{fault.kind.value}: {fault.message[:200]}"))
            passed, reason = judge(p.expect, answers)
            ep = await sim.episode(key)
            rows = store.query("select prompt_tokens, completion_tokens, provenance from steps where episode_id = ?",
                               (ep.id,))
            tool = sim.tools.get(p.steps[0].tool)
            report.results.append(ProbeResult(
                p.id, tool.domain if tool else "?", p.world, passed, reason, answers[p.expect.step].text,
                len(p.steps), sum(r["prompt_tokens"] or 0 for r in rows), sum(r["completion_tokens"] or 0 for r in rows),
                sum(r["provenance"] == "model" for r in rows), time.perf_counter() - t0))
            if progress:
                progress(len(report.results))

    await asyncio.gather(*(one(p) for p in probes))
    order = {p.id: i for i, p in enumerate(probes)}
    report.results.sort(key=lambda r: order[r.id])
    return report
