"""Domains: one folder each, found in the shipped `domains/`, in folders the user names
(`--domains DIR`, `MCP_WORLD_DOMAINS`) and in installed packages (entry-point group
`mcp_world.domains`). The core reads a folder and calls its rules; it never names a domain.

A domain folder holds:
    domain.yaml            name, description, max_tokens, tools (name, description, inputSchema,
                           annotations, optional `action` template for prompts), and optionally:
                           format (a label for messages), tools_from_world (serve the tools the world
                           declares), default_action, agentworld (role, observation, wrapped,
                           action_names), risks (patterns for the dry-run report)
    prompt.md              the instruct dialect's system prompt for the domain
    demonstrations.jsonl   real examples of the tools' output, one {tool, arguments, observation}
                           per line, shown to the world model as few-shot turns
    grammar.gbnf           optional: a grammar the answer must follow, continuing the prefill
    grammar.TOOL.gbnf      optional: the same for one tool only (it wins over grammar.gbnf)
    rules.py or rules/     optional: the domain's code, a `rules` object implementing
                           `mcp_world.rules.Rules` (state, answers from state, parsing, risks)
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import re
import sys
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from jsonschema import validators
from jsonschema.exceptions import SchemaError
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import UnknownName, WorldFileError
from .paths import DOMAINS_DIR
from .rules import Rules
from .specs import Demonstration, ToolSpec, with_defaults

if TYPE_CHECKING:
    from .world import World

log = logging.getLogger("mcp_world")
ENTRY_POINTS = "mcp_world.domains"
DEFAULT_ACTION = "{tool}({call_arguments})"


class _ToolFile(ToolSpec):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    # How the action reads in a prompt, e.g. "$ {command}"; several: the first that fits the arguments.
    action: str | list[str] | None = None

    @field_validator("input_schema", "output_schema")
    @classmethod
    def _a_schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        """A domain's schemas are the operator's code: any valid schema (patterns may need `re`)."""
        if value is not None:
            try:
                validators.validator_for(value).check_schema(value)
            except SchemaError as err:
                raise ValueError(f"not a valid JSON schema: {err.message}") from None
        return value


class AgentWorldInfo(BaseModel):
    """How Qwen-AgentWorld's format names this domain: the role it plays, what an observation is,
    whether observations are whole screens (wrapped in `<predicted_observation>`), and the action
    names it was trained on where ours differ."""

    model_config = ConfigDict(extra="forbid")
    role: str = "Tool World Model"
    observation: str = ("exactly the result text the tool returns, in the same wording, layout and shape "
                        "as its earlier results; the tool's error text when the call fails")
    wrapped: bool = False
    action_names: dict[str, str] = Field(default_factory=dict)
    # The folder of Qwen-AgentWorld's prompts this domain was trained as (`prompts/<folder>/` in the
    # model's repository, used with --agentworld-prompts); None: the generic tool world's.
    folder: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_-]{0,63}$")
    # The trained action space in a sentence or a table, for our own system prompt (agentworld.md
    # in the domain's folder maps each of our tools onto it).
    actions: str = ""


class Risk(BaseModel):
    """A dry-run report rule: `pattern` (a regular expression) searched in the named arguments of
    the named tools (all of the domain's tools when none are named)."""

    model_config = ConfigDict(extra="forbid")
    pattern: str
    category: str
    reason: str
    tools: list[str] = Field(default_factory=list)
    arguments: list[str] = Field(min_length=1)
    ignore_case: bool = False


class _DomainFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$")
    description: str
    format: str | None = None
    max_tokens: int = Field(default=512, ge=16, le=32768)
    tools: list[_ToolFile] = Field(default_factory=list)
    tools_from_world: bool = False
    default_action: str = DEFAULT_ACTION
    agentworld: AgentWorldInfo = Field(default_factory=AgentWorldInfo)
    risks: list[Risk] = Field(default_factory=list)


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, Any]
    actions: tuple[str, ...]
    domain: str
    output_schema: dict[str, Any] | None = None  # world-declared tools may have one
    title: str | None = None
    answer_start: str = ""  # how every demonstrated answer of this tool starts ("{", "["): prefilled
    error_starts: tuple[str, ...] = ()  # how the server's demonstrated error results begin
    default_action: str = DEFAULT_ACTION  # the action when no template fits

    def with_defaults(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return with_defaults(self.input_schema, arguments)

    def render_action(self, arguments: dict[str, Any]) -> str:
        """The action as the world model reads it: the first template that fits, else the domain's default."""
        filled = self.with_defaults(arguments)
        for template in self.actions:
            try:
                return template.format(**filled)
            except (KeyError, IndexError, ValueError):
                continue
        call = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
        return self.default_action.format(tool=self.name, call_arguments=call,
                                          arguments=json.dumps(arguments, ensure_ascii=False, sort_keys=True))


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
    rules: Rules = field(default_factory=Rules)
    folder: Path | None = None
    tools_from_world: bool = False
    agentworld: AgentWorldInfo = field(default_factory=AgentWorldInfo)
    risks: tuple[Risk, ...] = ()
    default_action: str = DEFAULT_ACTION

    def tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)

    def demonstrations_for(self, world: Any, seen: bool = False) -> list[Demonstration]:
        """The demonstrations shown when serving `world`: the domain's own that belong to no world
        or to this one, then the world's. A domain demonstration recorded in another world (another
        project's README, another site's pages) is shown only where nothing else shows the format:
        those of the one other world closest to this one (by the words that set it apart from the
        others), two at most, and only until the episode has an observation of its own (`seen`),
        which then shows the format without leaking another world's names into this one's."""
        own = [d for d in world.demonstrations if self.tool(d.tool)] + self.rules.seed_demonstrations(world, seen)
        fitting = [d for d in self.demonstrations if d.world in (None, world.name)]
        if own or fitting:
            return fitting + own
        if seen:
            return []
        groups: dict[str, list[Demonstration]] = {}
        for d in self.demonstrations:
            groups.setdefault(d.world or "", []).append(d)
        if not groups:
            return []
        vocab = {name: set().union(*(_words(json.dumps(d.arguments) + " " + d.observation) for d in demos))
                 for name, demos in groups.items()}
        shared = set.intersection(*vocab.values()) if len(vocab) > 1 else set()
        words = _words(world.description + " " + world.seed_text(self.name))
        closest = max(groups, key=lambda name: len(words & (vocab[name] - shared)))  # ties: the file's first
        return groups[closest][:2]  # in their recorded order (each acts on the one before)

    def grammar_for(self, tool: str) -> str | None:
        return dict(self.tool_grammars).get(tool, self.grammar)


