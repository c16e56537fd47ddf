"""Running the server: wiring world, engine, store and transport together (`mcp-world serve`)."""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import anyio

from . import embedded
from .dialects import get_dialect
from .engine import EnginePool, OpenAIEngine, StartGate
from .errors import MCPWorldError
from .server import build_server
from .simulator import Limits, Sampling, Simulator
from .store import Store
from .world import World

log = logging.getLogger("mcp_world")
Say = Callable[[str], None]


@dataclass(frozen=True)
class ServeConfig:
    world: World
    db: Path
    engines: tuple[str, ...] = ("embedded",)  # "embedded" or OpenAI-compatible base URLs
    model: str | None = None  # the engine's model name; default: what it lists first
    dialect: str = "instruct"
    transport: str = "http"  # http | stdio
    host: str = "127.0.0.1"
    port: int = 8765
    seed: int | None = None
    engine_timeout_s: float = 120.0
    limits: Limits = field(default_factory=Limits)
    sampling: Sampling = field(default_factory=Sampling)
    embedded: embedded.EmbeddedConfig = field(default_factory=embedded.EmbeddedConfig)


class Running:
    """The engines this command owns, stopped when it ends."""

    def __init__(self) -> None:
        self.owned: list[embedded.EmbeddedEngineProcess] = []

    def stop(self) -> None:
        for e in self.owned:
            e.stop()


def make_engines(cfg: ServeConfig, running: Running, say: Say, background_start: bool) -> EnginePool:
    engines = []
    for spec in cfg.engines:
        if spec != "embedded":
            engines.append(OpenAIEngine(spec, model=cfg.model, timeout_s=cfg.engine_timeout_s,
                                        max_observation_chars=cfg.limits.max_observation_chars))
            continue
        model = embedded.SERVED_NAME if cfg.embedded.adapter is None else f"{embedded.SERVED_NAME}-adapter"
        record = embedded.find_background(cfg.embedded.cache) if cfg.embedded.adapter is None else None
        if record is not None:
            say(f"using the background embedded engine at {record.url} (pid {record.pid})")
            engines.append(OpenAIEngine(record.url, model=model, timeout_s=cfg.engine_timeout_s,
                                        max_observation_chars=cfg.limits.max_observation_chars))
            continue
        ecfg = cfg.embedded if cfg.embedded.port else replace(cfg.embedded, port=embedded.free_port(cfg.embedded.host))
        url = f"http://{ecfg.host}:{ecfg.port}"
        gate = StartGate(timeout_s=ecfg.start_timeout_s + 60) if background_start else None

        def _start(ecfg: embedded.EmbeddedConfig = ecfg, gate: StartGate | None = gate) -> None:
            try:
                running.owned.append(embedded.start(ecfg, say=say))
                if gate:
                    gate.open()
            except MCPWorldError as err:
                if gate is None:
                    raise
                say(f"error: {err}")
                gate.open(str(err).splitlines()[0])

        if background_start:
            threading.Thread(target=_start, name="embedded-engine", daemon=True).start()
        else:
            _start()
        engines.append(OpenAIEngine(url, model=model, timeout_s=cfg.engine_timeout_s,
                                    max_observation_chars=cfg.limits.max_observation_chars, starting=gate))
    return EnginePool(engines)


def connect_lines(url: str, world: str, repo_python: str) -> str:
    desktop = {"mcpServers": {f"mcp-world-{world}": {
        "command": repo_python, "args": ["-m", "mcp_world", "serve", "--transport", "stdio", "--world", world]}}}
    return (
        f"Claude Code:     claude mcp add --transport http mcp-world {url} --header \"X-Episode-Id: claude-code-1\"\n"
        f"Claude Desktop:  add to claude_desktop_config.json (stdio; reuses `mcp-world engine start` if running):\n"
        f"{json.dumps(desktop, indent=2)}\n"
        f"Any MCP client:  streamable HTTP at {url}; send an X-Episode-Id header to keep one episode across calls."
    )


def serve(cfg: ServeConfig, say: Say) -> None:
    """Serve until interrupted. Everything started here is stopped on the way out."""
    store = Store(cfg.db)
    running = Running()
    pool: EnginePool | None = None
    try:
        stdio = cfg.transport == "stdio"
        pool = make_engines(cfg, running, say, background_start=stdio)
        sim = Simulator(cfg.world, pool, store, get_dialect(cfg.dialect), cfg.limits, cfg.seed, cfg.sampling)
        if stdio:
            server = build_server(sim, connection_key=f"stdio-{uuid.uuid4().hex[:12]}")
            anyio.run(_run_stdio, server)
        else:
            server = build_server(sim)
            _run_http(server, cfg, say)
    finally:
        if pool is not None:
            with contextlib.suppress(Exception):
                anyio.run(pool.aclose)
        running.stop()
        store.close()


async def _run_stdio(server) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def _run_http(server, cfg: ServeConfig, say: Say) -> None:
    import uvicorn

    app = server.streamable_http_app(host=cfg.host)
    url = f"http://{'127.0.0.1' if cfg.host in ('0.0.0.0', '::') else cfg.host}:{cfg.port}/mcp"
    config = uvicorn.Config(app, host=cfg.host, port=cfg.port, log_level="warning", lifespan="on")
    userver = uvicorn.Server(config)
    say(f"mcp-world is serving world '{cfg.world.name}' ({', '.join(cfg.world.domains)}) at {url}\n"
        f"log: {cfg.db}\n" + connect_lines(url, cfg.world.name, sys.executable) + "\nPress Ctrl+C to stop.")
    userver.run()
