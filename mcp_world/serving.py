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
import uvicorn

from . import embedded
from .dialects import get_dialect
from .engines import EnginePool, StartGate, VLLMEngine, open_url, resolve
from .engines.profiles import NAMES as PROFILE_NAMES
from .errors import EngineSetupError, MCPWorldError, UnknownName
from .server import build_server
from .signals import stop_cleanly_on_term
from .simulator import Limits, Sampling, Simulator
from .store import Store
from .world import World

log = logging.getLogger("mcp_world")
Say = Callable[[str], None]


@dataclass(frozen=True)
class EngineAccess:
    """How URL engines are reached: their keys, what they accept, how many requests at once."""

    keys: tuple[str, ...] = ()  # one key for every URL engine, or one per URL engine in order
    profile: str = "auto"  # profiles.NAMES; auto: ask the server what it is
    concurrency: int | None = None  # requests in flight per engine; None: no cap

    def key_for(self, index: int, count: int) -> str | None:
        """The key of the `index`-th of `count` URL engines."""
        if not self.keys:
            return None
        if len(self.keys) == 1:
            return self.keys[0]
        if len(self.keys) != count:
            raise EngineSetupError(f"{len(self.keys)} engine keys for {count} URL engines: give one key for all, "
                             f"or one per --engine URL in order")
        return self.keys[index]

    def __repr__(self) -> str:  # never print a key
        return f"EngineAccess(keys={len(self.keys)} given, profile={self.profile!r}, concurrency={self.concurrency})"


@dataclass(frozen=True)
class ServeConfig:
    world: World | None  # None: for commands that only need the engines (mirror, probe)
    db: Path
    engines: tuple[str, ...] = ("embedded",)  # "embedded" or OpenAI-compatible base URLs
    model: str | None = None  # the engine's model name; default: what it lists first
    dialect: str = "auto"  # auto: by the engine's model name (dialects.dialect_for_model)
    thinking: bool = True  # agentworld: let the model think before answering
    thinking_budget: int = 4096  # agentworld: tokens the thinking may take, on top of the observation's
    agentworld_prompts: Path | None = None  # agentworld: the model's own system prompts (a copy of its repository)
    transport: str = "http"  # http | stdio
    host: str = "127.0.0.1"
    port: int = 8765
    seed: int | None = None
    shadow: tuple[str, ...] = ()  # domains also run for real in a sandbox (terminal)
    real: tuple[str, ...] = ()  # domains whose agent receives the real observation
    shadow_timeout_s: float = 10.0
    shadow_origins: tuple[str, ...] = ()  # the only origins the shadow browser fetches (local ones)
    shadow_memory_mib: int = 512
    shadow_disk_mib: int = 256
    shadow_processes: int = 64
    token: str | None = None  # bearer token for HTTP; required when binding beyond loopback
    allowed_hosts: tuple[str, ...] = ()  # Host headers accepted beyond loopback (DNS-rebinding protection)
    engine_timeout_s: float = 120.0
    state_mode: str = "full"  # off | prompt | full (state.py)
    replay_cache: bool = False  # answer a situation seen before from the log's cache
    limits: Limits = field(default_factory=Limits)
    sampling: Sampling = field(default_factory=Sampling)
    embedded: embedded.EmbeddedConfig = field(default_factory=embedded.EmbeddedConfig)
    tasks: tuple[Path, ...] = ()  # task files whose tasks POST /episodes can open (beside the shipped ones)
    judge_engine: str | None = None  # an engine URL that scores tasks' judge rubrics
    public_url: str | None = None  # the base of the mcp_url handed out (default: the request's own)
    access: EngineAccess = field(default_factory=EngineAccess)
    price: tuple[float, float] | None = None  # US dollars per million prompt and completion tokens


