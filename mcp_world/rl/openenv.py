"""OpenEnv (`openenv-core`): an MCP-style OpenEnv environment over an mcp-world server's handles.

    from mcp_world.rl.openenv import environment, serve_app
    app = serve_app("http://127.0.0.1:8765")     # a FastAPI app any OpenEnv client drives (HTTP + WebSocket)
    # uvicorn.run(app, port=8001); then e.g. GenericEnvClient("http://127.0.0.1:8001")

Each OpenEnv session is one episode handle: `reset(seed, episode_id, task=…)` opens it (the
instruction and tools in the observation's metadata), `ListToolsAction` lists the world's tools plus
`submit(answer)`, `CallToolAction` calls a tool at the handle's MCP endpoint, and `submit` ends the
episode with `verify`'s reward (`done`, `reward`, the checks in `metadata`). Past `max_steps` calls
the episode is truncated and verified the same way. Concurrent sessions are on
(`SUPPORTS_CONCURRENT_SESSIONS`): every session has its own episode.

OpenEnv's two modes (default: the server's own `--real`): `mode="simulation"` answers every tool
from the world model;
`mode="production"` opens real episodes (`POST /episodes {mode: "real"}`): the tools of the domains
the server has a real executor for (`mcp-world serve --shadow terminal`: a bubblewrap sandbox) are
answered by that executor, the world model's prediction logged beside each, and the task's checks
read the real machine. Train in one, check in the other, on the same server. A reset can choose
per episode: `reset(mode="production")`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.mcp_types import (
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    Tool,
    ToolError,
    ToolErrorType,
)
from openenv.core.env_server.types import Observation, State

from . import AsyncWorldEnv, EnvError, _Loop

class EpisodeObservation(Observation):
    """What `reset` returns: the task and the tools (OpenEnv sends `metadata` nowhere, so these are fields)."""

    episode_id: str = ""
    instruction: str = ""
    task: str | None = None
    mode: str = "simulation"  # OpenEnv's name: "production" when the tools are real
    tools: list[Tool] = []


class WorldCallObservation(CallToolObservation):
    """A tool's result; at the end also the verdict's checks and whether the episode was truncated."""

    checks: list[dict[str, Any]] = []
    truncated: bool = False


OPENENV_MODES = {"simulation": "simulation", "production": "real"}  # OpenEnv's names -> the handles' modes

SUBMIT = Tool(name="submit", description="End the episode with your final answer; the reward is computed then.",
              input_schema={"type": "object", "properties": {"answer": {"type": "string",
                                                                         "description": "Your final answer."}},
                            "required": ["answer"], "additionalProperties": False})


class WorldEnvironment(Environment):
    """One mcp-world episode per OpenEnv session (see the module docstring)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, server: str = "http://127.0.0.1:8765", world: str | None = None, task: Any = None,
                 token: str | None = None, max_steps: int = 20, mode: str | None = None) -> None:
        super().__init__()
        self.env = AsyncWorldEnv(server, world=world, task=task, token=token, max_steps=10**6,
                                 mode=_handle_mode(mode))
        self.max_steps = max_steps
        self._state = State(episode_id=None, step_count=0)
        self._tools: list[Tool] = []
        self._done = False

    # Everything runs on mcp-world's background loop (its HTTP and MCP clients live there), whether
    # OpenEnv calls the sync or the async methods.
    async def _on_loop(self, coro: Any) -> Any:
        return await asyncio.wrap_future(_Loop.submit(coro))

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> Observation:
        return await self._on_loop(self._reset(seed, kwargs))

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> Observation:
        return _Loop.run(self._reset(seed, kwargs))

    async def step_async(self, action: Any, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        return await self._on_loop(self._step(action))

    def step(self, action: Any, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        return _Loop.run(self._step(action))

    @property
    def state(self) -> State:
        return self._state

    def close(self) -> None:
        _Loop.run(self.env.close())

    async def _reset(self, seed: int | None, options: dict[str, Any]) -> Observation:
        extra = {k: v for k, v in options.items() if k in ("task", "world") and v is not None}
        if options.get("mode") is not None:
            extra["mode"] = _handle_mode(options["mode"])
        instruction, info = await self.env.reset(seed=seed, options=extra or None)
        self._tools = [Tool(name=t["name"], description=t.get("description") or "", input_schema=t["inputSchema"])
                       for t in info["tools"]] + [SUBMIT]
        self._state = State(episode_id=info["episode_id"], step_count=0)
        self._done = False
        return EpisodeObservation(done=False, reward=None, episode_id=info["episode_id"], instruction=instruction,
                                  task=info["task"], tools=self._tools,
                                  mode="production" if info["mode"] == "real" else "simulation")

    async def _step(self, action: Any) -> Observation:
        if isinstance(action, ListToolsAction):
            return ListToolsObservation(tools=self._tools, done=self._done, reward=None)
        if not isinstance(action, CallToolAction):
            raise ValueError(f"mcp-world's OpenEnv environment takes ListToolsAction or CallToolAction, "
                             f"not {type(action).__name__}")
        if self.env.episode is None:
            return self._failed(action, ToolErrorType.EXECUTION_ERROR, "no episode: call reset first")
        if self._done:
            return self._failed(action, ToolErrorType.EXECUTION_ERROR, "the episode is over: call reset")
        if action.tool_name == SUBMIT.name:
            return await self._finish(action, str((action.arguments or {}).get("answer", "")))
        try:
            text, is_error = await self.env.call(action.tool_name, action.arguments or {})
        except EnvError as err:
            return self._failed(action, ToolErrorType.EXECUTION_ERROR, str(err))
        self._state.step_count += 1
        if self._state.step_count >= self.max_steps:
            return await self._finish(action, None, text)
        error = ToolError(error_type=ToolErrorType.EXECUTION_ERROR, message=text) if is_error else None
        return WorldCallObservation(tool_name=action.tool_name, result=text, error=error, done=False, reward=None)

    async def _finish(self, action: CallToolAction, answer: str | None, text: str = "") -> WorldCallObservation:
        verdict = await self.env.verify(answer)
        self._done = True
        return WorldCallObservation(tool_name=action.tool_name, result=text, done=True,
                                    reward=float(verdict.get("reward") or 0.0), checks=verdict.get("checks", []),
                                    truncated=answer is None)

    def _failed(self, action: CallToolAction, kind: ToolErrorType, message: str) -> CallToolObservation:
        return WorldCallObservation(tool_name=action.tool_name, result=None, done=self._done, reward=None,
                                    error=ToolError(error_type=kind, message=message))


def _handle_mode(mode: str | None) -> str | None:
    if mode is None:
        return None  # the server's default (its --real)
    if mode not in OPENENV_MODES:
        raise ValueError(f"mode must be one of {', '.join(OPENENV_MODES)} (OpenEnv's modes), not {mode!r}")
    return OPENENV_MODES[mode]


def environment(server: str = "http://127.0.0.1:8765", **options: Any):
    """A factory for OpenEnv's servers (`create_app(factory, …)`): one `WorldEnvironment` per session."""

    def make() -> WorldEnvironment:
        return WorldEnvironment(server, **options)

    make.SUPPORTS_CONCURRENT_SESSIONS = True  # what OpenEnv's server reads off a factory
    return make


def serve_app(server: str = "http://127.0.0.1:8765", max_concurrent_envs: int = 64, **options: Any) -> Any:
    """OpenEnv's FastAPI app (HTTP `/reset` `/step`, WebSocket sessions) over mcp-world."""
    from openenv.core.env_server.http_server import create_fastapi_app

    return create_fastapi_app(environment(server, **options), CallToolAction, WorldCallObservation,
                              max_concurrent_envs=max_concurrent_envs)
