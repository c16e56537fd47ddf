"""The RWML trainer: items rendered as the server renders them, rewards that vary, a LoRA adapter
written, the embedded engine serving it, eval running on it — and clear errors for bad input."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_world.dialects import get_dialect
from mcp_world.errors import MCPWorldError
from mcp_world.metric import Embedder
from mcp_world.paths import FIXTURES_DIR
from mcp_world.store import Store
from mcp_world.training import check_adapter
from mcp_world.training.items import build_items, records_from, split_episodes
from mcp_world.training.rwml import Settings

REAL = FIXTURES_DIR / "real" / "devbox-terminal.jsonl"


def _cli(*args: str, timeout: float = 1500) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcp_world", *args], capture_output=True, text=True, timeout=timeout)


def test_items_are_the_prompts_the_server_sends_for_every_real_step():
    records = records_from(None, [REAL])
    items, by_state = build_items(records)
    assert len(items) == sum(len(r.steps) for r in records)
    # pwd, cat of a seeded file…: the state answers them when serving with --state full; they are
    # items too (eval and --state prompt ask the model, and the answer is in the prompt's state line)
    assert 0 < by_state == sum(it.by_state for it in items) < len(items)
    assert any(it.by_state and it.arguments["command"] == "pwd" for it in items)
    first = items[0]
    assert first.messages[0]["role"] == "system" and first.prefill.endswith("\n")
    assert first.prefill.rstrip("\n").endswith(first.arguments["command"])  # the transcript ends at the command
    train, held = split_episodes(records, 0.2, 0)
    assert len(held) == 2 and not {r.id for r in train} & {r.id for r in held}
    every, none = split_episodes(records, 0.0, 0)  # `--held-out 0`: every episode trains
    assert not none and len(every) == len(records) and split_episodes(records, 0.01, 0)[1]
    # The reward reads a completion the way the server reads an answer: a right one scores high,
    # an explanation is penalised as the wrong format.
    s, dialect, embedder = Settings(), get_dialect("instruct"), Embedder()
    assert s.score(first, first.real + "user@devbox:~$ ls\n", dialect, embedder) > 0.95
    assert s.score(first, "This command shows the status.", dialect, embedder) < 0.0
    assert Settings(reward="binary").score(first, first.real, dialect, embedder) == 1.0


def _text(path: Path) -> str:
    import lzma

    return lzma.open(path, "rt", encoding="utf-8").read() if path.suffix == ".xz" else path.read_text()


@pytest.mark.parametrize("dialect", ["instruct", "agentworld"])
@pytest.mark.parametrize("name", ["devbox-sessions.jsonl", "memory-mirror.jsonl", "git-mirror.jsonl",
                                  "mcp-servers.jsonl.xz"])
def test_the_warm_start_target_reads_back_as_the_real_observation(dialect, name):
    """What the supervised warm start teaches is an answer the server reads as the real observation
    (its inside, where the real observation is one whole code fence, as the filesystem server's diffs
    are: the server takes a fence around a whole answer for the model's habit of wrapping one)."""
    from mcp_world.rules import unfence
    from mcp_world.training.items import is_valid

    path = FIXTURES_DIR / "real" / name
    recorded = {(e["id"], i): step["observation"]  # read from the file itself, not through our loader
                for e in map(json.loads, _text(path).splitlines()) for i, step in enumerate(e["steps"])}
    items, _ = build_items(records_from(None, [path]), dialect)
    assert len(items) == len(recorded)
    for it in items:
        text, valid = is_valid(it, it.target, get_dialect(dialect))
        assert valid, (it.episode, it.step, it.target[:200])
        real = recorded[it.episode, it.step]
        assert text.rstrip() in (real.rstrip(), unfence(real).rstrip()), (it.episode, it.step)  # markup may trim trailing blanks


@pytest.mark.slow  # 45 s on 2 cores: ./test.sh -m slow
def test_the_warm_start_batch_gives_the_loss_and_gradient_of_one_item_at_a_time():
    """Items of one step share their prompts' common prefix (computed once, its keys and values
    repeated per row) and run right-padded after it; that must change nothing but the speed."""
    import random

    import torch
    from peft import get_peft_model

    from mcp_world import embedded
    from mcp_world.paths import cache_dir
    from mcp_world.training.rwml import _answer_losses, _batches, _lora, _model, _Sequence, _sequences

    base = embedded.prepare_model(cache_dir(None))
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(base))
    items, _ = build_items(records_from(None, [REAL]))
    sequences, cut = _sequences(items, tokenizer)
    assert cut == 0 and all(q.answer[-1] == tokenizer.eos_token_id for q in sequences)
    chunk = _batches(sequences, random.Random(0))[0]
    assert len(chunk) == 4 and len({len(q.prompt + q.answer) for q in chunk}) > 1
    # Two rows of different lengths exercise the shared prefix and the padding (four took 84 s).
    chunk = [chunk[0], next(q for q in chunk[1:] if len(q.prompt + q.answer) != len(chunk[0].prompt + chunk[0].answer))]
    torch.manual_seed(0)
    model = get_peft_model(_model(base, None), _lora(Settings()))
    trainable = [(n, w) for n, w in model.named_parameters() if w.requires_grad]

    def grads() -> dict[str, torch.Tensor]:
        g = {n: w.grad.clone() for n, w in trainable}
        model.zero_grad()
        return g

    def plain(q: _Sequence) -> torch.Tensor:  # the whole sequence through the model, nothing shared
        ids = torch.tensor([q.prompt + q.answer])
        logits = model(input_ids=ids[:, :-1]).logits[0, -len(q.answer):]
        return torch.nn.functional.cross_entropy(logits, ids[0, -len(q.answer):], reduction="sum")

    one_by_one = [plain(q) for q in chunk]
    sum(one_by_one).backward()
    expected = grads()
    together = _answer_losses(model, chunk, tokenizer.eos_token_id, "cpu")
    sum(together).backward()
    got = grads()
    for a, b in zip(one_by_one, together):
        assert abs(float(a.detach()) - float(b.detach())) < 1e-3 * float(a.detach())
    scale = max(float(g.abs().max()) for g in expected.values())
    assert max(float((expected[n] - got[n]).abs().max()) for n in expected) < 1e-4 * scale
    # --frozen-prefix: the same losses (the prefix runs with the adapter), a gradient from the rows only
    frozen = _answer_losses(model, chunk, tokenizer.eos_token_id, "cpu", frozen_prefix=True)
    sum(frozen).backward()
    partial = grads()
    for a, b in zip(together, frozen):
        assert abs(float(a.detach()) - float(b.detach())) < 1e-4 * float(a.detach())
    # every LoRA layer still learns (B starts at zero, so at the start only B has a gradient)
    assert all(float(g.abs().max()) > 0 for n, g in partial.items() if "lora_B" in n)
    assert max(float((expected[n] - partial[n]).abs().max()) for n in expected) > 1e-3 * scale  # not the whole gradient


