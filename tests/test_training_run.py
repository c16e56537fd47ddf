"""The trainer's decisions, each on the real parts: the too-easy filter on the real engine, GRPO
stopped by its time budget (real TRL on CPU), and `train --deploy` end to end against the session's
LoRA engine, which hot-loads the adapter only when held-out fidelity improved. (The long run that
trains a useful adapter is `test_training.py`'s slow test.)"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import anyio
import httpx
import pytest

from mcp_world import embedded
from mcp_world.dialects import get_dialect
from mcp_world.engines import CompletionRequest, VLLMEngine
from mcp_world.engines.profiles import PROFILES
from mcp_world.engines.vllm import request_fields
from mcp_world.metric import Embedder
from mcp_world.paths import ADAPTERS_DIR, FIXTURES_DIR, cache_dir
from mcp_world.training import ADAPTER_NAME, unload_adapter
from mcp_world.training.items import build_items, records_from
from mcp_world.training.rwml import Settings, grpo, too_easy_filter

REAL = FIXTURES_DIR / "real" / "devbox-terminal.jsonl"


def _items(n: int):
    items, _ = build_items(records_from(None, [REAL])[:2], "instruct")
    return items[:n]


def _filter(url: str, items, s: Settings, said: list[str]):
    async def run():
        engine = VLLMEngine(url, model=embedded.served_name(embedded.default_adapter()), timeout_s=300)
        try:
            return await too_easy_filter(items, engine, get_dialect("instruct"), Embedder(), s, said.append)
        finally:
            await engine.aclose()

    return anyio.run(run)


def test_one_request_samples_several_answers_and_one_seeded_sample_is_reproducible(engine_url):
    """`n` samples several answers in one request (the GPU preset's too-easy filter), each continuing
    the prefill and not all the same. A request of one seeded sample gives the same answer again; the
    samples of one `n` request need not (the engine batches them differently from run to run), which
    is why the filter samples one at a time by default."""
    item = _items(1)[0]

    def ask(n: int):
        request = CompletionRequest(messages=item.messages, max_tokens=24, prefill=item.prefill, stop=item.stop,
                                    seed=11, temperature=1.0, top_p=1.0, n=n)

        async def run():
            engine = VLLMEngine(engine_url, model=embedded.served_name(embedded.default_adapter()), timeout_s=300)
            try:
                return await engine.complete(request)
            finally:
                await engine.aclose()

        return anyio.run(run)

    several = ask(3)
    assert len(several.texts) == 3 and several.text == several.texts[0] and several.continued
    assert len(set(several.texts)) > 1, f"three samples at temperature 1.0 were identical: {several.texts}"
    one = ask(1)
    assert ask(1).text == one.text and len(one.texts) <= 1
    assert request_fields(PROFILES["vllm"], CompletionRequest(messages=[], max_tokens=1, seed=0, n=3))["n"] == 3
    assert "n" not in request_fields(PROFILES["vllm"], CompletionRequest(messages=[], max_tokens=1, seed=0))
    assert Settings.gpu().easy_batched and not Settings.cpu().easy_batched


@pytest.mark.slow  # 1.5 minutes of sampling on 2 cores: ./test.sh -m slow
def test_the_too_easy_filter_drops_what_the_model_already_predicts_and_keeps_the_rest(engine_url):
    # The session engine serves the shipped adapter, which predicts many devbox steps exactly.
    items = _items(10)
    said: list[str] = []
    s = Settings(easy_samples=2, keep_easy=0.0, max_steps=100, batch=2, group=2, max_completion_tokens=64)
    kept, easy = _filter(engine_url, items, s, said)
    assert 0 < easy < len(items), "the filter should find some steps easy and some hard"
    assert len(kept) == len(items) - easy  # keep_easy 0: every easy item dropped, every hard one kept
    assert {id(i) for i in kept} <= {id(i) for i in items}
    assert f"{len(items)}/{len(items)} items sampled, {easy} easy so far" in said[-1]
    # the same samples (seeded, one request each), keeping every easy item: the same count found easy,
    # nothing dropped. Batched in one request (`n`) this count could differ from run to run.
    kept_all, easy_again = _filter(engine_url, items, Settings(**{**s.__dict__, "keep_easy": 1.0}), said)
    assert easy_again == easy and len(kept_all) == len(items)


@pytest.mark.slow  # 45 s on 2 cores; test_rl.py runs a real GRPO step in the default suite
def test_grpo_stops_at_its_time_budget_and_still_saves_the_adapter(tmp_path):
    base = embedded.prepare_model(cache_dir())
    said: list[str] = []
    s = Settings(max_steps=3, group=2, batch=2, max_completion_tokens=12, time_budget_s=1.0)
    t0 = time.monotonic()
    history = grpo(_items(2), base, tmp_path / "adapter", get_dialect("instruct"), Embedder(), s, said.append)
    assert len(history) == 1, f"GRPO ran {len(history)} steps past a 1 s budget (max 3)"
    assert any("time budget of 1 s reached at GRPO step 1" in line for line in said)
    assert (tmp_path / "adapter" / "adapter_model.safetensors").exists()
    assert time.monotonic() - t0 < 400


def test_a_warm_start_can_continue_a_shipped_adapter_rather_than_begin_a_new_one(tmp_path):
    """`train --from-adapter` through the CLI: the warm start starts from the adapter's weights (its
    own rank and modules, whatever --lora-r says), moves them by a step, and saves an adapter of the
    same shape; the report names where it started."""
    from safetensors.numpy import load_file

    start = ADAPTERS_DIR / "corpus-sft"
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, "-m", "mcp_world", "train", "--data", str(REAL), "--out", str(out),
                        "--warmup-sft", "1", "--max-steps", "0", "--sft-batch", "2", "--frozen-prefix", "--held-out", "0",
                        "--time-budget", "1", "--from-adapter", str(start)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"continuing the adapter {start}" in r.stderr and "stops at step 1 of" in r.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["start"] == str(start) and len(report["stages"]["warmup_sft"]["steps"]) == 1
    before = load_file(str(start / "adapter_model.safetensors"))
    after = load_file(str(out / "adapter" / "adapter_model.safetensors"))
    assert after.keys() == before.keys() and all(after[k].shape == before[k].shape for k in before)
    assert any(abs(after[k] - before[k]).max() > 0 for k in before), "a step of training left the adapter as it was"
    # one step at the warm start's learning rate: near where it started, far from a fresh adapter (B = 0)
    b = [k for k in before if ".lora_B." in k]
    assert max(abs(after[k] - before[k]).max() for k in b) < 0.1 * max(abs(before[k]).max() for k in b)


def test_continuing_a_folder_that_is_no_adapter_fails_before_any_training(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mcp_world", "train", "--data", str(REAL), "--out", str(tmp_path / "o"),
                        "--warmup-sft", "1", "--held-out", "0", "--from-adapter", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "is not a LoRA adapter folder" in r.stderr, r.stderr[-2000:]
    assert "warm start" not in r.stderr and not (tmp_path / "o" / "adapter").exists()


def _models(url: str) -> list[str]:
    return [m["id"] for m in httpx.get(f"{url}/v1/models", timeout=10).json()["data"]]


@pytest.mark.slow  # 2.5 minutes on 2 cores; test_deploy.py checks the deploy decision without training
def test_train_deploys_its_adapter_to_a_running_engine_only_when_held_out_fidelity_improved(lora_engine, tmp_path):
    data = tmp_path / "small.jsonl"
    lines = REAL.read_text().splitlines(keepends=True)
    data.write_text(lines[8] + lines[2])  # two short episodes (4 and 5 steps): one trains, one is held out
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, "-m", "mcp_world", "train", "--data", str(data), "--out", str(out),
                        "--engine", lora_engine, "--deploy", lora_engine, "--max-steps", "2", "--time-budget", "1",
                        "--group", "2", "--batch", "2", "--max-completion", "16", "--easy-samples", "1",
                        "--keep-easy", "1.0", "--held-out", "0.5"],
                       capture_output=True, text=True, timeout=560)
    try:
        assert r.returncode == 0, r.stderr[-3000:]
        report = json.loads((out / "report.json").read_text())
        assert len(report["steps"]) == 1 and "time budget of 1 s reached" in r.stderr  # --time-budget, end to end
        # the filter samples until GRPO's 2 steps have a prompt each; --keep-easy 1.0 keeps the easy ones too
        assert report["items"]["trained_on"] == 2 and report["episodes"] == {"train": 1, "held_out": 1}
        before, after = report["held_out_before"]["mean_similarity"], report["held_out_after"]["mean_similarity"]
        assert report["improved"] == (after > before)
        if report["improved"]:
            assert "deployed: " in r.stderr and ADAPTER_NAME in _models(lora_engine)
        else:
            assert "not deployed: held-out fidelity did not improve" in r.stderr
            assert ADAPTER_NAME not in _models(lora_engine)
        assert "mcp-world-candidate" not in " ".join(_models(lora_engine))  # the evaluated candidate was unloaded
    finally:
        unload_adapter(lora_engine, ADAPTER_NAME, lambda _: None)
