"""`mcp-world mirror`: stand in front of a real MCP server, answer the agent with its real results,
and log the world model's prediction of each result beside it (DESIGN.md, "Real executions").

    agent ──> mirror ──> upstream (a real MCP server: a command over stdio, or a URL)
                 │  the real result goes straight back to the agent, and is logged (provenance real)
                 └─> world model, off the agent's path: predicts the same result from the episode's
                     real history (teacher forcing, as `eval` does); the prediction is written into
                     the same step row when it is ready

The upstream's tools are exposed unchanged (name, title, description, schemas, annotations). One
upstream session serves every episode, as the real server would; mirror episodes are logged with
source `mirror` and their world is the upstream's tool list (domain `mcp`), so
`mcp-world world from-episodes` can turn them into a world that `serve` simulates.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

from .backlog import Backlog, drain_at_exit
from .dialects import Turn, get_dialect
from .domain import world_tools_domain
from .engines import EnginePool
from .errors import AgentFault, MCPWorldError
from .redaction import redact, redact_json
from .server import EpisodeKeys
from .signals import stop_on_signal
from .episodes import Episode
from .simulator import Limits, Sampling, Simulator
from .store import Store
from .world import ToolSpec, World

log = logging.getLogger("mcp_world")
BASE_ENV = {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TMPDIR", "TZ",
            "SYSTEMROOT", "NODE_PATH", "VIRTUAL_ENV"}


@dataclass(frozen=True)
class UpstreamSpec:
    """The real server: a command that speaks MCP on stdio, or a streamable-HTTP URL."""

    command: tuple[str, ...] = ()
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    timeout_s: float = 60.0
    pass_env: tuple[str, ...] = ()  # variables of our own environment the upstream may see

    def child_env(self) -> dict[str, str]:
        """The upstream command's environment: what a program needs to run, the variables asked for,
        and `env` — never the rest of mcp-world's own (its tokens and keys)."""
        keep = {k: v for k, v in os.environ.items() if k in BASE_ENV or k.startswith("LC_") or k in self.pass_env}
        return {**keep, **self.env}

    def describe(self) -> str:
        return self.url or " ".join(self.command)


