"""Where mcp-world keeps things on disk: the cache directory and the shipped data folders."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DOMAINS_DIR = PROJECT_ROOT / "domains"
FIXTURES_DIR = PROJECT_ROOT / "fixtures"
WORLDS_DIR = FIXTURES_DIR / "worlds"
ADAPTERS_DIR = PROJECT_ROOT / "adapters"


def cache_dir(override: str | Path | None = None) -> Path:
    """The cache directory (converted model, background-engine record); created on demand."""
    if override:
        path = Path(override).expanduser()
    else:
        path = Path.home() / ".cache" / "mcp-world"
    path.mkdir(parents=True, exist_ok=True)
    return path
