"""`train --deploy URL` and a URL engine in the trainer: an adapter is hot-loaded into a running
vLLM that accepts LoRA at run time (`engine start --lora`) only when it improved held-out
fidelity; the candidate the trainer evaluates there is unloaded afterwards, leaving the engine as
it was."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import pytest

from mcp_world import embedded
from mcp_world.dialects import get_dialect
from mcp_world.importing import EpisodeRecord
from mcp_world.metric import Embedder
from mcp_world.paths import FIXTURES_DIR, cache_dir
from mcp_world.store import Store
from mcp_world.training import ADAPTER_NAME, CANDIDATE_NAME, TrainJob, _with_engine, deploy, unload_adapter
from mcp_world.training.items import records_from
from mcp_world.training.rwml import Settings, _lora, _model


@pytest.fixture(scope="module")
def adapter(tmp_path_factory) -> Path:
    """A LoRA adapter of the embedded model's shapes (untrained: it answers as the base does)."""
    from peft import get_peft_model

    folder = tmp_path_factory.mktemp("adapter") / "adapter"
    get_peft_model(_model(embedded.prepare_model(cache_dir()), None), _lora(Settings())).save_pretrained(str(folder))
    return folder


def _models(url: str) -> list[str]:
    return [m["id"] for m in httpx.get(f"{url}/v1/models", timeout=10).json()["data"]]


def test_the_trainer_evaluates_a_candidate_on_a_url_engine_and_unloads_it(tmp_path, adapter, lora_engine):
    first = records_from(None, [FIXTURES_DIR / "real" / "devbox-terminal.jsonl"])[0]
    held = [EpisodeRecord.model_validate({"id": first.id, "world": first.world, "steps": first.steps[:2]})]
    job = TrainJob(out=tmp_path, engine=lora_engine)
    said: list[str] = []
    result, _ = anyio.run(_with_engine, job, held, adapter, "adapter", [], get_dialect("instruct"), Embedder(),
                          said.append, None)
    assert result["steps"] == 2 and 0.0 <= result["mean_similarity"] <= 1.0
    store = Store(tmp_path / "eval.db")
    try:
        assert {e["model"] for e in store.episodes()} == {CANDIDATE_NAME}  # the adapter answered the eval
    finally:
        store.close()
    assert _models(lora_engine) == ["smollm2-135m-instruct"]  # and it is gone again


def test_deploy_hot_loads_only_an_adapter_that_improved(adapter, lora_engine):
    said: list[str] = []
    deploy(lora_engine, adapter, False, said.append)
    assert "not deployed" in said[-1] and _models(lora_engine) == ["smollm2-135m-instruct"]
    deploy(lora_engine, adapter, True, said.append)
    assert "deployed" in said[-1] and ADAPTER_NAME in _models(lora_engine)
    r = httpx.post(f"{lora_engine}/v1/chat/completions", timeout=120,
                   json={"model": ADAPTER_NAME, "max_tokens": 8,
                         "messages": [{"role": "user", "content": "pwd"}]})
    assert r.status_code == 200 and r.json()["model"] == ADAPTER_NAME
    deploy(lora_engine, adapter, True, said.append)  # a newer adapter replaces it in place
    assert _models(lora_engine).count(ADAPTER_NAME) == 1
    unload_adapter(lora_engine, ADAPTER_NAME, said.append)  # the session's engine, as it was for the next test
    assert _models(lora_engine) == ["smollm2-135m-instruct"]