def test_keep_state_keeps_every_step_the_model_answers_and_a_share_of_the_state_answered_ones():
    from mcp_world.training import keep_state_share

    items, by_state = build_items(records_from(None, [REAL]))
    model_answered = [it for it in items if not it.by_state]
    assert keep_state_share(items, 1.0, 0) == items
    assert keep_state_share(items, 0.0, 0) == model_answered
    some = keep_state_share(items, 0.5, 0)
    assert [it for it in some if not it.by_state] == model_answered
    assert 0 < sum(it.by_state for it in some) < by_state
    assert some == keep_state_share(items, 0.5, 0)  # seeded


def test_warm_start_batches_hold_one_world_and_take_their_size():
    import random

    from mcp_world.training.rwml import _batches, _Sequence

    sequences = [_Sequence([1, 2, 3], [4], 1.0, f"world-{i % 3}") for i in range(30)]
    for size in (1, 4, 8):
        batches = _batches(sequences, random.Random(0), size)
        assert all(len({q.group for q in b}) == 1 and 1 <= len(b) <= size for b in batches)
        assert sorted(id(q) for b in batches for q in b) == sorted(id(q) for q in sequences)
    assert len(_batches(sequences, random.Random(0), 8)) == 6  # ten items of each world: 8 + 2


def test_a_token_bound_keeps_each_warm_start_step_small_and_every_item_in_one():
    import random

    from mcp_world.training.rwml import _batches, _Sequence

    rng = random.Random(1)
    prefix = list(range(100))  # the world's tokens every item of it shares
    sequences = [_Sequence(prefix + [1000 + i] * rng.randrange(1, 400), [5] * rng.randrange(1, 300), 1.0,
                           f"world-{i % 2}") for i in range(40)]
    sequences.append(_Sequence(prefix + [7] * 900, [5] * 200, 1.0, "world-0"))  # longer than the bound alone
    batches = _batches(sequences, random.Random(0), 8, tokens=1000)
    assert sorted(id(q) for b in batches for q in b) == sorted(id(q) for q in sequences)
    for b in batches:
        width = max(len(q.prompt) + len(q.answer) for q in b) - len(prefix)
        assert len({q.group for q in b}) == 1 and len(b) <= 8
        assert len(b) == 1 or len(b) * width <= 1000, [len(q.prompt) + len(q.answer) for q in b]
    assert sum(len(b) == 1 for b in batches) < len(batches) // 2  # alike lengths share steps
    assert len(_batches(sequences, random.Random(0), 8)) < len(batches)  # without a bound: size alone


