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


def test_items_are_the_prompts_the_server_sends_for_real_steps_the_state_does_not_answer():
    records = records_from(None, [REAL])
    items, by_state = build_items(records)
    assert len(items) + by_state == sum(len(r.steps) for r in records)
    assert by_state > 0 and items  # pwd, cat of a seeded file… never reach the model
    first = items[0]
    assert first.messages[0]["role"] == "system" and first.prefill.endswith("\n")
    assert first.prefill.rstrip("\n").endswith(first.arguments["command"])  # the transcript ends at the command
    train, held = split_episodes(records, 0.2, 0)
    assert len(held) == 2 and not {r.id for r in train} & {r.id for r in held}
    # The reward reads a completion the way the server reads an answer: a right one scores high,
    # an explanation is penalised as the wrong format.
    s, dialect, embedder = Settings(), get_dialect("instruct"), Embedder()
    assert s.score(first, first.real + "user@devbox:~$ ls\n", dialect, embedder) > 0.95
    assert s.score(first, "This command shows the status.", dialect, embedder) < 0.0
    assert Settings(reward="binary").score(first, first.real, dialect, embedder) == 1.0


@pytest.mark.parametrize("dialect", ["instruct", "agentworld"])
@pytest.mark.parametrize("name", ["devbox-sessions.jsonl", "memory-mirror.jsonl", "git-mirror.jsonl"])
def test_the_warm_start_target_reads_back_as_the_real_observation(dialect, name):
    """What the supervised warm start teaches is an answer the server reads as the real observation."""
    from mcp_world.formats import Call, get_format
    from mcp_world.training.items import is_valid

    items, _ = build_items(records_from(None, [FIXTURES_DIR / "real" / name]), dialect)
    assert items
    for it in items:
        text, valid = is_valid(it, it.target, get_dialect(dialect))
        assert valid, (it.episode, it.step, it.target[:200])
        real = get_format(it.format).parse(it.real, Call(it.tool, it.arguments, it.state, spec=it.spec)).text
        assert text.rstrip() == real.rstrip(), (it.episode, it.step)  # markup may trim trailing blanks


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
    assert report["held_out_before"]["steps"] > 0 and report["held_out_after"]["steps"] > 0
    assert (out / "adapter" / "adapter_model.safetensors").exists() and (out / "training.png").stat().st_size > 0
    assert "held-out mean similarity" in r.stdout + r.stderr
    assert "held-out (adapter)" in r.stderr  # scored with the embedded engine serving the adapter
    eval_db = sqlite3.connect(out / "eval.db")
    models = {m for (m,) in eval_db.execute("select model from episodes")}
    assert models == {"smollm2-135m-instruct", "smollm2-135m-instruct-adapter"}
