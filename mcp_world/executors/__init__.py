"""Real executors: run an agent's action for real, in a disposable sandbox, beside the simulation
(shadow mode). Registered by domain name; only the terminal has one so far."""

from __future__ import annotations

from .sandbox import RealResult, SandboxLimits, ShadowTerminal, bwrap_available

EXECUTORS = {"terminal": ShadowTerminal}

__all__ = ["EXECUTORS", "RealResult", "SandboxLimits", "ShadowTerminal", "bwrap_available"]
