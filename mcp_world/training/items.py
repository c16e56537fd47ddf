"""Training items: one per real step.

An item is what the server would send the engine for that step — the same dialect, explicit state,
history window and prefill (the real prefix of the episode, teacher-forced, as `eval` does) — plus
the real observation it should have predicted. Steps the explicit state answers by itself (`pwd`,
`cat` of a known file…) are items too, flagged `by_state`: the server in `--state full` answers
them without the model, but `--state prompt` and `eval` ask the model, and the answer is in the
prompt's state line — the model learning to read it is the point. Items are split into train and
held-out by episode.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..dialects import get_dialect
from ..domain import load_domain
from ..engines import EnginePool
from ..errors import FormatError, MCPWorldError
from ..importing import EpisodeRecord, read_records
from ..rules import Call, Parsed
from ..simulator import Limits, Simulator


@dataclass
class Item:
    episode: str
    step: int
    domain: str
    tool: str
    arguments: dict[str, Any]
    messages: list[dict[str, str]]
    prefill: str
    answer_prefix: str
    stop: tuple[str, ...]
    real: str
    format: str  # the domain (its rules read the answer back)
    state: dict[str, Any] = field(default_factory=dict)  # the domain's state before the step (parsing needs it)
    spec: Any = None
    target: str = ""  # the answer that gives the real observation (the supervised warm start's target)
    by_state: bool = False  # the explicit state answers this step when serving with `--state full`
    max_tokens: int = 0  # the most tokens the server lets the model write for this step (0: no limit)

    def observation(self, completion: str, dialect: Any) -> Parsed:
        """The completion read as the server reads it (cut at the stop strings, the dialect's markers
        removed, parsed by the domain's format); FormatError when it is not a valid observation."""
        for s in self.stop:
            cut = completion.find(s)
            if cut >= 0:
                completion = completion[:cut]
        raw = dialect.extract(completion)
        domain = load_domain(self.domain)
        call = Call(self.tool, self.arguments, self.state, spec=self.spec)
        raw = dialect.read(None, domain, call, raw, [])  # agentworld: the trained observation read back
        return domain.rules.parse(self.answer_prefix + raw, call)


class _Offline:
    """Items are rendered without asking any engine."""

    url = ""

    def __init__(self, model: str) -> None:
        self.model = model

    async def complete(self, request: Any) -> Any:
        raise MCPWorldError("building training items asks no engine")

    async def aclose(self) -> None:
        pass


def records_from(db: Path | None, data: list[Path]) -> list[EpisodeRecord]:
    """Episodes with real observations: from a store (every step that has one) and interchange files."""
    records: list[EpisodeRecord] = []
    if db is not None:
        from ..exporting import iter_records
        from ..store import Store

        if not Path(db).expanduser().exists():
            raise MCPWorldError(f"no store at {db}")
        store = Store(Path(db).expanduser())
        try:
            for rec in iter_records(store, observations="real"):
                steps = [s for s in rec["steps"] if s.get("observation") is not None and not s.get("error")]
                if steps:
                    records.append(EpisodeRecord.model_validate({"id": rec["id"], "world": rec["world"],
                                                                 "steps": steps}))
        finally:
            store.close()
    for path in data:
        records.extend(read_records(path))
    if not records:
        where = " and ".join([str(db)] * (db is not None) + [str(p) for p in data])
        raise MCPWorldError(f"{where} hold(s) no steps with a real observation to learn from: record some "
                            "(serve --shadow terminal, mirror, import) or pass --data FILE.jsonl")
    return records


def build_items(records: list[EpisodeRecord], dialect: str = "instruct", model: str = "base",
                context_tokens: int = 8192, state_mode: str = "full") -> tuple[list[Item], int]:
    """Items for every real step, and how many of them the explicit state answers when serving."""
    items: list[Item] = []
    by_state = 0
    for rec in records:
        sim = Simulator(rec.world, EnginePool([_Offline(model)]), None, get_dialect(dialect),  # type: ignore[arg-type]
                        Limits(context_tokens=context_tokens), seed=0, state_mode=state_mode)
        ep = sim.new_episode(f"train-{rec.id}", rec.world)
        assert ep.dialect is not None
        for idx, step in enumerate(rec.steps):
            tool = sim.tools.get(step.tool)
            if tool is None:
                raise MCPWorldError(f"episode {rec.id} step {idx}: tool {step.tool!r} is not in its world's domains")
            domain = sim.domains[tool.domain]
            known = sim.state_answer(ep, step.tool, step.arguments) is not None
            by_state += known
            r = sim.render(ep, step.tool, step.arguments)
            items.append(Item(rec.id, idx, domain.name, step.tool, dict(step.arguments), r.messages, r.prefill,
                              r.answer_prefix, tuple(r.stop), step.observation, domain.format,
                              dict(ep.state.get(domain.name, {})), tool,
                              ep.dialect.completion_for(step.observation, r), known,
                              r.answer_tokens(domain.max_tokens)))
            sim.observe(ep, step.tool, step.arguments, step.observation, step.structured)
    return items, by_state


def split_episodes(records: list[EpisodeRecord], held_out: float, seed: int) -> tuple[list[EpisodeRecord],
                                                                                     list[EpisodeRecord]]:
    """Train and held-out episodes: at least one held out when there are two or more and a share is
    asked for; none for a share of 0 (`train --held-out 0`: every episode trains)."""
    order = list(records)
    random.Random(seed).shuffle(order)
    n = max(1, round(len(order) * held_out)) if len(order) > 1 and held_out > 0 else 0
    return order[n:], order[:n]


def is_valid(item: Item, completion: str, dialect: Any) -> tuple[str, bool]:
    """The observation text a completion gives (the raw text when it does not parse) and its validity."""
    try:
        return item.observation(completion, dialect).text, True
    except FormatError:
        return completion, False
