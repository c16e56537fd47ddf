"""Every error mcp-world raises, in one place.

    MCPWorldError                 operator faults: exceptions for whoever runs mcp-world
    ├── WorldFileError            a world file (or domain folder) is malformed
    ├── EngineSetupError          the embedded engine cannot be prepared or started
    └── StoreError                the SQLite log cannot be opened or written
    AgentFault                    what the agent should read: returned as an MCP tool error
                                  with one of the fixed `FaultKind`s, and logged on its step

Foreign errors are converted where they arise: httpx in `engine.py`, sqlite in `store.py`,
pydantic/yaml in `world.py`.
"""

from __future__ import annotations

from enum import StrEnum


class MCPWorldError(Exception):
    """An operator-facing fault (bad configuration, missing dependency)."""


class WorldFileError(MCPWorldError):
    """A world file or domain folder is malformed; the message names the field."""


class EngineSetupError(MCPWorldError):
    """The embedded engine cannot be prepared or started."""


class StoreError(MCPWorldError):
    """The episode store cannot be opened or written."""


class FaultKind(StrEnum):
    """The fixed set of tool-error kinds an agent can receive (also stored on the step row)."""

    BAD_ARGUMENTS = "bad_arguments"
    UNKNOWN_TOOL = "unknown_tool"
    TOO_LARGE = "too_large"
    ENGINE_UNAVAILABLE = "engine_unavailable"
    ENGINE_TIMEOUT = "engine_timeout"
    MALFORMED_OBSERVATION = "malformed_observation"
    OBSERVATION_TOO_LARGE = "observation_too_large"
    INTERNAL = "internal"


class AgentFault(Exception):
    """A tool call that cannot be answered; the agent sees `kind: message`."""

    def __init__(self, kind: FaultKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return f"{self.kind.value}: {self.message}"
