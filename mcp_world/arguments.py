"""A tool call's arguments checked before anything is asked of the world model: the tool exists,
the arguments are within the size limit and match the tool's input schema. What was wrong goes back
to the agent with what the tool accepts, so it can correct itself (a bad_arguments tool error).
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from . import schemas
from .domain import Tool
from .errors import AgentFault, FaultKind


class ArgumentCheck:
    """The tools a server serves, each with its schema's validator."""

    def __init__(self, tools: dict[str, Tool], trusted: dict[str, bool], max_chars: int) -> None:
        self.tools = tools
        self.max_chars = max_chars
        # A domain's own schemas are the operator's code; world-declared ones (from files, upstreams) are not.
        self._validators = {name: schemas.validator(t.input_schema, trusted=trusted[name]) for name, t in tools.items()}

    def __call__(self, tool_name: str, arguments: dict[str, Any]) -> Tool:
        tool = self.tools.get(tool_name)
        if tool is None:
            raise AgentFault(FaultKind.UNKNOWN_TOOL,
                             f"no tool named {tool_name!r}; tools: {', '.join(sorted(self.tools))}, world_reset")
        size = len(json.dumps(arguments, default=str))
        if size > self.max_chars:
            raise AgentFault(FaultKind.TOO_LARGE,
                             f"the arguments are {size} characters; the limit is {self.max_chars}")
        errors = sorted(self._validators[tool_name].iter_errors(arguments), key=lambda e: list(e.path))
        if errors:
            raise AgentFault(FaultKind.BAD_ARGUMENTS, _describe_errors(tool, errors))
        return tool



def _describe_errors(tool: Tool, errors: list[jsonschema.ValidationError]) -> str:
    props = tool.input_schema.get("properties", {})
    required = tool.input_schema.get("required", [])
    accepted = ", ".join(f"{k}: {_accepts(v)}{' (required)' if k in required else ''}"
                         for k, v in props.items()) or "no arguments"
    problems = []
    for e in errors[:5]:
        where = ".".join(str(p) for p in e.path)
        msg = e.message if len(e.message) < 300 else e.message[:300] + "…"
        problems.append(f"{where + ': ' if where else ''}{msg}")
    return f"invalid arguments for {tool.name}: {'; '.join(problems)}. Accepted: {accepted}"


def _accepts(prop: Any) -> str:
    if not isinstance(prop, dict):
        return "any"
    if "enum" in prop:
        return "one of " + "|".join(json.dumps(v) for v in prop["enum"][:12])
    kind = prop.get("type", "any")
    kind = "|".join(kind) if isinstance(kind, list) else str(kind)
    return kind + (f" matching {prop['pattern']}" if "pattern" in prop else "")
