"""Every error mcp-world raises, in one place.

    MCPWorldError                 operator faults: exceptions for whoever runs mcp-world
    ├── WorldFileError            a world file (or domain folder) is malformed
    ├── UnknownName               an engine, dialect or domain name that is not registered
    ├── EngineSetupError          the embedded engine cannot be prepared or started
    └── StoreError                the SQLite log cannot be opened or written
    AgentFault                    what the agent should read: returned as an MCP tool error
                                  with one of the fixed `FaultKind`s, and logged on its step
    FormatError (ValueError)      a world-model answer is not a valid observation of its domain;
                                  the simulator re-asks, then turns it into an AgentFault
    StateError (ValueError)       a state update that does not validate; the previous state stands

Foreign errors are converted where they arise: httpx in `engine.py`, sqlite in `store.py`,
pydantic/yaml in `world.py`.
"""

from __future__ import annotations

from enum import StrEnum


class MCPWorldError(Exception):
    """An operator-facing fault (bad configuration, missing dependency)."""


class WorldFileError(MCPWorldError):
    """A world file or domain folder is malformed; the message names the field."""


class UnknownName(MCPWorldError, ValueError):
    """A name no registry knows; the message lists the names it does know."""


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


class FormatError(ValueError):
    """The world model's answer is not a valid observation for the domain; the message says why."""


class RepetitionError(FormatError):
    """The answer ran to its token limit repeating itself: the re-ask samples with a stronger
    repetition penalty instead of the same settings that looped."""


class StateError(ValueError):
    """A state update that does not validate; the previous state stands."""