class Upstream:
    """One client session to the real server, open for the mirror's lifetime."""

    def __init__(self, spec: UpstreamSpec) -> None:
        if bool(spec.command) == bool(spec.url):
            raise MCPWorldError("give the real MCP server either as a command after `--` or with --upstream URL")
        self.spec = spec
        self.client: Any = None
        self.tools: list[types.Tool] = []
        self._stack = contextlib.AsyncExitStack()

    async def __aenter__(self) -> Upstream:
        from mcp import Client, StdioServerParameters

        try:
            if self.spec.command:
                params = StdioServerParameters(command=self.spec.command[0], args=list(self.spec.command[1:]),
                                               env=self.spec.child_env())
                self.client = await self._stack.enter_async_context(
                    Client(params, read_timeout_seconds=self.spec.timeout_s))
            else:
                import httpx2
                from mcp.client.streamable_http import streamable_http_client

                hc = await self._stack.enter_async_context(
                    httpx2.AsyncClient(headers=self.spec.headers, timeout=httpx2.Timeout(self.spec.timeout_s)))
                self.client = await self._stack.enter_async_context(
                    Client(streamable_http_client(self.spec.url, http_client=hc),
                           read_timeout_seconds=self.spec.timeout_s))
            self.tools = await self._list_tools()
        except Exception as err:
            await self._stack.aclose()
            raise MCPWorldError(f"could not connect to the real MCP server ({self.spec.describe()}): "
                                f"{type(err).__name__}: {err}") from None
        return self

    async def __aexit__(self, *exc: Any) -> None:
        with contextlib.suppress(Exception):
            await self._stack.aclose()

    async def _list_tools(self) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor = None
        for _ in range(100):  # pages
            page = await self.client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    @property
    def name(self) -> str:
        info = self.client.server_info
        return getattr(info, "name", None) or "upstream"

    @property
    def version(self) -> str:
        return getattr(self.client.server_info, "version", None) or ""

    async def call(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        with anyio.fail_after(self.spec.timeout_s + 5):
            return await self.client.call_tool(name, arguments, read_timeout_seconds=self.spec.timeout_s)


def result_text(result: types.CallToolResult) -> str:
    """The result as the agent reads it: text blocks as they are, other blocks named."""
    parts = []
    for block in result.content:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            parts.append(f"[{kind} {getattr(block, 'mime_type', '')}, {len(getattr(block, 'data', '') or '') * 3 // 4} bytes]")
        elif kind == "resource_link":
            parts.append(f"[resource {block.uri}]")
        elif kind == "resource":
            res = block.resource
            parts.append(getattr(res, "text", None) or f"[resource {res.uri}]")
        else:
            parts.append(f"[{kind}]")
    return "\n".join(parts)


def world_for(upstream: Upstream, name: str | None = None, description: str | None = None) -> World:
    """The upstream as a world of the mcp domain: its tools (those with usable schemas)."""
    specs = []
    for t in upstream.tools:
        data = {"name": t.name, "title": t.title, "description": t.description or "",
                "inputSchema": t.input_schema, "outputSchema": t.output_schema,
                "annotations": t.annotations.model_dump(by_alias=True, exclude_none=True) if t.annotations else None}
        try:
            specs.append(ToolSpec.model_validate({k: v for k, v in data.items() if v is not None}))
        except ValueError as err:
            log.warning("upstream tool %s is exposed but not simulated: %s", t.name, err)
    if not specs:
        raise MCPWorldError(f"the real MCP server ({upstream.spec.describe()}) lists no tools to mirror")
    instructions = (upstream.client.instructions or "").strip()
    desc = description or (f"The MCP server {upstream.name} {upstream.version}".strip() + "."
                           + (f"\n{instructions}" if instructions else ""))
    return World(name=name or upstream.name, description=desc, domains=[world_tools_domain()], tools=specs)


@dataclass
class MirrorEpisode:
    sim: Episode  # what the world model needs: world, seed, per-domain history of *real* results
    next_index: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Mirror:
    """Forwards calls, logs real results, and schedules the world model's predictions."""

    def __init__(self, upstream: Upstream, world: World, store: Store, engines: EnginePool | None,
                 dialect: str = "instruct", limits: Limits = Limits(), sampling: Sampling = Sampling(),
                 predict_concurrency: int = 2, max_backlog: int = 256,
                 price: tuple[float, float] | None = None, dialect_options: dict[str, Any] | None = None) -> None:
        self.upstream = upstream
        self.world = world
        self.store = store
        self.engines = engines
        self.dialect = dialect
        self.sim = None if engines is None else Simulator(world, engines, store, get_dialect(dialect, **(dialect_options or {})), limits,
                                                          sampling=sampling, price=price)
        self._episodes: dict[str, MirrorEpisode] = {}
        self.max_episodes = limits.max_episodes
        self._creating = asyncio.Lock()
        self.backlog = Backlog(store, predict_concurrency, max_backlog, who="the mirror")
        self.log_failures = 0  # real results that reached the agent but not the log

    async def episode(self, key: str) -> MirrorEpisode:
        ep = self._episodes.get(key)
        if ep is None:
            async with self._creating:
                ep = self._episodes.get(key)
                if ep is None:
                    ep = await self._start(key)
        return ep

    async def _start(self, key: str) -> MirrorEpisode:
        episode_id = key
        n = 1
        while self.store.episode(episode_id) is not None:
            episode_id = f"{key}.{n}"
            n += 1
        seed = random.SystemRandom().randrange(2**31)
        engine = self.engines.for_episode(episode_id) if self.engines else None
        await self.store.add_episode(
            id=episode_id, world_name=self.world.name,
            world=self.world.model_dump(by_alias=True, exclude_defaults=True),
            engine_url=engine.url if engine else None, model=engine.model if engine else None,
            dialect=self.dialect if engine else None, seed=seed, source="mirror",
            state={"upstream": self.upstream.spec.describe()}, **(self.sim._price_fields() if self.sim else {}),
        )
        ep = MirrorEpisode(self.sim.new_episode(episode_id, self.world, seed) if self.sim is not None
                           else Episode(episode_id, self.world, seed, "", {}))
        while len(self._episodes) >= self.max_episodes:  # the oldest first; its log stays in SQLite
            self._episodes.pop(next(iter(self._episodes)))
        self._episodes[key] = ep
        return ep

    async def call(self, key: str, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        ep = await self.episode(key)
        async with ep.lock:  # one episode's steps are logged in the order they happened
            index = ep.next_index
            ep.next_index += 1
            t0 = time.perf_counter()
            # What is stored or sent to an engine has its secrets redacted (the agent gets the real result).
            safe_arguments = redact_json(arguments or {})
            row: dict[str, Any] = {"episode_id": ep.sim.id, "idx": index, "domain": self.world.domains[0],
                                   "tool": name, "arguments": safe_arguments}
            try:
                result = await self.upstream.call(name, arguments)
            except Exception as err:  # the upstream failed: the agent hears it, the log keeps it
                message = f"the real MCP server did not answer {name}: {type(err).__name__}: {err}"[:2000]
                row.update(error_kind="upstream", error=message, latency_ms=(time.perf_counter() - t0) * 1000)
                await self.store.add_step(row)
                return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)
            text = result_text(result)
            real_structured = dict(result.structured_content) if isinstance(result.structured_content, dict) else None
            if result.is_error:
                real_structured = {**(real_structured or {}), "isError": True}
            safe_text, _ = redact(text)
            row.update(real_observation=safe_text,
                       real_structured=redact_json(real_structured) if real_structured else real_structured,
                       provenance="real", latency_ms=(time.perf_counter() - t0) * 1000)
            step_id: int | None
            try:
                step_id = await self.store.add_step(row)
            except Exception as err:  # noqa: BLE001 - the real call happened: its result must reach the agent
                # (an error here would make the agent retry, and the real side effect happen twice)
                self.log_failures += 1
                log.error("the real result of %s (episode %s, step %d) could not be logged: %s", name, ep.sim.id,
                          index, err)
                step_id = None
            spec = self.sim.tools.get(name) if self.sim else None
            history: list[Turn] = []
            if spec is not None and ep.sim.dialect is not None:
                # The prediction sees the real results before this one (teacher forcing, as eval does).
                history = list(ep.sim.history.get(spec.domain, []))
                ep.sim.history.setdefault(spec.domain, []).append(
                    Turn(ep.sim.dialect.action_text(spec, safe_arguments), safe_text, tool=name,
                         arguments=dict(safe_arguments)))
        if self.sim is not None and spec is not None and step_id is not None:
            await self._schedule(ep, index, step_id, name, safe_arguments, history)
        meta = dict(result.meta or {}) if hasattr(result, "meta") else {}
        meta.update({"mcp-world/episode": ep.sim.id, "mcp-world/step": index, "mcp-world/provenance": "real"})
        return result.model_copy(update={"meta": meta})

    # -- predictions, off the agent's path --------------------------------------------------------
    @property
    def predicted(self) -> int:
        return self.backlog.predicted

    @property
    def skipped(self) -> int:
        return self.backlog.skipped

    async def _schedule(self, ep: MirrorEpisode, index: int, step_id: int, name: str, arguments: dict[str, Any],
                  history: list[Turn]) -> None:
        assert self.sim is not None
        sim = self.sim

        async def predict() -> dict[str, Any]:
            p = await sim.predict(ep.sim, index, name, arguments, structured=False, state={}, history=history)
            return {"observation": p.parsed.text, "provenance": "real",
                    "structured": json.dumps(p.parsed.structured) if p.parsed.structured else None,
                    "prompt_tokens": p.prompt_tokens, "completion_tokens": p.completion_tokens}

        await self.backlog.schedule(step_id, predict)

    async def drain(self, timeout_s: float, stop: anyio.Event | None = None) -> int:
        """Wait for the predictions still running (`Backlog.drain`); returns how many were abandoned."""
        return await self.backlog.drain(timeout_s, stop)


def build_mirror_server(mirror: Mirror, connection_key: str | None = None) -> Server:
    keys = EpisodeKeys(connection_key)
    upstream = mirror.upstream

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=upstream.tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            return await mirror.call(keys.key(ctx), params.name, params.arguments)
        except AgentFault as fault:
            return types.CallToolResult(content=[types.TextContent(text=str(fault))], is_error=True)
        except Exception as err:
            log.exception("unexpected error mirroring %s", params.name)
            return types.CallToolResult(content=[types.TextContent(
                text=f"mcp-world mirror failed on this call ({type(err).__name__}); it was logged")], is_error=True)

    return Server(upstream.name, version=upstream.version or "0", instructions=upstream.client.instructions,
                  on_list_tools=list_tools, on_call_tool=call_tool)


@dataclass(frozen=True)
class MirrorConfig:
    upstream: UpstreamSpec
    db: Path
    serve: Any  # a serving.ServeConfig for transport, engines, limits (its world is replaced)
    name: str | None = None
    description: str | None = None
    predict: bool = True
    drain_s: float = 120.0


def run_mirror(cfg: MirrorConfig, say: Any) -> None:
    """Serve the mirror until interrupted; every engine this started is stopped on the way out."""
    from .serving import QuietServer, Running, check_exposure, make_engines, security_settings

    check_exposure(cfg.serve)
    store = Store(cfg.db)
    running = Running(say)
    stdio = cfg.serve.transport == "stdio"
    pool = make_engines(cfg.serve, running, say, background_start=True) if cfg.predict else None

    async def main() -> None:
        async with Upstream(cfg.upstream) as upstream:
            world = world_for(upstream, cfg.name, cfg.description)
            mirror = Mirror(upstream, world, store, pool, cfg.serve.dialect, cfg.serve.limits, cfg.serve.sampling,
                            price=cfg.serve.price,
                            dialect_options={"thinking": cfg.serve.thinking, "thinking_budget": cfg.serve.thinking_budget,
                                             "prompts": cfg.serve.agentworld_prompts})
            try:
                if stdio:
                    from mcp.server.stdio import stdio_server

                    server = build_mirror_server(mirror, connection_key=f"mirror-{uuid.uuid4().hex[:12]}")
                    async with stdio_server() as (read, write):
                        await server.run(read, write, server.create_initialization_options())
                else:
                    import uvicorn

                    server = build_mirror_server(mirror)
                    app = server.streamable_http_app(host=cfg.serve.host,
                                                     transport_security=security_settings(cfg.serve))
                    if cfg.serve.token:
                        from .auth import BearerToken

                        app = BearerToken(app, cfg.serve.token)
                    url = f"http://{cfg.serve.host}:{cfg.serve.port}/mcp"
                    say(f"mcp-world is mirroring {upstream.name} ({cfg.upstream.describe()}, "
                        f"{len(upstream.tools)} tools) at {url}\nlog: {cfg.db}"
                        + ("" if pool else " (predictions off)") + "\nPress Ctrl+C to stop.")
                    userver = QuietServer(uvicorn.Config(app, host=cfg.serve.host, port=cfg.serve.port,
                                                          log_level="warning", lifespan="on",
                                                          limit_concurrency=cfg.serve.limits.max_connections))
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(stop_on_signal, userver)
                        await userver.serve()
                        tg.cancel_scope.cancel()
            finally:
                await drain_at_exit(mirror.backlog, cfg.drain_s, say, "mirror")

    try:
        anyio.run(main)
    finally:
        if pool is not None:
            with contextlib.suppress(Exception):
                anyio.run(pool.aclose)
        running.stop()
        store.close()
        sys.stderr.flush()
