"""TRL: an environment class for `GRPOTrainer(environment_factory=...)`.

    from mcp_world.rl.trl import environment, task_dataset
    Env = environment("http://127.0.0.1:8765")                  # the server's world and its tools
    trainer = GRPOTrainer(model, args=..., train_dataset=task_dataset("fixtures/tasks/devbox.yaml"),
                          environment_factory=Env)

TRL builds one instance per rollout (`Env()`, no arguments), calls `reset(**row)` with the dataset
row (its `task` column: a task id or an inline task as JSON; optional `seed`), exposes every other
public method as a tool, and calls `get_reward()` when the rollout ends. Here each method is one of
the world's tools, with the tool's JSON schema turned into type hints and a Google-style docstring
(what TRL reads), each `reset` opens a fresh episode handle and ends the one before, a tool's error
result comes back as text starting with `[error]`, and `get_reward` is the server's `verify`.
"""

from __future__ import annotations

import json
import keyword
import re
from pathlib import Path
from typing import Any

from . import EnvError, WorldEnv

_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "array": "list", "object": "dict"}
_RESERVED = {"reset", "get_reward", "close"}


def _ident(name: str) -> str:
    ident = re.sub(r"\W", "_", name)
    if not ident or ident[0].isdigit() or keyword.iskeyword(ident) or ident in _RESERVED or ident.startswith("_"):
        ident = "tool_" + ident.lstrip("_")
    return ident


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split()) or "(no description)"


def tool_source(tool: dict[str, Any]) -> tuple[str, str]:
    """(method name, Python source of a method calling `tool`) from its MCP definition."""
    name = _ident(tool["name"])
    schema = tool.get("inputSchema") or {}
    props: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    params, doc_args, call_args = ["self"], [], []
    ordered = [p for p in props if p in required] + [p for p in props if p not in required]
    for prop in ordered:
        spec = props[prop] if isinstance(props[prop], dict) else {}
        arg = _ident(prop)
        kind = spec.get("type")
        hint = _TYPES.get(kind if isinstance(kind, str) else "string", "str")
        if prop in required:
            params.append(f"{arg}: {hint}")
        else:
            params.append(f"{arg}: {hint} | None = None")
        doc_args.append(f"            {arg}: {_one_line(spec.get('description') or spec.get('title') or prop)}")
        call_args.append(f"{prop!r}: {arg}")
    description = _one_line(tool.get("description")).replace('"""', "'''").replace("\\", "\\\\")
    args_block = ("\n\n        Args:\n" + "\n".join(doc_args).replace('"""', "'''").replace("\\", "\\\\")) if doc_args else ""
    source = (
        f"    def {name}({', '.join(params)}) -> str:\n"
        f'        """{description}{args_block}\n\n'
        f"        Returns:\n            What the tool returned.\n"
        f'        """\n'
        f"        return self._call({tool['name']!r}, {{{', '.join(call_args)}}})\n"
    )
    return name, source


class WorldEnvironment:
    """The base of the classes `environment()` makes (do not use directly)."""

    server: str = "http://127.0.0.1:8765"
    world: str | None = None
    token: str | None = None
    observation_chars: int | None = 4_000

    def __init__(self) -> None:
        self._env = WorldEnv(self.server, world=self.world, token=self.token, max_steps=10**6,
                             observation_chars=self.observation_chars)
        self.reward: float | None = None
        self.verdict: dict[str, Any] | None = None

    def reset(self, **row: Any) -> str | None:
        """Open a fresh episode for this row's `task` (an id, or an inline task as JSON) and `seed`.
        Returns the instruction when the row's prompt does not already carry it."""
        task, seed = row.get("task"), row.get("seed")
        options = {"task": task} if task not in (None, "") else None
        instruction, _ = self._env.reset(seed=int(seed) if seed is not None else None, options=options)
        self.reward = self.verdict = None
        prompt = json.dumps(row.get("prompt") or "", ensure_ascii=False)
        return None if json.dumps(instruction, ensure_ascii=False)[1:-1] in prompt else instruction

    def get_reward(self) -> float:
        """The episode's reward from the server's `verify` (0.0 when it cannot be verified)."""
        try:
            self.verdict = self._env.verify()
        except EnvError as err:
            self.verdict = {"error": str(err)}
            self.reward = 0.0
            return 0.0
        self.reward = float(self.verdict.get("reward") or 0.0)
        return self.reward

    def _call(self, tool: str, arguments: dict[str, Any]) -> str:
        text, is_error = self._env.call(tool, {k: v for k, v in arguments.items() if v is not None})
        return f"[error] {text}" if is_error else text


def environment(server: str = "http://127.0.0.1:8765", world: str | None = None, token: str | None = None,
                observation_chars: int | None = 4_000, name: str = "MCPWorldEnvironment") -> type:
    """A class for `environment_factory`: the tools of `world` (default: the server's) as methods."""
    from . import _Loop, episode_client

    async def listing() -> dict[str, Any]:
        client = episode_client(server, token)
        try:
            return await client.request("GET", "/episodes")
        finally:
            await client.aclose()

    info = _Loop.run(listing())
    tools = info["tools"]
    namespace: dict[str, Any] = {}
    sources = []
    seen: set[str] = set()
    for tool in tools:
        method, source = tool_source(tool)
        if method in seen:
            raise EnvError(f"two tools map to the method name {method!r}; rename one in the world file")
        seen.add(method)
        sources.append(source)
    code = f"class {name}(WorldEnvironment):\n" + ("\n".join(sources) if sources else "    pass\n")
    exec(compile(code, f"<mcp-world environment {info['world']}>", "exec"), {"WorldEnvironment": WorldEnvironment},
         namespace)
    cls = namespace[name]
    cls.server, cls.world, cls.token, cls.observation_chars = server, world, token, observation_chars
    cls.__doc__ = f"mcp-world's {info['world']} world at {server}: {', '.join(t['name'] for t in tools)}."
    return cls


def task_dataset(path: str | Path, world: Any | None = None, repeat: int = 1, system: str | None = None) -> Any:
    """A `datasets.Dataset` of a task file's tasks: `prompt` (the instruction as the user turn,
    after an optional system turn) and `task` (the task inline, as JSON, so any server can open it)."""
    from datasets import Dataset

    from ..tasks import load_tasks

    tf = load_tasks(Path(path), world)
    rows = []
    for _ in range(repeat):
        for t in tf.tasks:
            prompt = ([{"role": "system", "content": system}] if system else []) + \
                [{"role": "user", "content": t.instruction}]
            rows.append({"prompt": prompt, "task": t.model_dump_json(exclude_defaults=True, exclude={"actions"})})
    return Dataset.from_list(rows)
