"""Shared by the benchmarks that run episodes on the embedded engine: the engine at `--engine URL`,
or one started for the run (with `--adapter`) and stopped after it."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mcp_world import embedded


@contextmanager
def engine_at(url: str | None, adapter: str | None = None) -> Iterator[str]:
    if url:
        yield url
        return
    started = embedded.start(embedded.EmbeddedConfig(adapter=embedded.resolve_adapter(adapter)), say=print)
    try:
        yield started.url
    finally:
        started.stop()


def episode_arguments(ap: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options such a benchmark takes: the engine, the episode's seed, where to write its rows."""
    ap.add_argument("--engine", default=None, help="an engine's URL (default: start the embedded one)")
    ap.add_argument("--adapter", default=None, help="the embedded engine's adapter: a folder, or 'none' "
                                                    "(default: the shipped one)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None)
    return ap
