"""Worlds: YAML files that say what exists (DESIGN.md, "Worlds"), validated with pydantic."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from .errors import WorldFileError
from .paths import WORLDS_DIR


class ToolSpec(BaseModel):
    """A tool declared by a world (the `mcp` domain) or copied from a real MCP server."""

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
        if value is None:
            return value
        from jsonschema.exceptions import SchemaError
        from jsonschema.validators import validator_for

        if value.get("type", "object") != "object":
            raise ValueError(f"a tool's schemas describe an object (type: object), not {value.get('type')!r}")
        try:
            validator_for(value).check_schema(value)
        except SchemaError as err:
            raise ValueError(f"not a valid JSON schema: {err.message}") from None
        return value


class Demonstration(BaseModel):
    """A real transition shown to the world model as an example of the tool's output."""

    model_config = ConfigDict(extra="forbid")
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    observation: str
    structured: dict[str, Any] | None = None


class GitSeed(BaseModel):
    """A git repository in the terminal world: the folder, its branch and one commit of its files."""

    model_config = ConfigDict(extra="forbid")
    path: str
    branch: str = "main"
    message: str = "Initial commit"
    author: str = "user <user@example.com>"
    log: list[str] = Field(default_factory=list)  # recent commits, newest first, as `git log --oneline` shows them


class TerminalSeed(BaseModel):
    """The terminal domain's structured seed: who and where the shell is, and which files exist."""

    model_config = ConfigDict(extra="forbid")
    hostname: str = "devbox"
    user: str = "user"
    cwd: str = "/home/user"
    files: dict[str, str | None] = Field(default_factory=dict)  # path -> contents (None: exists, unknown)
    git: list[GitSeed] = Field(default_factory=list)
    notes: str = ""


class RepoSeed(BaseModel):
    """The swe domain's seed: a code base (paths relative to its root) and how its tests run."""

    model_config = ConfigDict(extra="forbid")
    root: str = "/workspace/project"
    language: str = "python"
    files: dict[str, str | None] = Field(default_factory=dict)  # path -> contents (None: exists, unknown)
    complete: bool = True  # `files` lists the whole repository: anything else does not exist
    test_command: str = "pytest"
    failing_tests: list[str] = Field(default_factory=list)  # test ids that fail at the start
    notes: str = ""

    @field_validator("files")
    @classmethod
    def _relative_paths(cls, value: dict[str, str | None]) -> dict[str, str | None]:
        bad = [p for p in value if p.startswith("/") or ".." in p.split("/") or not p.strip()]
        if bad:
            raise ValueError(f"repository paths are relative to its root, without '..': {bad[:5]}")
        return value


class DesktopSeed(BaseModel):
    """The os domain's seed: the screen and the accessibility tree shown at the start."""

    model_config = ConfigDict(extra="forbid")
    width: int = Field(default=1920, ge=320, le=10000)
    height: int = Field(default=1080, ge=240, le=10000)
    tree: str  # one node per line, indented by depth (DESIGN.md, os observations)
    notes: str = ""

    @field_validator("tree")
    @classmethod
    def _a_tree(cls, value: str) -> str:
        from .formats import FormatError, parse_tree

        try:
            parse_tree(value)
        except FormatError as err:
            raise ValueError(f"seed.os.tree is not an accessibility tree: {err}") from None
        return value


SEED_MODELS: dict[str, type[BaseModel]] = {"terminal": TerminalSeed, "swe": RepoSeed, "os": DesktopSeed}


