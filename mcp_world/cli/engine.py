"""The embedded engine: `engine start|status|probe|stop|prepare`."""

from __future__ import annotations

import time
from typing import Annotated, Optional

import typer

from ..errors import AgentFault, MCPWorldError
from .common import (CacheOpt, engine_app, EngineKeyOpt, EngineProfileOpt, _adapter, _err, _say)


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
    from .. import embedded
    from ..paths import cache_dir

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
    from .. import embedded
    from ..paths import cache_dir

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

    from ..domain import domain_names, load_domain
    from ..engines import CompletionRequest, open_url, resolve
    from ..rules import Rules

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
    from .. import embedded
    from ..paths import cache_dir

    r = embedded.stop_background(cache_dir(cache))
    typer.echo("stopped" if r else "not running")


@engine_app.command("prepare")
def engine_prepare(cache: CacheOpt = None) -> None:
    """Convert the packaged model into the cache directory, and merge the shipped adapter into it
    (both done automatically on first start)."""
    from .. import embedded
    from ..paths import cache_dir

    try:
        typer.echo(embedded.prepare_model(cache_dir(cache), _say))
        shipped = embedded.default_adapter()
        if shipped is not None:
            typer.echo(embedded.merged_model(cache_dir(cache), shipped, _say))
    except MCPWorldError as err:
        _err(str(err))
