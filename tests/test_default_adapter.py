"""Which model the embedded engine serves: the adapter shipped in adapters/devbox-rwml (it beat the
bare model on held-out fidelity; merged into the weights) by default, the bare packaged model with
`--adapter none`, or an adapter given with `--adapter DIR`."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import numpy as np
import pytest
from safetensors.numpy import save_file

from mcp_world import embedded


def _adapter(folder: Path) -> Path:
    folder.mkdir()
    (folder / "adapter_config.json").write_text(json.dumps({"r": 4}))
    save_file({"q_proj.lora_A.weight": np.zeros((4, 576), np.float32)}, str(folder / "adapter_model.safetensors"))
    return folder


def test_the_shipped_adapter_is_served_by_default_with_the_report_that_earned_it(engine_url):
    shipped = embedded.DEFAULT_ADAPTER
    assert embedded.default_adapter() == shipped and embedded.EmbeddedConfig().adapter == shipped
    models = [m["id"] for m in httpx.get(f"{engine_url}/v1/models", timeout=10).json()["data"]]
    assert models == ["smollm2-135m-instruct-devbox-rwml"]
    report = json.loads((shipped / "report.json").read_text())
    before, after = report["held_out_before"], report["held_out_after"]
    assert report["improved"] and after["mean_similarity"] > before["mean_similarity"]
    assert after["binary_score"] > before["binary_score"] and report["change"]["better"] > report["change"]["worse"]
    from mcp_world.training import check_adapter

    check_adapter(shipped, embedded.prepare_model(embedded.cache_dir()))  # it fits the packaged model


def test_the_default_none_and_a_folder_each_name_what_is_served(tmp_path, monkeypatch):
    shipped = _adapter(tmp_path / "devbox-rwml")
    monkeypatch.setattr(embedded, "DEFAULT_ADAPTER", shipped)
    assert embedded.default_adapter() == shipped and embedded.EmbeddedConfig().adapter == shipped
    assert embedded.resolve_adapter(None) == shipped
    assert embedded.resolve_adapter("none") is None and embedded.resolve_adapter("NONE") is None
    other = _adapter(tmp_path / "mine")
    assert embedded.resolve_adapter(str(other)) == other.resolve()

    def name(cfg: embedded.EmbeddedConfig) -> str:
        cmd = embedded.engine_command(cfg, Path("/models/x"), 1)
        assert "--enable-lora" not in cmd  # merged into the weights, not LoRA at run time
        return cmd[cmd.index("--served-model-name") + 1]

    assert name(embedded.EmbeddedConfig()) == "smollm2-135m-instruct-devbox-rwml"
    assert name(embedded.EmbeddedConfig(adapter=None)) == "smollm2-135m-instruct"
    assert name(embedded.EmbeddedConfig(adapter=other)) == "smollm2-135m-instruct-adapter"

    from mcp_world.cli import _adapter as option

    assert option("none", ("embedded",), None, None) == (None, None)
    assert option(None, ("embedded",), None, "m") == (shipped, "m")


def test_a_broken_adapter_is_refused_when_merging(tmp_path):
    from mcp_world.errors import EngineSetupError
    from mcp_world.paths import cache_dir

    with pytest.raises(EngineSetupError, match="merging the adapter"):
        embedded.merged_model(cache_dir(), _adapter(tmp_path / "broken"))


def test_only_the_three_most_recent_merged_models_stay_in_the_cache(tmp_path):
    """Every adapter served merged (each training run's candidate) made a 260 MB folder that was
    never removed; now the cache keeps the shipped adapter's and the three most recently used."""
    import os
    import time

    from mcp_world.paths import cache_dir

    cache = tmp_path / "cache"
    (cache / "models").mkdir(parents=True)
    (cache / "models" / embedded.MODEL_NAME).symlink_to(
        cache_dir(os.environ.get("MCP_WORLD_CACHE")) / "models" / embedded.MODEL_NAME)

    def merged(name: str, age_s: float) -> Path:
        folder = cache / "models" / name
        folder.mkdir()
        (folder / "config.json").write_text("{}")
        (folder / "model.safetensors").write_bytes(b"")
        os.utime(folder, (time.time() - age_s, time.time() - age_s))
        return folder

    shipped = merged(embedded._merged_dir(cache, embedded.DEFAULT_ADAPTER).name, age_s=10_000)  # the oldest
    candidates = [merged(f"{embedded.MODEL_NAME}+run{i}", age_s=1000 - i * 100) for i in range(6)]
    assert embedded.merged_model(cache, embedded.DEFAULT_ADAPTER) == shipped  # reused, not merged again
    left = {p.name for p in (cache / "models").iterdir()}
    assert left == {embedded.MODEL_NAME, shipped.name, *(c.name for c in candidates[-3:])}, left
    assert shipped.stat().st_mtime > candidates[-1].stat().st_mtime  # used now: the most recent