def test_a_warm_start_answer_is_cut_where_the_server_stops_the_model():
    from transformers import AutoTokenizer

    from mcp_world import embedded
    from mcp_world.paths import cache_dir
    from mcp_world.training.rwml import _sequences

    items, _ = build_items(records_from(None, [REAL]))
    assert {it.max_tokens for it in items} == {320}  # the terminal's budget (domains/terminal/domain.yaml)
    tokenizer = AutoTokenizer.from_pretrained(str(embedded.prepare_model(cache_dir(None))))
    longest = max(items, key=lambda it: len(it.target))
    whole, cut = _sequences([longest], tokenizer)
    assert cut == 0 and whole[0].answer[-1] == tokenizer.eos_token_id
    longest.max_tokens = len(whole[0].answer) - 3
    short, cut = _sequences([longest], tokenizer)
    assert cut == 1 and short[0].answer == whole[0].answer[:-3] and short[0].prompt == whole[0].prompt


def test_paired_change_calls_a_gain_clear_only_when_the_interval_is_above_zero():
    from mcp_world.training import paired_change

    clear = paired_change([0.2] * 40, [0.3] * 30 + [0.1] * 10)
    assert clear["clear"] and clear["low"] > 0 and clear["better"] == 30 and clear["worse"] == 10
    noisy = paired_change([0.2] * 40, [0.6] * 10 + [0.0] * 30)
    assert not noisy["clear"] and noisy["low"] < 0 < noisy["high"]
    assert paired_change([], []) is None


