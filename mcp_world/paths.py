"""Where mcp-world keeps things on disk: the cache directory and the shipped data folders."""

from __future__ import annotations

import importlib.util
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _shipped(folder: str) -> Path:
    """A shipped data folder: the checkout's own (a source tree or an editable install), else the
    data package a wheel installs it as (`mcp_world_<folder>`)."""
    here = PROJECT_ROOT / folder
    if (PROJECT_ROOT / "pyproject.toml").is_file() and here.is_dir():
        return here
    spec = importlib.util.find_spec(f"mcp_world_{folder}")
    if spec is not None and spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    return here


DOMAINS_DIR = _shipped("domains")
FIXTURES_DIR = _shipped("fixtures")
WORLDS_DIR = FIXTURES_DIR / "worlds"
ADAPTERS_DIR = _shipped("adapters")


def cache_dir(override: str | Path | None = None) -> Path:
    """The cache directory (converted model, background-engine record); created on demand."""
    if override:
        path = Path(override).expanduser()
    else:
        path = Path.home() / ".cache" / "mcp-world"
    path.mkdir(parents=True, exist_ok=True)
    return path
