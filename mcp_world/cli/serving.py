"""Serving a world: `serve` (a simulated world over MCP), `mirror` (in front of a real MCP server),
`domains` (what can be served) and `probe` (the consistency probes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import MCPWorldError
from .common import (app, CacheOpt, DbOpt, DEFAULT_DB, DomainsOpt, EngineConcurrencyOpt, EngineKeyOpt,
                     EngineProfileOpt, PriceInOpt, PriceOutOpt, PromptsOpt, _access, _adapter, _err, _price,
                     _say, _use_domains, _with_progress)


@app.command()
def domains() -> None:
    """List the domains this command can serve (shipped, installed, and from --domains), with their tools."""
    from ..domain import domain_folders, load_domain

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
    from .. import embedded
    from ..paths import cache_dir
    from ..serving import ServeConfig, serve as run
    from ..simulator import Limits, Sampling
    from ..world import load_world

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
        from ..dialects import get_dialect
        from ..tasks import load_tasks

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
    from .. import embedded
    from ..mirror import MirrorConfig, UpstreamSpec, run_mirror
    from ..paths import cache_dir
    from ..serving import ServeConfig

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

    from .. import embedded
    from ..paths import cache_dir
    from ..probes import SUITE, load_suite, run_suite
    from ..serving import Running, ServeConfig, make_engines
    from ..store import Store

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
