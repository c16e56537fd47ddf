"""mcp-world: a simulated world for agents, served over MCP.

The public surface is `__all__` (the README's "Python API" lists the same names; a test checks
both). Names load on first use, so `import mcp_world` (and `mcp-world --help`) stays instant.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    # worlds and domains
    "World": "world", "load_world": "world", "parse_world": "world", "available_worlds": "world",
    "Domain": "domain", "Tool": "domain", "load_domain": "domain", "domain_for": "domain",
    "domain_names": "domain", "add_domain_dirs": "domain",
    "Rules": "rules", "Call": "rules", "Parsed": "rules", "Transcript": "rules",
    # answering calls
    "Simulator": "simulator", "Episode": "episodes", "Prediction": "simulator", "Limits": "simulator",
    "Sampling": "simulator", "build_server": "server", "ServeConfig": "serving", "serve": "serving",
    "get_dialect": "dialects", "EnginePool": "engines", "CompletionRequest": "engines", "Completion": "engines",
    "VLLMEngine": "engines", "Store": "store",
    # errors
    "MCPWorldError": "errors", "WorldFileError": "errors", "UnknownName": "errors", "EngineSetupError": "errors",
    "StoreError": "errors", "AgentFault": "errors", "FaultKind": "errors", "FormatError": "errors",
    "StateError": "errors",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'mcp_world' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
