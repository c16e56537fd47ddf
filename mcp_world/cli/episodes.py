"""The episode log: `generate` (agent policies walked through a world, each episode verified),
`episodes list|show`, `export`, `report` (the dry-run report), `merge`, `view` and `import`."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import MCPWorldError
from .common import (app, CacheOpt, DbOpt, DEFAULT_DB, EngineConcurrencyOpt, EngineKeyOpt, EngineProfileOpt,
                     episodes_app, PriceInOpt, PriceOutOpt, _access, _adapter, _cost, _err, _price, _say,
                     _store)


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

    from .. import embedded
    from ..generate import GenerateConfig, generate as run_generate, load_tasks
    from ..paths import cache_dir
    from ..serving import Running, ServeConfig, judge_engine as judge_for, make_engines
    from ..world import load_world

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

                from ..store import Store

                probe = Store(cfg_serve.db)
                from ..generate import _finished

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
    from ..exporting import episode_record
    from ..report import terminal_safe as safe

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
    from ..exporting import Filters, export_chat, export_hf, export_jsonl

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
    from ..exporting import Filters, episode_record, iter_records
    from ..report import CATEGORIES, episode_report, render_html, terminal_safe as safe

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
    from ..merging import merge as run_merge

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
    from ..viewer import run_view

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
    from ..importing import import_file
    from ..store import Store

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