# -- where domains come from -------------------------------------------------------------------------

def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9_-]{2,}", text[:20_000])}


_user_dirs: list[Path] = []
_found: dict[str, Path] | None = None  # domain_folders(), found once (entry points are slow to scan)


def add_domain_dirs(dirs: list[Path] | tuple[Path, ...]) -> None:
    """Serve domains from these folders too (each a domain folder, or a folder of them); a user's
    domain of the same name as a shipped one replaces it."""
    for d in dirs:
        path = Path(d).expanduser().resolve()
        if not path.is_dir():
            raise WorldFileError(f"--domains {d}: no such folder")
        if not _folders_in(path):
            raise WorldFileError(f"--domains {d}: holds no domain folder (a folder with a domain.yaml)")
        if path not in _user_dirs:
            _user_dirs.append(path)
    global _found
    _found = None


def _folders_in(root: Path) -> dict[str, Path]:
    if (root / "domain.yaml").is_file():
        return {_declared_name(root): root}
    return {_declared_name(p): p for p in sorted(root.iterdir()) if (p / "domain.yaml").is_file()}


def _declared_name(folder: Path) -> str:
    try:
        data = yaml.safe_load((folder / "domain.yaml").read_text(encoding="utf-8"))
        name = data.get("name") if isinstance(data, dict) else None
    except (OSError, yaml.YAMLError):
        name = None
    return name if isinstance(name, str) and name else folder.name


def _entry_point_folders() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for ep in metadata.entry_points(group=ENTRY_POINTS):
        try:
            module = ep.load()
            folder = Path(module.__file__).resolve().parent
        except Exception as err:  # noqa: BLE001 - a broken plugin must not take the others down
            log.warning("domain entry point %s (%s) failed to load: %s", ep.name, ep.value, err)
            continue
        if (folder / "domain.yaml").is_file():
            found[_declared_name(folder)] = folder
        else:
            log.warning("domain entry point %s: %s has no domain.yaml", ep.name, folder)
    return found


def domain_folders() -> dict[str, Path]:
    """Every domain's folder by name: shipped, then installed packages, then the user's (later wins)."""
    global _found
    if _found is None:
        folders = _folders_in(DOMAINS_DIR) if DOMAINS_DIR.is_dir() else {}
        folders.update(_entry_point_folders())
        for root in _user_dirs:
            folders.update(_folders_in(root))
        _found = folders
    return dict(_found)


