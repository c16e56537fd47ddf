"""The world model against reality: `train` (RWML), `eval` (fidelity on real steps, AgentWorldBench)
and `render` (a step as the world model is asked it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..errors import AgentFault, MCPWorldError
from .common import (app, CacheOpt, DbOpt, DEFAULT_DB, EngineConcurrencyOpt, EngineKeyOpt, EngineProfileOpt,
                     PromptsOpt, _access, _adapter, _err, _say, _with_progress)


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
    from ..training import TrainJob, train as run
    from ..training.rwml import Settings

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

    from .. import embedded
    from ..evaluate import evaluate
    from ..importing import read_records
    from ..metric import Embedder
    from ..paths import cache_dir
    from ..serving import Running, ServeConfig, judge_engine, make_engines
    from ..store import Store
    from ..world import load_world

    from ..dialects import get_dialect
    from ..dialects.agentworld import OfficialPrompts

    if bool(data) == bool(agentworldbench):
        _err("give --data FILE (real episodes) or --agentworldbench DIR, one of the two")
    try:
        get_dialect(dialect)
        prompts = OfficialPrompts(agentworld_prompts) if agentworld_prompts else None
    except MCPWorldError as err:
        _err(str(err))
    try:
        if agentworldbench:
            from ..agentworldbench import load_rows

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
                    from ..agentworldbench import run as bench

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
    from ..agentworldbench import CRITERIA, PUBLISHED

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
    from ..rendering import as_text, read_history, render_step
    from ..simulator import Sampling
    from ..world import load_world

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
