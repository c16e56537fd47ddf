"""The companion trainer (DESIGN.md, "Training (RWML)"): align the world model with reality.

`train(job, say)`:
  1. items from every step with a real observation (store and/or interchange files), rendered as
     the server renders them (items.py); train and held-out split by episode
  2. held-out fidelity of the base model (`eval`'s code)
  3. optionally a supervised warm start of the adapter on the real observations (--warmup-sft) and
     the held-out fidelity after it; the too-easy filter on the current model, then GRPO with a
     LoRA adapter (rwml.py)
  4. held-out fidelity with the adapter (served by the engine: the embedded one starts with it)
  5. report.json and a training-curve PNG in the output folder; `deploy` hot-loads the adapter
     into a running engine only when held-out fidelity improved
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..engines import resolve
from ..errors import MCPWorldError
from .rwml import Settings

Say = Callable[[str], None]
ADAPTER_NAME = "mcp-world-adapter"  # what `--deploy` and `serve/eval --adapter` load into a URL engine
CANDIDATE_NAME = "mcp-world-candidate"  # the adapter under evaluation, unloaded afterwards


@dataclass(frozen=True)
class TrainJob:
    out: Path
    db: Path | None = None
    data: tuple[Path, ...] = ()
    base: Path | None = None  # a Hugging Face model folder; None: the embedded model
    engine: str = "embedded"  # serves the base (and the adapter) for the filter and the evaluations
    dialect: str = "instruct"
    held_out: float = 0.2
    deploy: str | None = None  # an engine URL to hot-load the adapter into when it improved
    cache: Path | None = None
    start: Path | None = None  # an adapter to continue training (None: a new one)
    settings: Settings = field(default_factory=Settings)


def check_adapter(adapter: Path, base: Path) -> None:
    """A clear error unless `adapter` is a LoRA adapter folder whose shapes fit `base`."""
    from safetensors import safe_open

    config_path, weights = adapter / "adapter_config.json", adapter / "adapter_model.safetensors"
    if not adapter.is_dir() or not config_path.exists() or not weights.exists():
        raise MCPWorldError(f"{adapter} is not a LoRA adapter folder (adapter_config.json and "
                            "adapter_model.safetensors, as `mcp-world train` writes)")
    base_config = json.loads((base / "config.json").read_text())
    hidden = base_config.get("hidden_size")
    config = json.loads(config_path.read_text())
    if int(config.get("r", 0)) > 16:
        raise MCPWorldError(f"the adapter's rank is {config.get('r')}; the engine serves ranks up to 16")
    with safe_open(str(weights), framework="numpy") as f:
        for key in f.keys():
            if "lora_A" in key and key.endswith(("q_proj.lora_A.weight", "q_proj.lora_A.default.weight")):
                in_features = f.get_slice(key).get_shape()[1]
                if hidden and in_features != hidden:
                    raise MCPWorldError(
                        f"the adapter does not match the base model: it was trained for hidden size {in_features}, "
                        f"{base} has {hidden} (adapter base: {config.get('base_model_name_or_path')})")
                return


def _base_model(job: TrainJob, say: Say) -> Path:
    from .. import embedded
    from ..paths import cache_dir

    if job.base is None:
        return embedded.prepare_model(cache_dir(job.cache), say=say)
    base = job.base.expanduser()
    if not (base / "config.json").exists():
        raise MCPWorldError(f"--base {base} is not a Hugging Face model folder (no config.json there)")
    return base


def train(job: TrainJob, say: Say = print) -> dict[str, Any]:
    import anyio

    from ..dialects import get_dialect
    from ..metric import Embedder
    from .items import build_items, records_from, split_episodes
    from .rwml import grpo, too_easy_filter, warmup_sft

    t0 = time.monotonic()
    s = job.settings
    records = records_from(job.db, list(job.data))
    base = _base_model(job, say)
    if job.start is not None:
        check_adapter(job.start, base)  # before anything is trained: a wrong folder costs nothing
    train_records, held = split_episodes(records, job.held_out, s.seed)
    items, by_state = build_items(train_records, job.dialect)
    say(f"{len(records)} episodes: {len(train_records)} for training ({len(items)} items, {by_state} of them "
        f"steps the explicit state answers when serving with --state full), {len(held)} held out")
    built = len(items)
    items = keep_state_share(items, s.keep_state, s.seed)
    if len(items) < built:
        say(f"training on {len(items)} items: every step the model answers when serving, and "
            f"{s.keep_state:.0%} of those the state answers (--keep-state)")
    dialect = get_dialect(job.dialect)
    embedder = Embedder()
    job.out.mkdir(parents=True, exist_ok=True)
    adapter = job.out / "adapter"

    if s.sft_epochs <= 0 and s.max_steps <= 0:
        raise MCPWorldError("nothing to train: give GRPO steps (--max-steps) and/or a warm start (--warmup-sft N)")
    stages: dict[str, Any] = {}
    filter_fn = too_easy_filter if s.max_steps > 0 else None
    # "before" is what training starts from: the base model, or the adapter it continues
    start_label = "base" if job.start is None else f"the starting adapter {job.start.name}"
    deadline: float | None = None  # the time budget bounds the training stages together
    if s.sft_epochs > 0:
        before, _ = anyio.run(_with_engine, job, held, job.start, start_label, items, dialect, embedder, say, None)
        deadline = time.monotonic() + s.time_budget_s
        sft_log = warmup_sft(items, base, adapter, s, say, deadline, start=job.start)
        check_adapter(adapter, base)
        after_sft, filtered = anyio.run(_with_engine, job, held, adapter, "after the warm start", items, dialect,
                                        embedder, say, filter_fn)
        stages["warmup_sft"] = {"epochs": s.sft_epochs, "items": len(items), "steps": sft_log,
                                "held_out_after": after_sft}
    else:
        # One engine for the base model serves the held-out eval and the filter (a start costs ~45 s).
        before, filtered = anyio.run(_with_engine, job, held, job.start, start_label, items, dialect, embedder, say,
                                     filter_fn)
        after_sft = None
    history: list[dict[str, float]] = []
    kept, easy = filtered if filtered else (items, 0)
    if s.max_steps > 0:
        say(f"too-easy filter: {easy} of {len(items)} items were easy (mean reward ≥ {s.tau_easy}); "
            f"{len(kept)} kept for GRPO")
        history = grpo(kept, base, adapter, dialect, embedder, s, say,
                       start=adapter if s.sft_epochs > 0 else job.start, deadline=deadline)
        check_adapter(adapter, base)
        after = anyio.run(_with_engine, job, held, adapter, "adapter", [], dialect, embedder, say, None)[0]
    else:
        after = after_sft
    improved = bool(before and after and after["mean_similarity"] > before["mean_similarity"])
    change = paired_change(before.pop("per_step"), after.pop("per_step")) if before and after else None
    if after_sft and after_sft is not after:
        after_sft.pop("per_step")
    report = {
        "base": str(base), "adapter": str(adapter), "start": str(job.start) if job.start else None,
        "dialect": job.dialect, "settings": asdict(s),
        "episodes": {"train": len(train_records), "held_out": len(held)},
        "items": {"built": built, "answered_by_state": by_state, "kept": len(items), "easy": easy, "trained_on": len(kept)},
        "held_out_before": before, "held_out_after": after, "improved": improved, "change": change,
        "stages": stages, "steps": history, "seconds": round(time.monotonic() - t0, 1),
    }
    (job.out / "report.json").write_text(json.dumps(report, indent=2))
    _plot(report, job.out / "training.png")
    say(f"held-out mean similarity {_fmt(before, 'mean_similarity')} → {_fmt(after, 'mean_similarity')}, "
        f"binary {_fmt(before, 'binary_score')} → {_fmt(after, 'binary_score')}; report in {job.out / 'report.json'}")
    if change:
        say(f"change in held-out mean similarity {change['mean']:+.3f} (95% interval {change['low']:+.3f} to "
            f"{change['high']:+.3f}, paired bootstrap over {change['steps']} steps; {change['better']} better, "
            f"{change['worse']} worse): {'a clear gain' if change['clear'] else 'not a clear gain'}")
    if job.deploy:
        deploy(job.deploy, adapter, improved, say)
    return report


def keep_state_share(items: list, share: float, seed: int) -> list:
    """Every item the model answers when serving, and a seeded `share` of those the explicit state
    answers (they teach reading the prompt's state line; `--state full` never asks the model them)."""
    if share >= 1.0:
        return items
    rng = random.Random(seed)
    return [it for it in items if not it.by_state or rng.random() < share]


def deploy(url: str, adapter: Path, improved: bool, say: Say) -> None:
    """Hot-load the adapter into the engine at `url` as ADAPTER_NAME, only when it improved."""
    if improved:
        load_adapter(url, adapter)
        say(f"deployed: {url} now serves the adapter as model {ADAPTER_NAME!r}")
    else:
        say(f"not deployed: held-out fidelity did not improve; {url} is left as it was")


def _fmt(row: dict | None, key: str) -> str:
    return f"{row[key]:.3f}" if row else "n/a"


async def _with_engine(job: TrainJob, held: list, adapter: Path | None, label: str, items: list, dialect: Any,
                       embedder: Any, say: Say, filter_fn: Any) -> tuple[dict[str, Any] | None, Any]:
    """One engine (the base model, or the adapter) serves the held-out eval and then, when given, the
    too-easy filter on the current model."""
    if not held and filter_fn is None:
        return None, None  # nothing to ask an engine (`--held-out 0`, no GRPO): none is started
    pool, running = _engines(job, adapter, say)
    try:
        result = await _heldout(job, held, pool, say, label) if held else None
        filtered = await filter_fn(items, pool.engines[0], dialect, embedder, job.settings, say) if filter_fn else None
        return result, filtered
    finally:
        await pool.aclose()
        running.stop()
        if adapter is not None and resolve(job.engine).kind == "url":
            unload_adapter(job.engine, CANDIDATE_NAME, say)  # the engine is left as it was


async def _heldout(job: TrainJob, held: list, pool: Any, say: Say, label: str) -> dict[str, Any]:
    from ..evaluate import Tally, evaluate
    from ..metric import Embedder
    from ..store import Store

    from .items import build_items

    store = Store(job.out / "eval.db")
    try:
        report = await evaluate(held, pool, store, Embedder(), dialect=job.dialect, tau=job.settings.tau, concurrency=8)
    finally:
        store.close()
    result = report.as_json()["overall"]
    # The steps the model answers when serving (`--state full` answers the others from the state).
    by_state = {(it.episode, it.step) for it in build_items(held, job.dialect)[0] if it.by_state}
    served = Tally()
    for r in report.steps:
        if (r["episode"], r["step"]) not in by_state:
            served.add(r["similarity"], job.settings.tau, r["exact"], r["format_valid"])
    result["served"] = served.summary()
    result["per_step"] = [r["similarity"] for r in report.steps]  # in record order: before and after pair up
    say(f"held-out ({label}): {result['steps']} steps, mean similarity {result['mean_similarity']:.3f}, binary "
        f"{result['binary_score']:.3f} (the {served.steps} steps the model answers when serving: "
        f"{result['served']['mean_similarity']:.3f}, {result['served']['binary_score']:.3f})")
    return result


def paired_change(before: list[float], after: list[float], resamples: int = 2000,
                  seed: int = 0) -> dict[str, Any] | None:
    """The change in mean similarity over the same held-out steps, with a 95% paired bootstrap interval;
    `clear` when the interval lies above zero."""
    diffs = [a - b for a, b in zip(after, before)]
    n = len(diffs)
    if not n:
        return None
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(diffs) for _ in range(n)) / n for _ in range(resamples))
    low, high = means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]
    return {"steps": n, "mean": round(sum(diffs) / n, 4), "low": round(low, 4), "high": round(high, 4),
            "better": sum(d > 0.01 for d in diffs), "worse": sum(d < -0.01 for d in diffs), "clear": low > 0}


