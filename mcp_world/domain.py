"""Domains: one folder of data per domain under `domains/` (tools, prompt, format, demonstrations).

A domain folder holds:
    domain.yaml            name, description, format, max_tokens, tools (name, description,
                           inputSchema, annotations, optional `action` template for prompts)
    prompt.md              the instruct dialect's system prompt for the domain
    demonstrations.jsonl   real examples of the tool's output, one {tool, arguments, observation}
                           per line, shown to the world model as few-shot turns
    grammar.gbnf           optional: a grammar (vLLM structured outputs) the answer must follow,
                           continuing the format's prefill
    grammar.TOOL.gbnf      optional: the same for one tool only (it wins over grammar.gbnf)
A user adds a domain by adding a folder; nothing in `mcp_world/` changes unless it needs a new
observation format.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import WorldFileError
from .paths import DOMAINS_DIR
from .world import Demonstration, ToolSpec, World


class _ToolFile(ToolSpec):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    # How the action reads in a prompt, e.g. "$ {command}"; several: the first that fits the arguments.
    action: str | list[str] | None = None


class _DomainFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    description: str
    format: str
    max_tokens: int = Field(default=512, ge=16, le=32768)
    tools: list[_ToolFile] = Field(default_factory=list)


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, Any]
    actions: tuple[str, ...]
    domain: str
    output_schema: dict[str, Any] | None = None  # the mcp domain's declared tools may have one
    title: str | None = None
    answer_start: str = ""  # how every demonstrated answer of this tool starts ("{", "["): prefilled
    error_starts: tuple[str, ...] = ()  # how the server's demonstrated error results begin

    def with_defaults(self, arguments: dict[str, Any]) -> dict[str, Any]:
        props = self.input_schema.get("properties", {})
        filled = {k: p["default"] for k, p in props.items() if isinstance(p, dict) and "default" in p}
        filled.update(arguments)
        return filled

    def render_action(self, arguments: dict[str, Any]) -> str:
        """The action as the world model reads it: the first template that fits, else a call."""
        filled = self.with_defaults(arguments)
        for template in self.actions:
            try:
                return template.format(**filled)
            except (KeyError, IndexError, ValueError):
                continue
        if self.domain == "mcp":
            return f"CALL {self.name} {json.dumps(arguments, ensure_ascii=False, sort_keys=True)}"
        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
        return f"{self.name}({args})"


@dataclass(frozen=True)
class Domain:
    name: str
    description: str
    format: str
    max_tokens: int
    tools: tuple[Tool, ...]
    system_prompt: str
    demonstrations: tuple[Demonstration, ...]
    grammar: str | None = None
    tool_grammars: tuple[tuple[str, str], ...] = ()  # (tool, grammar) pairs

    def tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)

    def grammar_for(self, tool: str) -> str | None:
        return dict(self.tool_grammars).get(tool, self.grammar)


def domain_for(world: World, name: str) -> Domain:
    """The domain as this world serves it: the `mcp` domain's tools are the ones the world declares."""
    base = load_domain(name)
    if name != "mcp":
        return base
    ok = [d for d in world.demonstrations if not (d.structured or {}).get("isError")]
    # Error results (isError) recorded from the real server: their first words mark a predicted error.
    errors = tuple(sorted({" ".join(d.observation.split()[:2]) for d in world.demonstrations
                           if (d.structured or {}).get("isError") and d.observation.strip()}))
    tools = tuple(
        Tool(name=t.name, description=t.description.strip(), input_schema=t.input_schema,
             annotations=t.annotations or {}, actions=(), domain="mcp", output_schema=t.output_schema,
             title=t.title, answer_start=_common_start([d.observation for d in ok if d.tool == t.name]),
             error_starts=errors)
        for t in world.tools
    )
    return replace(base, tools=tools)


def _common_start(observations: list[str]) -> str:
    """`{` or `[` when every demonstrated answer is a JSON document starting with it."""
    starts = {o.lstrip()[:1] for o in observations}
    if len(starts) != 1 or not starts <= {"{", "["}:
        return ""
    try:
        for o in observations:
            json.loads(o)
    except ValueError:
        return ""
    return starts.pop()


def domain_names(root: Path = DOMAINS_DIR) -> list[str]:
    return sorted(p.name for p in root.iterdir() if (p / "domain.yaml").exists())


@cache
def load_domain(name: str, root: Path = DOMAINS_DIR) -> Domain:
    folder = root / name
    spec_path = folder / "domain.yaml"
    if not spec_path.exists():
        raise WorldFileError(f"no domain {name!r}; domains: {', '.join(domain_names(root))}")
    try:
        spec = _DomainFile.model_validate(yaml.safe_load(spec_path.read_text()))
    except (yaml.YAMLError, ValidationError) as err:
        raise WorldFileError(f"{spec_path} is malformed: {err}") from None
    prompt_path = folder / "prompt.md"
    prompt = prompt_path.read_text().strip() if prompt_path.exists() else ""
    demos: list[Demonstration] = []
    demo_path = folder / "demonstrations.jsonl"
    if demo_path.exists():
        for n, line in enumerate(demo_path.read_text().splitlines(), 1):
            if line.strip():
                try:
                    demos.append(Demonstration.model_validate_json(line))
                except ValidationError as err:
                    raise WorldFileError(f"{demo_path}:{n} is not a demonstration: {err}") from None
    tools = tuple(
        Tool(
            name=t.name, description=t.description.strip(), input_schema=t.input_schema,
            annotations=t.annotations or {}, domain=spec.name,
            actions=tuple([t.action] if isinstance(t.action, str) else (t.action or [])),
        )
        for t in spec.tools
    )
    grammar_path = folder / "grammar.gbnf"
    grammar = grammar_path.read_text() if grammar_path.exists() else None
    per_tool = tuple((t.name, (folder / f"grammar.{t.name}.gbnf").read_text()) for t in tools
                     if (folder / f"grammar.{t.name}.gbnf").exists())
    return Domain(spec.name, spec.description, spec.format, spec.max_tokens, tools, prompt, tuple(demos), grammar,
                  per_tool)
