"""What worlds and domains both declare: tools (names, descriptions, JSON schemas, annotations)
and demonstrations (real transitions shown to the world model as examples)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .schemas import check_portable


class ToolSpec(BaseModel):
    """A tool declared by a domain, by a world (for a domain that serves the world's own tools), or copied
    from a real MCP server."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,128}$")
    title: str | None = None
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"}, alias="inputSchema")
    output_schema: dict[str, Any] | None = Field(default=None, alias="outputSchema")
    annotations: dict[str, Any] | None = None

    @field_validator("input_schema", "output_schema")
    @classmethod
    def _a_schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        """World files and mirrored servers come from other people: only local references and
        linear-time patterns (mcp_world/schemas.py)."""
        if value is None:
            return value
        if value.get("type", "object") != "object":
            raise ValueError(f"a tool's schemas describe an object (type: object), not {value.get('type')!r}")
        check_portable(value)
        return value

    def with_defaults(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments with the input schema's defaults filled in."""
        return with_defaults(self.input_schema, arguments)


def with_defaults(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """`arguments` with the defaults of `schema`'s properties filled in where not given."""
    props = schema.get("properties", {})
    return {**{k: p["default"] for k, p in props.items() if isinstance(p, dict) and "default" in p}, **arguments}


class Demonstration(BaseModel):
    """A real transition shown to the world model as an example of the tool's output."""

    model_config = ConfigDict(extra="forbid")
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    observation: str
    structured: dict[str, Any] | None = None
    # The world it was recorded in, when what it shows belongs to that world (a project's files, a
    # site's pages): a domain's demonstration of one world is not shown in others (DESIGN.md
    # "Worlds"; Domain.demonstrations_for). None: it shows nothing particular to a world.
    world: str | None = None