def _engines(job: TrainJob, adapter: Path | None, say: Say) -> tuple[Any, Any]:
    """The engine pool for the base model, or for the adapter (the embedded engine starts with it; a
    URL engine has it hot-loaded)."""
    from .. import embedded
    from ..engines import EnginePool, VLLMEngine
    from ..paths import cache_dir
    from ..serving import Running, ServeConfig, make_engines
    from ..world import load_world

    running = Running(say)
    if resolve(job.engine).kind == "url":
        model = None
        if adapter is not None:
            load_adapter(job.engine, adapter, CANDIDATE_NAME)
            model = CANDIDATE_NAME
        return EnginePool([VLLMEngine(job.engine, model=model, timeout_s=600)]), running
    cfg = ServeConfig(world=load_world("devbox"), db=job.out / "eval.db", engines=("embedded",),
                      embedded=embedded.EmbeddedConfig(cache=cache_dir(job.cache), adapter=adapter),
                      engine_timeout_s=600)
    return make_engines(cfg, running, say, background_start=False), running


def use_adapter(adapter: Path, engines: tuple[str, ...], cache: Path | None,
                keys: tuple[str, ...] = ()) -> tuple[Any, str | None]:
    """`--adapter` on serve and eval: the embedded engine starts with it (returned: its EmbeddedConfig
    adapter); URL engines get it hot-loaded (returned: the model name to ask for)."""
    from .. import embedded
    from ..paths import cache_dir

    adapter = adapter.expanduser().resolve()
    kinds = [resolve(e).kind for e in engines]
    if "embedded" in kinds:
        check_adapter(adapter, embedded.prepare_model(cache_dir(cache)))
    from ..serving import EngineAccess

    access, urls = EngineAccess(keys=keys), [e for e, kind in zip(engines, kinds) if kind == "url"]
    for i, url in enumerate(urls):
        load_adapter(url, adapter, api_key=access.key_for(i, len(urls)))
    return adapter, (ADAPTER_NAME if "url" in kinds else None)


