"""Real executors: run an agent's action for real, beside the simulation (shadow mode), and say
what reality observed. Registered by domain name:

    terminal   a bubblewrap sandbox per episode (sandbox.py)
    browser    real GETs of allowlisted local origins (browser.py)
    swe        the world's repository in a bubblewrap sandbox per episode, its tests run for real (repo.py)

Each has `from_options(ShadowOptions)`, `async observe(episode_id, world, tool, arguments, state) ->
RealObservation | None` (None: this action has no real counterpart), `end(episode_id)` and `close()`;
`uses_origins` says whether it reads `--shadow-origin`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ShadowOptions:
    """What `serve` passes every real executor."""

    timeout_s: float = 10.0
    origins: tuple[str, ...] = ()  # the only origins a real browser may fetch (local ones)
    memory_mib: int = 512  # a real shell's memory (per process; per sandbox where a cgroup can be made)
    disk_mib: int = 256  # a real shell's writable home
    processes: int = 64  # a real shell's processes at once


@dataclass(frozen=True)
class RealObservation:
    text: str
    structured: dict[str, Any]  # what the agent receives with --real
    logged: dict[str, Any]  # what the log keeps beside it (may say more: timed out, truncated)


from .browser import ShadowBrowser  # noqa: E402
from .sandbox import RealResult, SandboxLimits, ShadowTerminal, bwrap_available  # noqa: E402
from .repo import ShadowRepo  # noqa: E402

EXECUTORS = {"terminal": ShadowTerminal, "browser": ShadowBrowser, "swe": ShadowRepo}

__all__ = ["EXECUTORS", "RealObservation", "ShadowOptions", "RealResult", "SandboxLimits", "ShadowBrowser",
           "ShadowRepo", "ShadowTerminal", "bwrap_available"]
