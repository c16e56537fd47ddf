"""Driving mcp-world from RL code: a Gymnasium-style environment over a server's episode handles.

    env = WorldEnv("http://127.0.0.1:8765", task="branch")
    observation, info = env.reset(seed=1)         # the instruction; info: episode_id, tools, mcp_url
    observation, reward, terminated, truncated, info = env.step({"tool": "run_command",
                                                                 "arguments": {"command": "git branch"}})
    ...
    observation, reward, terminated, truncated, info = env.step({"answer": "done"})  # verify -> reward
    env.close()

Every episode is one handle (`POST /episodes`), its tools are called over a real MCP client at the
handle's own endpoint, and the reward is the server's `verify`. `AsyncWorldEnv` is the same with
`async` methods (for rollout-function trainers: ART, rLLM, SkyRL, your own loop); `WorldEnv` runs
it on a background event loop, so it is safe to call from synchronous trainer code and threads.
Adapters for specific trainers live beside this module (`mcp_world.rl.trl`, …).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..errors import MCPWorldError

T = TypeVar("T")
__all__ = ["AsyncWorldEnv", "EnvError", "WorldEnv", "episode_client"]


class EnvError(MCPWorldError):
    """The server refused a request (the message is the server's)."""


@dataclass
class _Episode:
    id: str
    mcp_url: str
    instruction: str
    tools: list[dict[str, Any]]
    task: str | None
    max_steps: int | None
    mode: str = "simulation"
    client: Any = None
    stack: contextlib.AsyncExitStack = field(default_factory=contextlib.AsyncExitStack)
    steps: int = 0
    done: bool = False


class episode_client:  # noqa: N801 - used like a function
    """The HTTP side of handles: open, verify, get, end (one `httpx.AsyncClient` per server)."""

    def __init__(self, server: str, token: str | None = None, timeout_s: float = 300.0) -> None:
        import httpx

        self.server = server.rstrip("/").removesuffix("/mcp")
        self.token = token
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.AsyncClient(base_url=self.server, headers=headers,
                                      timeout=httpx.Timeout(timeout_s, connect=10.0),
                                      limits=httpx.Limits(max_connections=256, max_keepalive_connections=64))

    async def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        import httpx

        try:
            r = await self.http.request(method, path, json=body if body is not None else None)
        except httpx.HTTPError as err:
            raise EnvError(f"mcp-world at {self.server} is not reachable ({type(err).__name__}: {err})") from None
        try:
            data = r.json()
        except ValueError:
            data = {"error": r.text[:300]}
        if r.status_code >= 400:
            raise EnvError(f"{method} {path}: HTTP {r.status_code}: {data.get('error', data)}")
        return data

    async def aclose(self) -> None:
        await self.http.aclose()


class AsyncWorldEnv:
    """One episode at a time over episode handles; `reset` ends the previous one."""

    def __init__(self, server: str = "http://127.0.0.1:8765", world: str | None = None, task: Any = None,
                 max_steps: int = 20, token: str | None = None, timeout_s: float = 300.0,
                 observation_chars: int | None = None, mode: str | None = None) -> None:
        self.server, self.world, self.task = server, world, task
        self.mode = mode  # "simulation" or "real" (the server's real executors); None: the server's default
        self.max_steps = max_steps
        self.token, self.timeout_s = token, timeout_s
        self.observation_chars = observation_chars  # what the policy reads of each result (None: all)
        self._http: episode_client | None = None
        self.episode: _Episode | None = None
        self.last_verdict: dict[str, Any] | None = None

    def _client(self) -> episode_client:
        if self._http is None:
            self._http = episode_client(self.server, self.token, self.timeout_s)
        return self._http

    async def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Open a fresh episode. `options`: `task` (an id or an inline task), `world` and `mode`
        for this episode only. Returns (the instruction, info)."""
        await self._end()
        options = dict(options or {})
        body: dict[str, Any] = {}
        task = options.pop("task", self.task)
        world = options.pop("world", self.world)
        mode = options.pop("mode", self.mode)
        if options:
            raise EnvError(f"unknown reset options {sorted(options)}; accepted: task, world, mode")
        if mode is not None:
            body["mode"] = mode
        if task is not None:
            body["task"] = json.loads(task) if isinstance(task, str) and task.lstrip().startswith("{") else task
        if world is not None:
            body["world"] = world
        if seed is not None:
            body["seed"] = seed
        opened = await self._client().request("POST", "/episodes", body)
        ep = _Episode(opened["episode_id"], opened["mcp_url"], opened["instruction"], opened["tools"],
                      opened.get("task"), opened.get("max_steps"), opened.get("mode", "simulation"))
        self.episode, self.last_verdict = ep, None
        return ep.instruction, self._info(ep)

    def _info(self, ep: _Episode, **extra: Any) -> dict[str, Any]:
        return {"episode_id": ep.id, "mcp_url": ep.mcp_url, "tools": ep.tools, "task": ep.task,
                "instruction": ep.instruction, "mode": ep.mode, "steps": ep.steps, **extra}

    async def _mcp(self, ep: _Episode) -> Any:
        if ep.client is None:
            import httpx2
            from mcp import Client
            from mcp.client.streamable_http import streamable_http_client

            headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
            hc = await ep.stack.enter_async_context(httpx2.AsyncClient(headers=headers,
                                                                       timeout=httpx2.Timeout(self.timeout_s)))
            ep.client = await ep.stack.enter_async_context(
                Client(streamable_http_client(ep.mcp_url, http_client=hc), read_timeout_seconds=self.timeout_s))
        return ep.client

    async def call(self, tool: str, arguments: dict[str, Any] | None = None) -> tuple[str, bool]:
        """Call one tool in the current episode: (the observation text, whether it was an error)."""
        ep = self._current()
        client = await self._mcp(ep)
        result = await client.call_tool(tool, arguments or {})
        ep.steps += 1
        text = "\n".join(getattr(c, "text", "") for c in result.content)
        if self.observation_chars is not None and len(text) > self.observation_chars:
            text = text[: self.observation_chars] + f"\n[… {len(text) - self.observation_chars} more characters]"
        return text, bool(result.is_error)

    async def verify(self, answer: str | None = None) -> dict[str, Any]:
        ep = self._current()
        self.last_verdict = await self._client().request(
            "POST", f"/episodes/{ep.id}/verify", {"answer": answer} if answer is not None else {})
        return self.last_verdict

    async def step(self, action: dict[str, Any]) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """`{"tool": NAME, "arguments": {...}}` calls a tool (reward 0 until the end);
        `{"answer": TEXT}` ends the episode and verifies it. Past `max_steps` tool calls the episode
        is truncated and verified."""
        ep = self._current()
        if ep.done:
            raise EnvError("the episode is over; call reset() for a new one")
        if not isinstance(action, dict) or not (("tool" in action) ^ ("answer" in action)):
            raise EnvError('an action is {"tool": NAME, "arguments": {...}} or {"answer": TEXT}')
        if "answer" in action:
            ep.done = True
            verdict = await self.verify(str(action["answer"]))
            return "", float(verdict["reward"] or 0.0), True, False, self._info(ep, verdict=verdict)
        extra = set(action) - {"tool", "arguments"}
        if extra:
            raise EnvError(f"unknown action fields {sorted(extra)}; a tool call is {{tool, arguments}}")
        text, is_error = await self.call(str(action["tool"]), action.get("arguments") or {})
        limit = ep.max_steps or self.max_steps
        if ep.steps >= limit:
            ep.done = True
            verdict = await self.verify()
            return text, float(verdict["reward"] or 0.0), False, True, self._info(ep, verdict=verdict, is_error=is_error)
        return text, 0.0, False, False, self._info(ep, is_error=is_error)

    def _current(self) -> _Episode:
        if self.episode is None:
            raise EnvError("no episode yet: call reset() first")
        return self.episode

    async def _end(self) -> None:
        ep, self.episode = self.episode, None
        if ep is None:
            return
        with contextlib.suppress(Exception):
            await ep.stack.aclose()
        with contextlib.suppress(EnvError):
            await self._client().request("DELETE", f"/episodes/{ep.id}")

    async def close(self) -> None:
        await self._end()
        if self._http is not None:
            await self._http.aclose()
            self._http = None


class _Loop:
    """One background event loop for every synchronous env of this process."""

    _lock = threading.Lock()
    _loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def submit(cls, coro: Coroutine[Any, Any, T]) -> Any:
        """Schedule `coro` on the loop: a concurrent.futures.Future."""
        with cls._lock:
            if cls._loop is None or cls._loop.is_closed():
                cls._loop = asyncio.new_event_loop()
                threading.Thread(target=cls._loop.run_forever, name="mcp-world-env", daemon=True).start()
        return asyncio.run_coroutine_threadsafe(coro, cls._loop)

    @classmethod
    def run(cls, coro: Coroutine[Any, Any, T]) -> T:
        return cls.submit(coro).result()


class WorldEnv:
    """The synchronous, Gymnasium-style face of `AsyncWorldEnv` (same arguments)."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.env = AsyncWorldEnv(*args, **kwargs)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        return _Loop.run(self.env.reset(seed, options))

    def step(self, action: dict[str, Any]) -> tuple[str, float, bool, bool, dict[str, Any]]:
        return _Loop.run(self.env.step(action))

    def call(self, tool: str, arguments: dict[str, Any] | None = None) -> tuple[str, bool]:
        return _Loop.run(self.env.call(tool, arguments))

    def verify(self, answer: str | None = None) -> dict[str, Any]:
        return _Loop.run(self.env.verify(answer))

    @property
    def episode_id(self) -> str | None:
        return self.env.episode.id if self.env.episode else None

    def close(self) -> None:
        _Loop.run(self.env.close())