class World(BaseModel):
    """One world. The same object appears inline in the episode interchange format."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=128)
    description: str = Field(min_length=1)
    domains: list[str] = Field(min_length=1)
    seed: dict[str, Any] = Field(default_factory=dict)
    tools: list[ToolSpec] = Field(default_factory=list)
    demonstrations: list[Demonstration] = Field(default_factory=list)
    _seed_texts: dict[str, str] = PrivateAttr(default_factory=dict)  # rendered once: on every call's path

    @field_validator("domains")
    @classmethod
    def _known_domains(cls, value: list[str]) -> list[str]:
        from .domain import domain_names

        known = domain_names()
        unknown = [d for d in value if d not in known]
        if unknown:
            raise ValueError(f"unknown domain(s) {unknown}; accepted: {sorted(known)}")
        if len(set(value)) != len(value):
            raise ValueError("a domain is listed twice")
        return value

    @field_validator("seed")
    @classmethod
    def _seed_per_domain(cls, value: dict[str, Any], info: Any) -> dict[str, Any]:
        for key, seed in value.items():
            if key in SEED_MODELS and isinstance(seed, dict):
                SEED_MODELS[key].model_validate(seed)
            elif not isinstance(seed, (str, dict)):
                raise ValueError(f"seed.{key} must be text or a mapping, got {type(seed).__name__}")
        return value

    @model_validator(mode="after")
    def _tools_belong_to_mcp(self) -> World:
        names = [t.name for t in self.tools]
        if "mcp" in self.domains and not self.tools:
            raise ValueError("the mcp domain simulates the tools the world declares: give `tools` "
                             "(name, description, inputSchema)")
        if self.tools and "mcp" not in self.domains:
            raise ValueError("`tools` are simulated by the mcp domain: add mcp to `domains`")
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"tools declared twice: {dupes}")
        from .domain import load_domain

        taken = {t.name for d in self.domains if d != "mcp" for t in load_domain(d).tools} | {"world_reset"}
        clash = sorted(set(names) & taken)
        if clash:
            raise ValueError(f"declared tools {clash} clash with tools mcp-world already serves here")
        return self

    def terminal_seed(self) -> TerminalSeed:
        seed = self.seed.get("terminal")
        if isinstance(seed, dict):
            return TerminalSeed.model_validate(seed)
        return TerminalSeed(notes=seed or "")

    def repo_seed(self) -> RepoSeed:
        seed = self.seed.get("swe")
        return RepoSeed.model_validate(seed) if isinstance(seed, dict) else RepoSeed(notes=seed or "", complete=False)

    def desktop_seed(self) -> DesktopSeed | None:
        seed = self.seed.get("os")
        return DesktopSeed.model_validate(seed) if isinstance(seed, dict) else None

    def seed_text(self, domain: str) -> str:
        """The domain's seed as text for a prompt."""
        text = self._seed_texts.get(domain)
        if text is None:
            seed = self.seed.get(domain)
            if seed is None:
                text = ""
            elif isinstance(seed, str):
                text = seed.strip()
            else:
                text = yaml.safe_dump(seed, sort_keys=False, allow_unicode=True).strip()
            self._seed_texts[domain] = text
        return text


def _format_validation_error(source: str, err: ValidationError) -> str:
    lines = [f"{source} is not a valid world:"]
    for e in err.errors():
        where = ".".join(str(p) for p in e["loc"]) or "(top level)"
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            msg = ("unknown field; accepted fields: "
                   + ", ".join(World.model_fields) if len(e["loc"]) == 1 else "unknown field")
        elif e["type"] == "missing":
            msg = "required field is missing"
        lines.append(f"  - {where}: {msg}")
    return "\n".join(lines)


def parse_world(data: Any, source: str = "world") -> World:
    if not isinstance(data, dict):
        raise WorldFileError(f"{source} must be a mapping with name, description and domains; got {type(data).__name__}")
    try:
        return World.model_validate(data)
    except ValidationError as err:
        raise WorldFileError(_format_validation_error(source, err)) from None


def available_worlds() -> list[str]:
    return sorted(p.stem for p in WORLDS_DIR.glob("*.yaml"))


def load_world(name_or_path: str | Path) -> World:
    """Load a shipped world by name (`devbox`) or any world file by path."""
    path = Path(name_or_path)
    if not path.exists():
        shipped = WORLDS_DIR / f"{name_or_path}.yaml"
        if not shipped.exists():
            raise WorldFileError(
                f"no world named {str(name_or_path)!r} and no such file; shipped worlds: {', '.join(available_worlds())}"
            )
        path = shipped
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise WorldFileError(f"{path} is not valid YAML: {err}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise WorldFileError(f"cannot read world file {path}: {err}") from None
    return parse_world(data, str(path))