def test_bad_input_gets_clear_errors(tmp_path):
    empty = tmp_path / "empty.db"
    Store(empty).close()
    with pytest.raises(MCPWorldError, match="no steps with a real observation"):
        records_from(empty, [])
    r = _cli("train", "--db", str(empty), "--out", str(tmp_path / "o"), timeout=120)
    assert r.returncode != 0 and "no steps with a real observation" in r.stderr
    r = _cli("train", "--data", str(REAL), "--base", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o"), timeout=120)
    assert r.returncode != 0 and "not a Hugging Face model folder" in r.stderr
    r = _cli("train", "--data", str(REAL), "--max-steps", "0", "--out", str(tmp_path / "o"), timeout=120)
    assert r.returncode != 0 and "nothing to train" in r.stderr
    r = _cli("train", "--data", str(REAL), "--warmup-sft", "-1", "--out", str(tmp_path / "o"), timeout=120)
    assert r.returncode != 0 and "--warmup-sft takes a number of epochs" in r.stderr
    r = _cli("train", "--data", str(REAL), "--warmup-sft", "1", "--keep-state", "1.5", "--out", str(tmp_path / "o"),
             timeout=120)
    assert r.returncode != 0 and "--keep-state takes a share between 0 and 1" in r.stderr
    r = _cli("train", "--data", str(REAL), "--warmup-sft", "1", "--sft-batch", "0", "--out", str(tmp_path / "o"),
             timeout=120)
    assert r.returncode != 0 and "--sft-batch takes a number of items" in r.stderr
    r = _cli("train", "--data", str(REAL), "--warmup-sft", "1", "--step-tokens", "-5", "--out", str(tmp_path / "o"),
             timeout=120)
    assert r.returncode != 0 and "--step-tokens takes a number of tokens (0 for no bound, or more), not -5" in r.stderr
    base = tmp_path / "base"
    base.mkdir()
    (base / "config.json").write_text(json.dumps({"hidden_size": 576}))
    with pytest.raises(MCPWorldError, match="not a LoRA adapter folder"):
        check_adapter(tmp_path, base)


def _fake_adapter(folder: Path, hidden: int) -> Path:
    import numpy as np
    from safetensors.numpy import save_file

    folder.mkdir()
    (folder / "adapter_config.json").write_text(json.dumps({"r": 4, "base_model_name_or_path": "some-7b"}))
    save_file({"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight": np.zeros((4, hidden), np.float32)},
              str(folder / "adapter_model.safetensors"))
    return folder


def test_an_adapter_for_another_base_is_refused(tmp_path):
    base = tmp_path / "base"
    base.mkdir()
    (base / "config.json").write_text(json.dumps({"hidden_size": 576}))
    check_adapter(_fake_adapter(tmp_path / "fits", 576), base)
    with pytest.raises(MCPWorldError, match="does not match the base model.*4096"):
        check_adapter(_fake_adapter(tmp_path / "other", 4096), base)
    # the same check guards `eval --adapter` and `serve --adapter` against the embedded model
    r = _cli("eval", "--data", str(REAL), "--adapter", str(tmp_path / "other"), "--db", str(tmp_path / "e.db"),
             timeout=300)
    assert r.returncode != 0 and "does not match the base model" in r.stderr


@pytest.mark.timeout(1500)
@pytest.mark.slow  # about 11 minutes on 2 cores: ./test.sh -m slow
def test_a_tiny_training_run_writes_an_adapter_the_embedded_engine_serves(tmp_path):
    """A warm start and a few GRPO steps on two real episodes, end to end through the CLI: held-out
    eval before, after the warm start and after GRPO (the embedded engine started with the adapter),
    the filter on the warm-started model, report and plot."""
    data = tmp_path / "small.jsonl"
    data.write_text("".join(REAL.read_text().splitlines(keepends=True)[:3]))
    out = tmp_path / "run"
    r = _cli("train", "--data", str(data), "--out", str(out), "--max-steps", "2", "--group", "2", "--batch", "2",
             "--held-out", "0.34", "--max-completion", "32", "--easy-samples", "2", "--warmup-sft", "1")
    assert r.returncode == 0, r.stderr[-3000:]
    report = json.loads((out / "report.json").read_text())
    sft = report["stages"]["warmup_sft"]
    assert sft["steps"] and all(s["loss"] > 0 for s in sft["steps"]) and sft["held_out_after"]["steps"] > 0
    assert "held-out (after the warm start)" in r.stderr
    assert report["items"]["built"] > 0 and report["items"]["trained_on"] > 0
    assert len(report["steps"]) == 2 and all("reward" in s and "groups_with_spread" in s for s in report["steps"])
    assert any(s["reward_std"] > 0 for s in report["steps"])  # rewards vary within groups: something to learn
    before, after = report["held_out_before"], report["held_out_after"]
    assert before["steps"] > 0 and after["steps"] > 0 and 0 < before["served"]["steps"] <= before["steps"]
    change = report["change"]  # paired over the same held-out steps, with its interval
    assert change["steps"] == before["steps"] and change["low"] <= change["mean"] <= change["high"]
    assert abs(change["mean"] - (after["mean_similarity"] - before["mean_similarity"])) < 0.01
    assert "per_step" not in before and "per_step" not in after
    assert (out / "adapter" / "adapter_model.safetensors").exists() and (out / "training.png").stat().st_size > 0
    from safetensors.numpy import load_file  # LoRA's B matrices start at zero: training must have moved them

    weights = load_file(str(out / "adapter" / "adapter_model.safetensors"))
    moved = [k for k, v in weights.items() if ".lora_B." in k and abs(v).max() > 0]
    assert moved and len(moved) == sum(".lora_B." in k for k in weights), "some LoRA B matrices never changed"
    assert "held-out mean similarity" in r.stdout + r.stderr
    assert "held-out (adapter)" in r.stderr  # scored with the embedded engine serving the adapter
    eval_db = sqlite3.connect(out / "eval.db")
    models = {m for (m,) in eval_db.execute("select model from episodes")}
    assert models == {"smollm2-135m-instruct", "smollm2-135m-instruct-adapter"}