class Running:
    """The embedded engines this command owns: watched (a dead one is restarted on the same port,
    a bounded number of times) and stopped when the command ends."""

    def __init__(self, say: Say = lambda m: None, max_restarts: int = 5) -> None:
        self.owned: list[tuple[embedded.EmbeddedEngineProcess, embedded.EmbeddedConfig]] = []
        self.say = say
        self.max_restarts = max_restarts
        self.restarts = 0
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._watcher: threading.Thread | None = None

    def add(self, proc: embedded.EmbeddedEngineProcess, ecfg: embedded.EmbeddedConfig) -> None:
        with self._lock:
            self.owned.append((proc, ecfg))
        if self._watcher is None:
            self._watcher = threading.Thread(target=self._watch, name="engine-watchdog", daemon=True)
            self._watcher.start()

    def _watch(self) -> None:
        while not self._stopping.wait(1.0):
            with self._lock:
                dead = [(i, p, c) for i, (p, c) in enumerate(self.owned) if p.proc is not None and p.proc.poll() is not None]
            for i, proc, ecfg in dead:
                if self._stopping.is_set():
                    return
                if self.restarts >= self.max_restarts:
                    self.say(f"the embedded engine at {proc.url} died (exit {proc.proc.returncode}) and was already "
                             f"restarted {self.restarts} times; calls will report it unavailable")
                    proc.proc = None
                    continue
                self.restarts += 1
                embedded.kill_group(proc.proc.pid, timeout=5)  # its workers may outlive the server process
                self.say(f"the embedded engine at {proc.url} died (exit {proc.proc.returncode}); "
                         f"restarting it ({self.restarts}/{self.max_restarts})")
                log.warning("embedded engine died; restart %d", self.restarts)
                try:
                    new = embedded.start(ecfg, say=self.say)
                except MCPWorldError as err:
                    self.say(f"restart failed: {str(err).splitlines()[0]}")
                    continue
                with self._lock:
                    self.owned[i] = (new, ecfg)

    def wait_stopped(self) -> None:
        self._stopping.wait()

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            for p, _ in self.owned:
                p.stop()


def make_engines(cfg: ServeConfig, running: Running, say: Say, background_start: bool) -> EnginePool:
    engines = []
    choices = [resolve(spec) for spec in cfg.engines]  # an unknown name is refused here, with the names accepted
    urls = sum(c.kind == "url" for c in choices)
    if cfg.access.profile not in PROFILE_NAMES:
        raise UnknownName(f"unknown engine profile {cfg.access.profile!r}; profiles: {', '.join(PROFILE_NAMES)}")
    url_index = 0
    for choice in choices:
        if choice.kind == "url":
            engines.append(open_url(choice.url, model=cfg.model, timeout_s=cfg.engine_timeout_s,
                                    max_observation_chars=cfg.limits.max_observation_chars,
                                    api_key=cfg.access.key_for(url_index, urls),
                                    profile=cfg.access.profile, concurrency=cfg.access.concurrency))
            url_index += 1
            continue
        model = embedded.served_name(cfg.embedded.adapter)
        record = embedded.find_background(cfg.embedded.cache)
        if record is not None and (record.model == model or cfg.embedded.chosen):
            say(f"using the background embedded engine at {record.url} (pid {record.pid})" +
                ("" if record.model == model else f", which serves {record.model}: {model} was chosen for this "
                 "world (`mcp-world engine stop` first to have it started instead)"))
            engines.append(VLLMEngine(record.url, model=record.model, timeout_s=cfg.engine_timeout_s,
                                        max_observation_chars=cfg.limits.max_observation_chars,
                                        concurrency=cfg.access.concurrency))
            continue
        if record is not None:
            say(f"the background embedded engine serves {record.model}, not {model}: starting another")
        ecfg = cfg.embedded if cfg.embedded.port else replace(cfg.embedded, port=embedded.free_port(cfg.embedded.host))
        url = f"http://{ecfg.host}:{ecfg.port}"
        gate = StartGate(timeout_s=ecfg.start_timeout_s + 60) if background_start else None

        def _start(ecfg: embedded.EmbeddedConfig = ecfg, gate: StartGate | None = gate) -> None:
            try:
                running.add(embedded.start(ecfg, say=say), ecfg)
                if gate:
                    gate.open()
                    # The engine dies with the thread that started it (PR_SET_PDEATHSIG is per
                    # thread), so this thread lives as long as the server does.
                    running.wait_stopped()
            except MCPWorldError as err:
                if gate is None:
                    raise
                say(f"error: {err}")
                gate.open(str(err).splitlines()[0])

        if background_start:
            threading.Thread(target=_start, name="embedded-engine", daemon=True).start()
        else:
            _start()
        engines.append(VLLMEngine(url, model=model, timeout_s=cfg.engine_timeout_s,
                                    max_observation_chars=cfg.limits.max_observation_chars, starting=gate,
                                    concurrency=cfg.access.concurrency))
    return EnginePool(engines)


