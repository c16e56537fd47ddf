"""Which model the embedded engine serves: the default shipped adapter (embedded.DEFAULT_ADAPTER, which
beat the bare model on held-out fidelity; merged into the weights) by default, the bare packaged model with
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


def test_the_shipped_adapter_is_served_by_default_merged_into_the_weights(engine_url):
    """The engine's model name alone would be logged even if the merge were skipped: read the served
    weights and find the adapter in them (base + alpha/r * B @ A on every targeted projection). That
    the adapter improves fidelity is a measured figure, not a test: `benchmarks/fidelity.py`."""
    from safetensors import safe_open
    from safetensors.numpy import load_file

    from mcp_world.training import check_adapter

    shipped = embedded.DEFAULT_ADAPTER
    assert embedded.default_adapter() == shipped and embedded.EmbeddedConfig().adapter == shipped
    models = [m["id"] for m in httpx.get(f"{engine_url}/v1/models", timeout=10).json()["data"]]
    assert models == [f"smollm2-135m-instruct-{shipped.name}"]
    assert json.loads((shipped / "report.json").read_text())["improved"]  # the decision that shipped it
    cache = embedded.cache_dir()
    base_dir = embedded.prepare_model(cache)
    check_adapter(shipped, base_dir)  # it fits the packaged model
    config = json.loads((shipped / "adapter_config.json").read_text())
    scale = config["lora_alpha"] / config["r"]
    lora = load_file(str(shipped / "adapter_model.safetensors"))
    served_dir = embedded.merged_model(cache, shipped)
    (base_file,), (served_file,) = base_dir.glob("*.safetensors"), served_dir.glob("*.safetensors")
    checked = 0
    with safe_open(str(base_file), "pt") as base, safe_open(str(served_file), "pt") as served:
        for layer in (0, 15, 29):
            for module in config["target_modules"]:
                name = f"model.layers.{layer}.self_attn.{module}.weight"
                a = lora[f"base_model.model.{name[:-len('.weight')]}.lora_A.weight"].astype(np.float64)
                b = lora[f"base_model.model.{name[:-len('.weight')]}.lora_B.weight"].astype(np.float64)
                assert np.abs(b).max() > 0  # B starts at zero: training moved it
                original = base.get_tensor(name).double().numpy()  # bf16 has no numpy type
                want = original + scale * b @ a
                got = served.get_tensor(name).double().numpy()
                assert not np.array_equal(got, original)
                assert np.allclose(got, want, atol=2e-2), name  # stored in bf16
                checked += 1
    assert checked == 12


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

    from mcp_world.cli.common import _adapter as option

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


def test_the_shipped_adapter_is_not_served_on_a_domain_where_it_measured_worse(tmp_path):
    """Its report.json holds a mean similarity per domain for the bare model and the adapter on the
    same real steps; `serve` with no --adapter serves the bare model for a world of a domain where
    the adapter was worse, and says so."""
    shipped = embedded.DEFAULT_ADAPTER
    table = json.loads((shipped / "report.json").read_text())["domains"]
    assert {"terminal", "mcp", "browser"} <= set(table)
    worse = sorted(d for d, row in table.items() if row["adapter"] < row["bare"])
    assert embedded.measured_worse(shipped, sorted(table)) == worse
    said: list[str] = []
    for domain, row in table.items():
        served = embedded.adapter_for([domain], said.append)
        assert (served is None) == (row["adapter"] < row["bare"]), domain
    bare = [line for line in said if "serving the bare model" in line]
    assert all("report.json" in line for line in bare) and len(bare) == len(worse)
    # a world of several domains: bare when the adapter is worse on any of them
    assert embedded.adapter_for(["mcp", *worse]) is (None if worse else shipped)
    # any adapter folder's report is read the same way; an unreadable one decides nothing
    fake = _adapter(tmp_path / "a")
    (fake / "report.json").write_text(json.dumps({"domains": {"android": {"bare": 0.3, "adapter": 0.2},
                                                              "terminal": {"bare": 0.3, "adapter": 0.4}}}))
    assert embedded.measured_worse(fake, ["android", "terminal", "os"]) == ["android"]
    (fake / "report.json").write_text("{not json")
    assert embedded.measured_worse(fake, ["android"]) == []


def test_the_corpus_adapter_fits_the_packaged_model_and_its_report_matches_the_held_out_run():
    """adapters/corpus-sft (trained on the corpus's train worlds) loads on the packaged model, and the
    figures its report and model card give are those of benchmarks/results/heldout.json."""
    from mcp_world.paths import cache_dir
    from mcp_world.training import check_adapter

    corpus = embedded.ADAPTERS_DIR / "corpus-sft"
    check_adapter(corpus, embedded.prepare_model(cache_dir()))
    row = json.loads((corpus / "report.json").read_text())["domains"]["terminal"]
    run = json.loads((Path(__file__).parent.parent / "benchmarks" / "results" / "heldout.json").read_text())
    every = run["per_family"]["all"]
    assert round(every["model adapters/corpus-sft"], 3) == row["adapter"]
    assert round(every["model none"], 3) == row["bare"] and round(every["model default"], 3) == row["shipped_adapter"]
    assert run["change"]["from"] == "model default" and run["change"]["to"] == "model adapters/corpus-sft"
    assert run["change"]["low"] > 0  # a clear gain over the shipped adapter on worlds never trained on
    assert f"**{row['adapter']:.3f}**" in (corpus / "README.md").read_text()


def test_the_corpus_adapter_is_measured_on_every_domain_with_real_steps_and_served_where_clearly_better():
    """adapters/corpus-sft was measured against the bare model on every domain with real steps
    (benchmarks/adapter_domains.py writes these rows, the README prints them): worse on none. It is
    served on worlds of the terminal alone, where it measured clearly better than the default adapter
    on held-out worlds (benchmarks/heldout.py), and says so; a search world gets the bare model (the
    default measured worse there), and says so; every other shipped world gets the default, silently."""
    from mcp_world.world import available_worlds, load_world

    corpus = embedded.ADAPTERS_DIR / "corpus-sft"
    table = json.loads((corpus / "report.json").read_text())["domains"]
    assert {"terminal", "mcp", "browser", "os"} <= set(table)
    for domain, row in table.items():
        assert row["steps"] >= 50 and row["adapter"] >= row["bare"], (domain, row)
    rows = (Path(__file__).parent.parent / "benchmarks" / "results" / "adapter_domains.txt").read_text()
    for domain in ("mcp", "browser", "os"):
        assert f"{table[domain]['adapter']:.3f}" in rows.split(f"\n{domain} ")[1].split("\n")[0]
    assert embedded.measured_better(corpus, ["terminal"]) == {"terminal": table["terminal"]["change_over_shipped"]}
    for name in available_worlds():
        said: list[str] = []
        domains = load_world(name).domains
        served = embedded.adapter_for(domains, said.append)
        if domains == ["terminal"]:
            assert served == corpus and embedded.served_name(served) == "smollm2-135m-instruct-corpus-sft", name
            assert len(said) == 1 and "serving the adapter corpus-sft" in said[0] and "+0.090 to +0.210" in said[0]
        elif name in ("webshop", "desktop"):  # domains-sft's (the test below)
            assert served == embedded.ADAPTERS_DIR / "domains-sft" and "serving the adapter domains-sft" in said[0]
        elif domains == ["search"]:  # the default measured worse than the bare model on real searches
            assert served is None and "serving the bare model" in said[0] and "search" in said[0], (name, said)
        else:
            assert served == embedded.DEFAULT_ADAPTER and not said, (name, said)
    assert {"devbox"} <= {n for n in available_worlds() if load_world(n).domains == ["terminal"]}


def test_another_shipped_adapter_is_served_only_where_it_measured_clearly_better_than_the_default(tmp_path, monkeypatch):
    """The choice reads each shipped adapter's report: every domain of the world needs a row measured
    against the default adapter by name with the paired interval above zero, and none worse than the
    bare model; among several, the larger gain; a report that says less chooses nothing."""
    monkeypatch.setattr(embedded, "ADAPTERS_DIR", tmp_path)
    default = _adapter(tmp_path / "devbox-rwml")
    monkeypatch.setattr(embedded, "DEFAULT_ADAPTER", default)
    monkeypatch.setattr(embedded, "default_adapter", lambda: default)

    def shipped(name: str, **rows: dict) -> Path:
        folder = _adapter(tmp_path / name)
        (folder / "report.json").write_text(json.dumps({"domains": rows}))
        return folder

    def row(mean: float, low: float, over: str = "devbox-rwml", bare: float = 0.3) -> dict:
        return {"bare": bare, "adapter": 0.5, "shipped": over, "change_over_shipped": [mean, low, mean + 0.1]}

    good = shipped("good", terminal=row(0.10, 0.04), browser=row(0.05, -0.01))
    assert embedded.adapter_for(["terminal"]) == good
    assert embedded.adapter_for(["terminal", "browser"]) == default  # not clearly better on the browser
    assert embedded.adapter_for(["terminal", "mcp"]) == default  # never measured on MCP
    better = shipped("better", terminal=row(0.20, 0.05))
    assert embedded.adapter_for(["terminal"]) == better
    shipped("stale", terminal=row(0.50, 0.40, over="some-old-default"))  # measured against another default
    shipped("worse-than-bare", terminal=row(0.60, 0.50, bare=0.9))
    (tmp_path / "unreadable").mkdir()
    (tmp_path / "unreadable" / "adapter_model.safetensors").write_bytes(b"")
    (tmp_path / "unreadable" / "report.json").write_text("{not json")
    said: list[str] = []
    assert embedded.adapter_for(["terminal"], said.append) == better and "better" in said[0]
    assert embedded.measured_better(good, ["terminal", "browser"]) is None
    assert embedded.measured_better(good, []) is None


@pytest.mark.anyio
async def test_the_adapter_served_on_terminal_worlds_answers_a_devbox_episode_in_the_terminal_format(lora_engine, tmp_path):
    """corpus-sft, hot-loaded into a real engine, serves devbox to a real MCP client: every step the
    model's (state off), a valid terminal observation (output, exit code, working directory), logged
    under the adapter's name. Served by default it broke search and a declared MCP server; this is the
    domain it is chosen for."""
    import sqlite3

    import anyio

    from mcp_world.training import ADAPTER_NAME, unload_adapter

    from .helpers import stdio_client

    db = tmp_path / "t.db"
    commands = ["git log --oneline | head -3", "cat nosuchfile"]  # (a listing and an error: each a model call of 30-60 s)
    try:
        with anyio.fail_after(900):
            async with stdio_client(lora_engine, db, "--world", "devbox", "--state", "off", "--seed", "3",
                                    "--adapter", str(embedded.ADAPTERS_DIR / "corpus-sft")) as c:
                results = [await c.call_tool("run_command", {"command": cmd}) for cmd in commands]
    finally:
        unload_adapter(lora_engine, ADAPTER_NAME, lambda _: None)
    con = sqlite3.connect(db)
    logged = con.execute("select provenance, error_kind, observation from steps order by idx").fetchall()
    model = con.execute("select model from episodes").fetchone()[0]
    con.close()
    assert model == ADAPTER_NAME and len(logged) == len(commands)
    for cmd, res, (provenance, error, observation) in zip(commands, results, logged):
        assert not res.is_error and error is None and provenance == "model", (cmd, res.content[0].text)
        assert set(res.structured_content) == {"output", "exit_code", "cwd"} and observation == res.content[0].text


@pytest.mark.anyio
async def test_a_world_served_with_a_chosen_adapter_reuses_the_background_engine_and_says_what_it_serves(
        engine_url, tmp_path):
    """`engine start` leaves an engine (the default adapter) for every command to share; serving devbox,
    for which corpus-sft is chosen, reuses it instead of starting a second engine on the same cores,
    and says which model answers and how to have the chosen one. Asked for by name, the adapter is
    started (not tested here: a second engine)."""
    import os
    import sqlite3
    import time
    from dataclasses import asdict

    import anyio

    from .helpers import http_client, http_server

    port = engine_url.rsplit(":", 1)[-1].encode()
    pids = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _runs(p, port)]
    pid = next(p for p in pids if os.getpgid(p) == p)  # the engine's process group, as `engine start` records it
    cache = tmp_path / "cache"
    cache.mkdir()
    record = embedded.EngineRecord(url=engine_url, pid=pid, model=embedded.served_name(embedded.DEFAULT_ADAPTER),
                                   log="", started_at=time.time())
    (cache / embedded.RECORD_FILE).write_text(json.dumps(asdict(record)))
    db = tmp_path / "r.db"
    with anyio.fail_after(300):
        with http_server(None, db, "--world", "devbox", "--cache", str(cache), "--state", "off") as (url, proc):
            async with http_client(url, "reuse") as c:
                r = await c.call_tool("run_command", {"command": "pwd"})
    said = proc.stdout.read()
    assert not r.is_error and "using the background embedded engine" in said, said
    assert "serving the adapter corpus-sft" in said and "smollm2-135m-instruct-corpus-sft was chosen" in said
    con = sqlite3.connect(db)
    assert con.execute("select model from episodes").fetchone()[0] == record.model  # what really answered
    con.close()
    assert not (cache / "models").exists()  # nothing prepared, nothing started


def _runs(proc: Path, port: bytes) -> bool:
    try:
        argv = (proc / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"vllm.entrypoints.openai.api_server" in argv and port in argv


WORLD_CALLS = {  # one call a world's first step can make, per shipped world of one domain
    "devbox": ("run_command", {"command": "cat README.md"}),
    "webshop": ("browser_navigate", {"url": "https://greenleaf.example/"}),
    "desktop": ("desktop_get_tree", {}),
}


def test_the_adapter_of_every_domain_is_measured_on_held_out_worlds_and_served_where_clearly_better():
    """adapters/domains-sft (trained on the train worlds of every domain with real steps:
    scripts/domain_mix.py) has a row for each of them, measured on worlds it never saw against the
    bare model and the default adapter; serve chooses it for a world only where every domain of the
    world has it clearly better than the default and none worse than the bare model (on MCP it is
    clearly worse: not there), and corpus-sft keeps the terminal (its gain there is larger)."""
    from mcp_world.world import available_worlds, load_world

    mixed = embedded.ADAPTERS_DIR / "domains-sft"
    table = json.loads((mixed / "report.json").read_text())["domains"]
    assert {"terminal", "mcp", "browser", "os"} <= set(table)
    for domain, row in table.items():
        assert row["steps"] >= 25 and row["shipped"] == "devbox-rwml" and len(row["change_over_shipped"]) == 3, domain
    assert table["mcp"]["change_over_shipped"][2] < 0  # measured clearly worse there
    chosen = {name: embedded.adapter_for(load_world(name).domains) for name in available_worlds()}
    assert chosen["devbox"] == embedded.ADAPTERS_DIR / "corpus-sft"
    for name, adapter in chosen.items():
        domains = load_world(name).domains
        clear = all(d in table and table[d]["change_over_shipped"][1] > 0 and table[d]["adapter"] >= table[d]["bare"]
                    for d in domains)
        assert (adapter == mixed) == (clear and domains != ["terminal"]), (name, adapter)
    assert {n for n, a in chosen.items() if a == mixed} == {"webshop", "desktop"}


@pytest.mark.anyio
@pytest.mark.slow  # a minute a world on 2 cores (a page, a desktop tree), desktop's past the engine's 120 s
# when the cores are shared; the default suite runs a whole devbox episode on a chosen adapter (above)
@pytest.mark.parametrize("name", ["webshop", "devbox", "desktop"])
async def test_each_shipped_adapter_answers_the_worlds_it_is_chosen_for_in_their_formats(name, lora_engine, tmp_path):
    """Every shipped adapter that `serve` chooses over the default for a shipped world (domains-sft:
    webshop and desktop; corpus-sft: devbox), hot-loaded into a real engine,
    serves that world to a real MCP client, the model answering (state off): a valid observation of
    the world's format (corpus-sft, trained on the terminal alone, had unlearned the JSON a declared
    MCP server returns)."""
    import sqlite3

    import anyio

    from mcp_world.training import ADAPTER_NAME, unload_adapter
    from mcp_world.world import load_world

    from .helpers import stdio_client

    adapter = embedded.adapter_for(load_world(name).domains)
    assert adapter is not None and adapter != embedded.DEFAULT_ADAPTER, (name, adapter)
    tool, arguments = WORLD_CALLS[name]
    db = tmp_path / f"{name}.db"
    try:
        with anyio.fail_after(600):
            async with stdio_client(lora_engine, db, "--world", name, "--state", "off", "--seed", "3",
                                    "--adapter", str(adapter)) as c:
                result = await c.call_tool(tool, arguments)
    finally:
        unload_adapter(lora_engine, ADAPTER_NAME, lambda _: None)
    con = sqlite3.connect(db)
    provenance, error = con.execute("select provenance, error_kind from steps").fetchone()
    con.close()
    text = result.content[0].text
    assert not result.is_error and error is None and provenance == "model", (adapter.name, name, text[:300])
    if name == "webshop":
        assert "<body" in text.lower(), text[:300]


def test_every_world_served_an_adapter_of_its_own_is_in_the_test_above():
    """(helpdesk's MCP server and the other worlds keep the default: `test_mcp_domain.py` serves it.)"""
    from mcp_world.world import available_worlds, load_world

    chosen = {name for name in available_worlds()
              if embedded.adapter_for(load_world(name).domains) not in (None, embedded.DEFAULT_ADAPTER)}
    assert chosen == set(WORLD_CALLS)


def test_the_mix_of_every_domain_keeps_the_held_out_worlds_out(tmp_path):
    """scripts/domain_mix.py, which made domains-sft's training data: every domain with real steps is
    in it, and no world the held-out figures are measured on (benchmarks/adapter_domains.py --sets
    heldout, the terminal corpus's held-out file) is."""
    import subprocess
    import sys

    from mcp_world.importing import read_records
    from mcp_world.paths import FIXTURES_DIR

    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "mix.jsonl"
    subprocess.run([sys.executable, str(root / "scripts" / "domain_mix.py"), "--out", str(out)], check=True,
                   capture_output=True, timeout=300)
    mixed = read_records(out)
    worlds = {r.world.name for r in mixed}
    held = {r.world.name for r in read_records(FIXTURES_DIR / "real" / "corpus-heldout.jsonl.xz")}
    assert {d for r in mixed for d in r.world.domains} >= {"terminal", "browser", "os", "mcp"}
    assert not worlds & held and not [w for w in worlds if w.startswith(("pydoc", "mkdocs", "mousepad-python",
                                                                         "galculator", "git", "sqlite", "fetch"))], worlds
    assert {"datasette-recipes", "pelican-blog", "mousepad-notes", "memory", "filesystem-sniffio", "time-1"} <= worlds
