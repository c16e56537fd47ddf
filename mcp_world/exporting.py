"""The episode interchange format (DESIGN.md): one JSON episode per line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
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
    record: dict[str, Any] = {"id": ep["id"], "world": json.loads(ep["world"] or "{}"), "steps": steps}
    if ep.get("run_id"):  # a `generate` episode: what the agent was asked, and how it ended
        record["task"] = {"run_id": ep["run_id"], "id": ep["task_id"], "instruction": ep["instruction"],
                          "agent": ep["agent"], "outcome": ep["outcome"], "final_answer": ep["final_answer"]}
    if ep.get("verdict"):  # verified against its task's success checks
        record.setdefault("task", {"id": ep.get("task_id"), "instruction": ep.get("instruction")})
        record["task"].update(reward=ep["reward"], checks=json.loads(ep["verdict"]).get("checks", []))
    return record


@dataclass(frozen=True)
class Filters:
    world: str | None = None
    run: str | None = None
    completed: bool = False  # only episodes whose agent declared the task done
    min_steps: int = 0
    max_steps: int | None = None
    min_reward: float | None = None  # only verified episodes with at least this reward

    def keep(self, record: dict[str, Any]) -> bool:
        n = len(record["steps"])
        task = record.get("task") or {}
        return ((self.world is None or record["world"].get("name") == self.world)
                and (self.run is None or task.get("run_id") == self.run)
                and (not self.completed or task.get("outcome") == "done")
                and n >= self.min_steps and (self.max_steps is None or n <= self.max_steps)
                and (self.min_reward is None or (task.get("reward") is not None and task["reward"] >= self.min_reward)))


def export_jsonl(store: Store, out: IO[str], observations: Observations = "best",
                 world: str | None = None, include_errors: bool = False, filters: Filters | None = None) -> int:
    n = 0
    for record in iter_records(store, observations, world, include_errors, filters):
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        n += 1
    return n


def iter_records(store: Store, observations: Observations = "best", world: str | None = None,
                 include_errors: bool = False, filters: Filters | None = None) -> Iterator[dict[str, Any]]:
    filters = filters or Filters(world=world)
    for episode_id in store.iter_episode_ids():
        record = episode_record(store, episode_id, observations, include_errors)
        if record is None or not record["steps"]:
            continue
        if world and record["world"].get("name") != world:
            continue
        if filters.keep(record):
            yield record


# -- chat-format tool-calling transcripts ----------------------------------------------------------


def chat_record(record: dict[str, Any]) -> dict[str, Any]:
    """One episode as an OpenAI chat transcript: the task, assistant tool calls and tool results."""
    from .domain import domain_for
    from .world import World

    world = World.model_validate(record["world"])
    tools = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                               "parameters": t.input_schema}}
             for d in world.domains for t in domain_for(world, d).tools]
    task = record.get("task") or {}
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": f"You are an agent in this environment, acting through its tools.\n\n"
                                      f"{world.description.strip()}"},
        {"role": "user", "content": task.get("instruction") or "Explore the environment with its tools."},
    ]
    for i, step in enumerate(record["steps"]):
        call_id = f"call_{i}"
        messages.append({"role": "assistant", "content": "", "tool_calls": [{
            "id": call_id, "type": "function",
            "function": {"name": step["tool"], "arguments": json.dumps(step["arguments"], ensure_ascii=False)}}]})
        content = step["observation"] if step["observation"] is not None else step.get("error", "")
        messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
    if task.get("final_answer"):
        messages.append({"role": "assistant", "content": task["final_answer"]})
    return {"id": record["id"], "world": world.name, "task": task.get("id"), "outcome": task.get("outcome"),
            "tools": tools, "messages": messages}


def export_chat(store: Store, out: IO[str], observations: Observations = "best", include_errors: bool = False,
                filters: Filters | None = None) -> int:
    n = 0
    for record in iter_records(store, observations, None, include_errors, filters):
        out.write(json.dumps(chat_record(record), ensure_ascii=False) + "\n")
        n += 1
    return n


def export_hf(store: Store, folder: Path, observations: Observations = "best", include_errors: bool = False,
              filters: Filters | None = None) -> int:
    """A Hugging Face `datasets` dataset (save_to_disk) in `folder`, and the same rows as
    `folder/data.parquet`. Messages keep one schema: tool calls are a JSON string."""
    import datasets
    from datasets import Dataset

    datasets.disable_progress_bars()
    rows = []
    for record in iter_records(store, observations, None, include_errors, filters):
        chat = chat_record(record)
        task = record.get("task") or {}
        rows.append({
            "id": record["id"], "world": chat["world"], "run_id": task.get("run_id") or "",
            "task_id": task.get("id") or "", "instruction": task.get("instruction") or "",
            "outcome": task.get("outcome") or "", "final_answer": task.get("final_answer") or "",
            "steps": len(record["steps"]), "tools": json.dumps(chat["tools"], ensure_ascii=False),
            "messages": [{"role": m["role"], "content": m.get("content") or "",
                          "tool_calls": json.dumps(m["tool_calls"], ensure_ascii=False) if m.get("tool_calls") else "",
                          "tool_call_id": m.get("tool_call_id", "")} for m in chat["messages"]],
        })
    if not rows:
        return 0
    ds = Dataset.from_list(rows)
    folder.mkdir(parents=True, exist_ok=True)
    ds.save_to_disk(str(folder))
    ds.to_parquet(str(folder / "data.parquet"))
    return len(rows)
