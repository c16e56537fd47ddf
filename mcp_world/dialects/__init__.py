"""Dialects render (world, state, history, action) into messages for a model family.

Registered by name; `get_dialect("instruct")`. A new dialect is one module added to `DIALECTS`.
"""

from __future__ import annotations

from .base import Dialect, Rendered, Turn
from .instruct import InstructDialect

DIALECTS: dict[str, type] = {"instruct": InstructDialect}


def get_dialect(name: str) -> Dialect:
    try:
        return DIALECTS[name]()
    except KeyError:
        raise ValueError(f"unknown dialect {name!r}; known: {', '.join(sorted(DIALECTS))}") from None


__all__ = ["DIALECTS", "Dialect", "Rendered", "Turn", "get_dialect"]
