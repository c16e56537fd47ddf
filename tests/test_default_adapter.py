"""Which model the embedded engine serves: the bare packaged model, an adapter given with
`--adapter DIR` (merged into the weights), or — once one is shipped in adapters/devbox-rwml because
it beat the bare model on held-out fidelity — that adapter by default, `--adapter none` opting out."""

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


def test_nothing_is_shipped_so_the_default_is_the_bare_model(engine_url):
    assert embedded.default_adapter() is None  # no adapter has yet cleared the bar (README, RWML)
    assert embedded.EmbeddedConfig().adapter is None
    models = [m["id"] for m in httpx.get(f"{engine_url}/v1/models", timeout=10).json()["data"]]
    assert models == ["smollm2-135m-instruct"]


def test_a_shipped_adapter_would_be_served_by_default_and_none_opts_out(tmp_path, monkeypatch):
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