def domain_names() -> list[str]:
    return sorted(domain_folders())


def load_domain(name: str) -> Domain:
    folders = domain_folders()
    folder = folders.get(name)
    if folder is None:
        raise UnknownName(f"no domain {name!r}; domains: {', '.join(sorted(folders))}")
    return _load_folder(folder)


_loaded: dict[Path, Domain] = {}


def _load_folder(folder: Path) -> Domain:
    if folder in _loaded:
        return _loaded[folder]
    spec_path = folder / "domain.yaml"
    try:
        spec = _DomainFile.model_validate(yaml.safe_load(spec_path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError, OSError, UnicodeDecodeError) as err:
        raise WorldFileError(f"{spec_path} is malformed: {err}") from None
    prompt_path = folder / "prompt.md"
    prompt = prompt_path.read_text(encoding="utf-8").strip() if prompt_path.exists() else ""
    demos: list[Demonstration] = []
    demo_path = folder / "demonstrations.jsonl"
    if demo_path.exists():
        for n, line in enumerate(demo_path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    demos.append(Demonstration.model_validate_json(line))
                except ValidationError as err:
                    raise WorldFileError(f"{demo_path}:{n} is not a demonstration: {err}") from None
    tools = tuple(
        Tool(name=t.name, description=t.description.strip(), input_schema=t.input_schema,
             annotations=t.annotations or {}, domain=spec.name, default_action=spec.default_action,
             actions=tuple([t.action] if isinstance(t.action, str) else (t.action or [])))
        for t in spec.tools
    )
    grammar_path = folder / "grammar.gbnf"
    grammar = grammar_path.read_text(encoding="utf-8") if grammar_path.exists() else None
    per_tool = tuple((t.name, (folder / f"grammar.{t.name}.gbnf").read_text(encoding="utf-8")) for t in tools
                     if (folder / f"grammar.{t.name}.gbnf").exists())
    domain = Domain(spec.name, spec.description, spec.format or spec.name, spec.max_tokens, tools, prompt,
                    tuple(demos), grammar, per_tool, _load_rules(folder, spec.name), folder,
                    spec.tools_from_world, spec.agentworld, tuple(spec.risks), spec.default_action)
    _loaded[folder] = domain
    return domain


def _load_rules(folder: Path, name: str) -> Rules:
    """The folder's rules module (`rules.py` or `rules/__init__.py`), imported by path; the base
    `Rules` when the folder has no code."""
    package = folder / "rules" / "__init__.py"
    path = package if package.is_file() else folder / "rules.py"
    if not path.is_file():
        return Rules()
    module_name = f"_mcp_world_domain_{name.replace('-', '_')}_{hashlib.sha1(str(folder).encode()).hexdigest()[:8]}"
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(
            module_name, path, submodule_search_locations=[str(path.parent)] if path == package else None)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as err:
            del sys.modules[module_name]
            raise WorldFileError(f"{path}: the domain's rules failed to load ({type(err).__name__}: {err})") from err
    rules = getattr(module, "rules", None)
    if not isinstance(rules, Rules):
        raise WorldFileError(f"{path} defines no `rules` object (an instance of a mcp_world.rules.Rules subclass)")
    return rules


def world_tools_domain() -> str:
    """The domain that serves the tools a world declares (mirrored servers become worlds of it)."""
    hosts = [n for n, f in domain_folders().items() if _load_folder(f).tools_from_world]
    if not hosts:
        raise UnknownName("no domain serves a world's declared tools (tools_from_world: true)")
    return sorted(hosts)[0]


# -- the domain as one world serves it -----------------------------------------------------------------


def domain_for(world: World, name: str) -> Domain:
    """The domain as this world serves it: a domain that serves the world's own tools gets them here."""
    base = load_domain(name)
    if not base.tools_from_world:
        return base
    ok = [d for d in world.demonstrations if not (d.structured or {}).get("isError")]
    # Error results (isError) recorded from the real server: their first words mark a predicted error.
    errors = tuple(sorted({" ".join(d.observation.split()[:2]) for d in world.demonstrations
                           if (d.structured or {}).get("isError") and d.observation.strip()}))
    tools = tuple(
        Tool(name=t.name, description=t.description.strip(), input_schema=t.input_schema,
             annotations=t.annotations or {}, actions=(), domain=base.name, output_schema=t.output_schema,
             title=t.title, answer_start=_common_start([d.observation for d in ok if d.tool == t.name]),
             error_starts=errors, default_action=base.default_action)
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
