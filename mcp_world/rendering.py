"""`mcp-world render`: the exact request the engine would get for one step, without an engine.

The step is rendered as `serve` renders it (the same Simulator, dialect and domain rules): the
earlier steps given as history are taken as observed (teacher-forced, as `eval` does), then the
given state documents replace the episode's, then the call is rendered and turned into the
request body a server of the chosen profile receives (engines/vllm.py's `request_fields`).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .dialects import get_dialect
from .engines import EnginePool, VLLMEngine
from .engines.profiles import get_profile
from .engines.vllm import request_fields
from .errors import MCPWorldError, WorldFileError
from .importing import StepRecord, read_records
from .simulator import Sampling, Simulator
from .store import Store
from .world import World

NOWHERE = "http://engine.invalid:9"  # never contacted: rendering asks no engine


def read_history(path: Path) -> list[StepRecord]:
    """Earlier steps: a JSON list of `{tool, arguments, observation}` or an interchange file (its
    first episode's steps)."""
    text = path.read_text(encoding="utf-8")
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, list):
        try:
            return [StepRecord.model_validate(s) for s in value]
        except ValidationError as err:
            first = err.errors()[0]
            raise WorldFileError(f"{path}: step {first['loc'][0]}: {'.'.join(map(str, first['loc'][1:]))}: "
                                 f"{first['msg']} (a step is {{tool, arguments, observation}})") from None
    records = read_records(path)
    if not records:
        raise WorldFileError(f"{path}: no steps (give a JSON list of {{tool, arguments, observation}} or an "
                             f"interchange JSONL file)")
    return records[0].steps


def render_step(world: World, tool: str, arguments: dict[str, Any], *, dialect: str = "auto",
                model: str = "SmolLM2-135M-Instruct", profile: str = "vllm", history: list[StepRecord] = (),
                state: dict[str, Any] | None = None, dialect_options: dict[str, Any] | None = None,
                sampling: Sampling = Sampling(), seed: int = 0, state_mode: str = "full") -> dict[str, Any]:
    """{dialect, messages, request} for the step after `history` in a fresh episode of `world`."""
    engine = VLLMEngine(NOWHERE, model=model, profile=profile)
    with tempfile.TemporaryDirectory(prefix="mcp-world-render-") as tmp:
        store = Store(Path(tmp) / "render.db")
        try:
            sim = Simulator(world, EnginePool([engine]), store, get_dialect(dialect, **(dialect_options or {})),
                            sampling=sampling, seed=seed, state_mode=state_mode)
            ep = sim.new_episode("render", world, seed)
            for n, step in enumerate(history):
                if step.tool not in sim.tools:
                    raise MCPWorldError(f"history step {n}: tool {step.tool!r} is not in world {world.name!r} "
                                        f"(its tools: {', '.join(sorted(sim.tools))})")
                sim.observe(ep, step.tool, step.arguments, step.observation, step.structured)
            for domain, doc in (state or {}).items():
                if domain not in sim.domains:
                    raise MCPWorldError(f"--state names domain {domain!r}, which world {world.name!r} lacks "
                                        f"(its domains: {', '.join(sim.domains)})")
                ep.state[domain] = sim.domains[domain].rules.validated(doc, domain)
            sim.check_arguments(tool, arguments)
            rendered = sim.render(ep, tool, arguments)
            request = sim.request(ep, len(history), tool, rendered)
        finally:
            store.close()
            asyncio.run(engine.aclose())
    body = {"model": model, **request_fields(get_profile(profile), request)}
    return {"dialect": ep.dialect.name, "messages": rendered.messages, "request": body}


def as_text(rendered: dict[str, Any]) -> str:
    """The messages as a person reads them, then the request's other fields."""
    parts = [f"===== {m['role']} =====\n{m['content']}" for m in rendered["request"]["messages"]]
    fields = {k: v for k, v in rendered["request"].items() if k != "messages"}
    return "\n\n".join(parts) + "\n\n===== request fields =====\n" + json.dumps(fields, indent=2, ensure_ascii=False)