def load_adapter(url: str, adapter: Path, name: str = ADAPTER_NAME, api_key: str | None = None) -> None:
    """Hot-load (or replace) a LoRA adapter in a running vLLM (`/v1/load_lora_adapter`, load_inplace)."""
    import httpx

    base = url.rstrip("/").removesuffix("/v1")
    try:
        r = httpx.post(f"{base}/v1/load_lora_adapter", timeout=300,
                       headers={"Authorization": f"Bearer {api_key}"} if api_key else {},
                       json={"lora_name": name, "lora_path": str(adapter.resolve()), "load_inplace": True})
    except httpx.HTTPError as err:
        raise MCPWorldError(f"could not reach {base} to load the adapter: {err}") from None
    if r.status_code != 200:
        raise MCPWorldError(f"{base} refused the adapter (HTTP {r.status_code}: {r.text[:300]}); the engine must "
                            "run with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=1")


def unload_adapter(url: str, name: str, say: Say) -> None:
    import httpx

    base = url.rstrip("/").removesuffix("/v1")
    try:
        r = httpx.post(f"{base}/v1/unload_lora_adapter", json={"lora_name": name}, timeout=60)
        if r.status_code != 200:
            say(f"warning: {base} did not unload adapter {name!r} (HTTP {r.status_code}: {r.text[:200]})")
    except httpx.HTTPError as err:
        say(f"warning: could not reach {base} to unload adapter {name!r}: {err}")


def _plot(report: dict[str, Any], path: Path) -> None:
    from ..charts import save, training_figure

    save(training_figure(report), path)
