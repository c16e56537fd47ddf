"""What every real executor takes and gives (kept apart from the package so that executors can
import it and each other without a cycle)."""

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