def free_loopback_port() -> int:
    return embedded.free_port("127.0.0.1")


class QuietServer(uvicorn.Server):
    """uvicorn without its own signal handling (it re-raises the SIGINT it caught once shut down):
    for servers inside a larger run (mirror, generate) that stop them with `should_exit`."""

    @contextlib.contextmanager
    def capture_signals(self):
        yield


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
    """Serve until interrupted (Ctrl+C or SIGTERM). Everything started here is stopped on the way out."""
    check_exposure(cfg)
    stop_cleanly_on_term()
    if cfg.world is None:
        raise MCPWorldError("serve needs a world")
    if cfg.transport == "http":
        check_port(cfg.host, cfg.port)  # before an engine is started for nothing
    store = Store(cfg.db)
    running = Running(say)
    pool: EnginePool | None = None
    shadow = None
    try:
        stdio = cfg.transport == "stdio"
        shadow = make_shadow(cfg)  # before any engine starts: a bad --shadow/--real fails at once
        pool = make_engines(cfg, running, say, background_start=stdio)
        sim = Simulator(cfg.world, pool, store, get_dialect(cfg.dialect, thinking=cfg.thinking, thinking_budget=cfg.thinking_budget,
                                                          prompts=cfg.agentworld_prompts),
                        cfg.limits, cfg.seed, cfg.sampling,
                        shadow=shadow, real=frozenset(cfg.real), state_mode=cfg.state_mode,
                        replay_cache=cfg.replay_cache, price=cfg.price)
        if stdio:
            server = build_server(sim, connection_key=f"stdio-{uuid.uuid4().hex[:12]}")
            anyio.run(_run_stdio, server, sim, say)
        else:
            server = build_server(sim)
            _run_http(server, sim, cfg, say)
    finally:
        for executor in (shadow or {}).values():
            executor.close()
        if pool is not None:
            with contextlib.suppress(Exception):
                anyio.run(pool.aclose)
        running.stop()
        store.close()


DRAIN_S = 120.0  # at exit, how long the real steps' predictions still running may take to be logged


async def _drain(sim: Simulator, say: Say) -> None:
    """Log the real steps' predictions still running (a second Ctrl+C or SIGTERM leaves them, marked)."""
    from .backlog import drain_at_exit

    await drain_at_exit(sim.backlog, DRAIN_S, say, "real steps")


async def _run_stdio(server, sim: Simulator, say: Say) -> None:
    from mcp.server.stdio import stdio_server

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(sim.warm)
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
            tg.cancel_scope.cancel()
    finally:
        await _drain(sim, say)


def make_shadow(cfg: ServeConfig):
    from .executors import EXECUTORS, ShadowOptions

    unknown = [d for d in cfg.shadow + cfg.real if d not in EXECUTORS]
    if unknown:
        raise MCPWorldError(f"no real executor for {unknown}; shadow mode supports: {', '.join(EXECUTORS)}")
    missing = [d for d in cfg.real if d not in cfg.shadow]
    if missing:
        raise MCPWorldError(f"--real {missing[0]} needs --shadow {missing[0]} (the real run it returns)")
    outside = [d for d in cfg.shadow if cfg.world is None or d not in cfg.world.domains]
    if outside:
        raise MCPWorldError(f"world '{cfg.world.name if cfg.world else ''}' has no {outside[0]} domain to shadow")
    readers = [d for d, cls in EXECUTORS.items() if cls.uses_origins]
    if cfg.shadow_origins and not any(d in cfg.shadow for d in readers):
        raise MCPWorldError(f"--shadow-origin is for the real executors of {', '.join(readers)}: add --shadow "
                            f"{readers[0]}")
    options = ShadowOptions(timeout_s=cfg.shadow_timeout_s, origins=cfg.shadow_origins,
                            memory_mib=cfg.shadow_memory_mib, disk_mib=cfg.shadow_disk_mib,
                            processes=cfg.shadow_processes)
    return {d: EXECUTORS[d].from_options(options) for d in dict.fromkeys(cfg.shadow)}


