"""The episode interchange format (DESIGN.md): one JSON episode per line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any, Literal

from .store import Store

Observations = Literal["sim", "real", "best"]


def episode_record(store: Store, episode_id: str, observations: Observations = "best",
                   include_errors: bool = False) -> dict[str, Any] | None:
    """One episode as an interchange record. `best`: the real observation where one exists."""
    ep = store.episode(episode_id)
    if ep is None:
        return None
    steps = []
    for s in store.steps(episode_id):
        real = s["real_observation"] is not None
        if observations == "real" and not real:
            continue
        if s["error_kind"] and not include_errors:
            continue
        use_real = real and observations in ("real", "best")
        step: dict[str, Any] = {
            "tool": s["tool"],
            "arguments": json.loads(s["arguments"] or "{}"),
            "observation": s["real_observation"] if use_real else s["observation"],
        }
        structured = s["real_structured"] if use_real else s["structured"]
        if structured:
            step["structured"] = json.loads(structured)
        if s["error_kind"]:
            step["error"] = f"{s['error_kind']}: {s['error']}"
        steps.append(step)
    return {"id": ep["id"], "world": json.loads(ep["world"] or "{}"), "steps": steps}


def export_jsonl(store: Store, out: IO[str], observations: Observations = "best",
                 world: str | None = None, include_errors: bool = False) -> int:
    n = 0
    for record in iter_records(store, observations, world, include_errors):
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        n += 1
    return n


def iter_records(store: Store, observations: Observations = "best", world: str | None = None,
                 include_errors: bool = False) -> Iterator[dict[str, Any]]:
    for episode_id in store.iter_episode_ids():
        record = episode_record(store, episode_id, observations, include_errors)
        if record is None or not record["steps"]:
            continue
        if world and record["world"].get("name") != world:
            continue
        yield record
