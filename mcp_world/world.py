"""Worlds: YAML files that say what exists (DESIGN.md, "Worlds"), validated with pydantic. Each
domain checks its own part of a world (its structured seed) through its rules."""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from .domain import domain_names, load_domain
from .errors import WorldFileError
from .paths import WORLDS_DIR
from .specs import Demonstration, ToolSpec

__all__ = ["Demonstration", "ToolSpec", "World", "available_worlds", "load_world", "parse_world"]


MAX_SEEDS_READ = 64  # seeds kept read, for a world and its copies together


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
    _seeds: dict[tuple[str, int], tuple[Any, Any]] = PrivateAttr(default_factory=dict)  # read once (a site's pages parse)

    @field_validator("domains")
    @classmethod
    def _known_domains(cls, value: list[str]) -> list[str]:
        known = domain_names()
        unknown = [d for d in value if d not in known]
        if unknown:
            raise ValueError(f"unknown domain(s) {unknown}; accepted: {sorted(known)}")
        if len(set(value)) != len(value):
            raise ValueError("a domain is listed twice")
        return value

    @field_validator("seed", mode="before")
    @classmethod
    def _plain_seed(cls, value: Any) -> Any:
        """Dates YAML read as date objects (`date: 2025-03-14T10:00:00Z`) kept as ISO text, so the
        world stays JSON (the log stores it)."""
        def plain(v: Any) -> Any:
            if isinstance(v, (datetime.date, datetime.datetime)):
                return v.isoformat()
            if isinstance(v, dict):
                return {k: plain(x) for k, x in v.items()}
            if isinstance(v, list):
                return [plain(x) for x in v]
            return v
        return plain(value)

    @field_validator("seed")
    @classmethod
    def _seed_per_domain(cls, value: dict[str, Any], info: Any) -> dict[str, Any]:
        for key, seed in value.items():
            if not isinstance(seed, (str, dict)):
                raise ValueError(f"seed.{key} must be text or a mapping, got {type(seed).__name__}")
            if key in domain_names():
                try:
                    load_domain(key).rules.seed(seed)  # the domain's own check of its structured seed
                except ValidationError as err:  # said where in the world file: seed.<domain>.<field>
                    raise ValueError("; ".join(f"seed.{'.'.join([key, *map(str, e['loc'])])}: "
                                               f"{e['msg'].removeprefix('Value error, ')}" for e in err.errors())) from None
        return value

    @model_validator(mode="after")
    def _declared_tools_have_a_domain(self) -> World:
        names = [t.name for t in self.tools]
        hosts = [d for d in self.domains if load_domain(d).tools_from_world]
        if hosts and not self.tools:
            raise ValueError(f"the {hosts[0]} domain simulates the tools the world declares: give `tools` "
                             "(name, description, inputSchema)")
        if self.tools and not hosts:
            takers = [d for d in domain_names() if load_domain(d).tools_from_world]
            raise ValueError(f"`tools` are simulated by a domain that serves a world's own tools: add one of "
                             f"{takers} to `domains`")
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"tools declared twice: {dupes}")
        taken = {t.name for d in self.domains if d not in hosts for t in load_domain(d).tools} | {"world_reset"}
        clash = sorted(set(names) & taken)
        if clash:
            raise ValueError(f"declared tools {clash} clash with tools mcp-world already serves here")
        for d in self.domains:
            load_domain(d).rules.check_world(self)  # a domain's seed against the world's tools
        return self

    def seed_of(self, domain: str) -> Any:
        """The domain's seed as its rules read it (a validated seed object where it has one)."""
        raw = self.seed.get(domain)
        # A copy of the world with another seed is read anew. The cache (shared by copies) keeps the
        # seed it read: an id is unique only while its object lives, and a seed that was garbage
        # collected can hand its id to a new one (a verify run then read the world's old files).
        key = (domain, id(raw))
        cached = self._seeds.get(key)
        if cached is None or cached[0] is not raw:
            if len(self._seeds) >= MAX_SEEDS_READ:
                self._seeds.pop(next(iter(self._seeds)))  # (the oldest: each verify run reads a copy's seed)
            cached = self._seeds[key] = (raw, load_domain(domain).rules.seed(raw))
        return cached[1]

    def seed_text(self, domain: str) -> str:
        """The domain's seed as text for a prompt."""
        text = self._seed_texts.get(domain)
        if text is None:
            seed = self.seed.get(domain)
            shown = load_domain(domain).rules.seed_prompt(seed) if seed is not None else None
            if seed is None:
                text = ""
            elif shown is not None:
                text = shown.strip()
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
        msg = e["msg"].removeprefix("Value error, ")
        said = re.match(r"(seed\.[\w.\[\]-]+): (.+)", msg, re.S)  # a domain's own check of its seed says where
        if said and where in ("seed", "(top level)"):  # (seed.browser.pages: …)
            where, msg = said.groups()
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