def check_port(host: str, port: int) -> None:
    """The address the server will listen on is free (MCPWorldError saying so when it is not)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as err:
        raise MCPWorldError(f"cannot listen on {host}:{port}: {err}") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as err:
            raise MCPWorldError(f"cannot listen on {host}:{port} ({err.strerror or err}): another server is "
                                f"there; stop it or give another --port") from None


def check_exposure(cfg: ServeConfig) -> None:
    """Binding beyond loopback serves a world to the network: only with a bearer token."""
    from .auth import require_token_beyond_loopback

    if cfg.transport == "http":
        require_token_beyond_loopback(cfg.host, cfg.token, "exposes the server")


def security_settings(cfg: ServeConfig):
    from mcp.server.transport_security import TransportSecuritySettings

    # Always explicit: the SDK protects only binds to 127.0.0.1, localhost and ::1 by itself, so a bind
    # to 127.0.0.2 (or any other address) would get no Host or Origin check at all.
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"] + [h if ":" in h else f"{h}:*" for h in cfg.allowed_hosts]
    if cfg.host not in ("0.0.0.0", "::"):
        hosts.append(f"[{cfg.host}]:*" if ":" in cfg.host else f"{cfg.host}:*")
    origins = [f"http://{h}" for h in hosts] + [f"https://{h}" for h in hosts]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


def make_handles(sim: Simulator, cfg: ServeConfig):
    """The episode handles of an HTTP server: its task files loaded (a bad one fails at once)."""
    from .handles import Handles
    from .tasks import load_tasks

    files = tuple(load_tasks(p, None) for p in cfg.tasks)
    return Handles(sim, files, judge=judge_engine(cfg.judge_engine, sim.engines, cfg.engine_timeout_s),
                   public_url=cfg.public_url)


def judge_engine(spec: str | None, pool: EnginePool, timeout_s: float = 300.0, model: str | None = None,
                 api_key: str | None = None, profile: str = "vllm"):
    """The engine that judges (task rubrics, predictions): `embedded` is the world model's own
    (first) engine, a URL any OpenAI-compatible server (its own model and key, never the world
    model's); an unknown name is refused with the names accepted."""
    if not spec:
        return None
    choice = resolve(spec)
    if choice.kind == "url":
        return open_url(choice.url, timeout_s=timeout_s, model=model, api_key=api_key, profile=profile)
    return pool.engines[0]


def _run_http(server, sim: Simulator, cfg: ServeConfig, say: Say) -> None:
    import uvicorn

    from .auth import BearerToken
    from .handles import http_app

    handles = make_handles(sim, cfg)
    app = http_app(server, handles, host=cfg.host, transport_security=security_settings(cfg))
    if cfg.token:
        app = BearerToken(app, cfg.token)
    url = f"http://{'127.0.0.1' if cfg.host in ('0.0.0.0', '::') else cfg.host}:{cfg.port}/mcp"
    # A bounded number of open connections: past it, uvicorn answers 503 at once instead of queueing.
    config = uvicorn.Config(app, host=cfg.host, port=cfg.port, log_level="warning", lifespan="on",
                            limit_concurrency=cfg.limits.max_connections)
    userver = QuietServer(config)
    say(f"mcp-world is serving world '{cfg.world.name}' ({', '.join(cfg.world.domains)}) at {url}\n"
        f"log: {cfg.db}\n" + connect_lines(url, cfg.world.name, sys.executable)
        + f"\nEpisode handles (RL): POST {url.removesuffix('/mcp')}/episodes {{\"task\": ID}}\nPress Ctrl+C to stop.")

    from .signals import reraise, stop_on_signal

    async def main() -> None:
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(stop_on_signal, userver)
                tg.start_soon(sim.warm)
                await userver.serve()
                tg.cancel_scope.cancel()
        finally:
            await _drain(sim, say)

    anyio.run(main)
    reraise(getattr(userver, "stopped_by", None))
