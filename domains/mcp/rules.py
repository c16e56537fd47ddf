"""The mcp domain: any MCP server's tools, declared by the world. An answer is the text the tool
returns (a JSON document where its demonstrated results are JSON); a tool with an outputSchema
also gets structured content that validates against it. The state remembers read-only results
until a call that may change something, so a repeated read is answered the same."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mcp_world.rules import Call, FormatError, Parsed, Rules, refuse_repetition, sounds_like_commentary
from mcp_world.specs import Demonstration


class McpState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # Results of read-only calls since the last call that may change something: call -> (text, structured)
    reads: dict[str, tuple[str, dict[str, Any] | None]] = Field(default_factory=dict)


MAX_KNOWN_RESULTS = 64
SHOWN_KNOWN_RESULTS = 8  # of a world's known results, the first ones are shown as its examples


class KnownResult(BaseModel):
    """What a read-only tool returns for these arguments in the world's initial state."""

    model_config = ConfigDict(extra="forbid")
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: str = Field(min_length=1, max_length=20_000)
    structured: dict[str, Any] | None = None


class McpSeed(BaseModel):
    """`seed.mcp`: what the server holds at the start, as notes for the model (`notes`, or the whole
    seed as text), and `results` the world knows as they are: read-only calls answered exactly until
    a call that may change something, and shown to the model as this server's own examples."""

    model_config = ConfigDict(extra="forbid")
    notes: str = ""
    results: list[KnownResult] = Field(default_factory=list, max_length=MAX_KNOWN_RESULTS)


class _Result:
    """A declared tool's text result. When every demonstration of the tool is a JSON document the
    answer must be one too (prefilled with its first character); when the tool declares an
    outputSchema, structured content that validates is read from the JSON text where it can be (the
    text itself, or the text as the schema's only property) and otherwise asked for separately."""

    def prefill(self, call: Call) -> str:
        return getattr(call.spec, "answer_start", "") or ""

    def parse(self, raw: str, call: Call) -> Parsed:
        spec = call.spec
        # Leading spaces are the tool's output (`git branch` indents the other branches); blank lines are not.
        text = raw.replace("\r\n", "\n").rstrip().lstrip("\n")
        fence = re.fullmatch(r"```[a-z]*\n(.*?)\n?```", text.strip(), re.S)
        if fence:
            text = fence.group(1).rstrip().lstrip("\n")
        if _chat(text, call.tool):
            raise FormatError("the answer talks about the tool instead of being its result")
        refuse_repetition(text, call)
        value: Any = None
        if text.lstrip()[:1] in ("{", "["):  # a JSON document (an indented line of code stays indented)
            try:
                value, end = json.JSONDecoder().raw_decode(text.lstrip())
                text = text.lstrip()[:end]  # anything after the JSON document is the model running on
            except ValueError:
                value = None
        if getattr(spec, "answer_start", "") and value is None and not _error_text(text, spec):
            raise FormatError(f"the answer is not the JSON document {spec.name} returns"
                              + (" (cut off at the token limit)" if call.truncated else ""))
        if not text:
            raise FormatError("the answer is empty")
        if value is None and _error_text(text, spec):
            return Parsed(text, {"isError": True})  # the tool failing, as the real server reports it
        schema = getattr(spec, "output_schema", None)
        if not schema:
            return Parsed(text, {})
        for candidate in _structured_candidates(value, schema):
            if not list(_schema_validator(schema).iter_errors(candidate)):
                return Parsed(text, candidate)
        return Parsed(text, {}, needs_structured=True)


def _error_text(text: str, spec: Any) -> bool:
    return text.startswith(("Error", "error:")) or bool(getattr(spec, "error_starts", ())) and text.startswith(spec.error_starts)


def _structured_candidates(value: Any, schema: dict[str, Any]) -> list[Any]:
    if value is None:
        return []
    out = [value] if isinstance(value, dict) else []
    props = list((schema.get("properties") or {}).keys())
    if len(props) == 1:
        out.append({props[0]: value})  # e.g. the text is the list, the structured content {"entities": list}
    return out


def _schema_validator(schema: dict[str, Any]):
    from mcp_world.schemas import validator

    return validator(schema)




def _call_key(tool: str, arguments: dict[str, Any]) -> str:
    return tool + " " + json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def mcp_answer(state: dict[str, Any], tool: Any, arguments: dict[str, Any]) -> tuple[str, dict[str, Any] | None] | None:
    """A read-only tool asked again with the same arguments, with nothing changed since: the same result."""
    s = McpState.model_validate(state)
    if not (tool.annotations or {}).get("readOnlyHint"):
        return None
    hit = s.reads.get(_call_key(tool.name, tool.with_defaults(arguments)))
    return (hit[0], hit[1]) if hit else None


def mcp_apply(state: dict[str, Any], tool: Any, arguments: dict[str, Any], text: str,
              structured: dict[str, Any] | None) -> dict[str, Any]:
    s = McpState.model_validate(state)
    if (tool.annotations or {}).get("readOnlyHint"):
        if not (structured or {}).get("isError"):
            s.reads[_call_key(tool.name, tool.with_defaults(arguments))] = (text, structured)
    else:
        s.reads = {}  # a call that may change the server's state: earlier reads may no longer hold
    return s.model_dump()


class McpRules(Rules):
    state_model = McpState
    seed_model = McpSeed

    def check_world(self, world: Any) -> None:
        seed = world.seed_of("mcp")
        if not isinstance(seed, McpSeed):
            return
        tools = {t.name: t for t in world.tools}
        for n, known in enumerate(seed.results):
            where = f"seed.mcp.results[{n}]"
            tool = tools.get(known.tool)
            if tool is None:
                raise ValueError(f"{where}: no declared tool {known.tool!r} (declared: {', '.join(tools) or 'none'})")
            if not (tool.annotations or {}).get("readOnlyHint"):
                raise ValueError(f"{where}: {known.tool} is not declared read-only (annotations: readOnlyHint: true); "
                                 "known results are of calls that change nothing")
            problems = [e.message for e in _schema_validator(tool.input_schema).iter_errors(known.arguments)]
            if problems:
                raise ValueError(f"{where}: the arguments do not fit {known.tool}'s inputSchema: {problems[0]}")
            if known.structured is not None and tool.output_schema:
                problems = [e.message for e in _schema_validator(tool.output_schema).iter_errors(known.structured)]
                if problems:
                    raise ValueError(f"{where}: structured does not fit {known.tool}'s outputSchema: {problems[0]}")

    def initial(self, world: Any) -> dict[str, Any]:
        seed = world.seed_of("mcp")
        state = McpState()
        if isinstance(seed, McpSeed):
            tools = {t.name: t for t in world.tools}
            for known in seed.results:
                if known.tool in tools:
                    key = _call_key(known.tool, tools[known.tool].with_defaults(known.arguments))
                    state.reads[key] = (known.result, known.structured)
        return state.model_dump()

    def seed_prompt(self, raw: Any) -> str | None:
        """The notes alone: the known results are shown as examples."""
        return str(raw.get("notes") or "") if isinstance(raw, dict) else None

    def seed_demonstrations(self, world: Any, seen: bool = False) -> list[Demonstration]:
        seed = world.seed_of("mcp")
        if not isinstance(seed, McpSeed):
            return []
        return [Demonstration(tool=k.tool, arguments=k.arguments, observation=k.result, structured=k.structured,
                              world=world.name) for k in seed.results[:SHOWN_KNOWN_RESULTS]]

    def answer(self, state: dict[str, Any], call: Call) -> Parsed | None:
        hit = mcp_answer(state, call.spec, call.arguments)
        return Parsed(hit[0], hit[1] or {}) if hit else None

    def apply(self, state: dict[str, Any], call: Call, text: str, structured: dict[str, Any]) -> dict[str, Any]:
        return mcp_apply(state, call.spec, call.arguments, text, structured)

    def prefill(self, call: Call) -> str:
        return _RESULT.prefill(call)

    def parse(self, raw: str, call: Call) -> Parsed:
        return _RESULT.parse(raw, call)

    def is_error(self, parsed: Parsed) -> bool:
        return bool(parsed.structured.get("isError"))

    def agent_structured(self, call: Call, parsed: Parsed) -> dict[str, Any] | None:
        # MCP: structured content only for tools that declare an outputSchema, and never on an error.
        if self.is_error(parsed) or call.spec is None or not call.spec.output_schema:
            return None
        return parsed.structured

    def risks(self, world: Any, call: Call) -> list[tuple[str, str]]:
        """A tool's own annotations first, then what its name says."""
        tool, found = call.tool, []
        annotations = (call.spec.annotations if call.spec is not None else None) or {}
        if annotations.get("destructiveHint"):
            found.append(("destructive", f"{tool} is declared destructive by its server"))
        elif re.search(r"(^|_)(delete|remove|drop|purge|destroy)", tool):
            found.append(("destructive", f"{tool} deletes data"))
        if re.search(r"(^|_)(pay|charge|transfer|refund|purchase)", tool):
            found.append(("payment", f"{tool} moves money"))
        if re.search(r"(^|_)(send|email|notify|post|reply)", tool) or \
                (re.search(r"comment|message", tool) and call.arguments.get("public", True) is True):
            found.append(("message", f"{tool} sends something a person will read"))
        return found


_RESULT = _Result()
# Servers written for language models introduce their own results ("Here are 3 resource links …",
# server-everything); an introduction of the call's output as such is the model chatting.
_INTRO = re.compile(r"\s*here(?:'s| is| are)\b", re.I)
_INTRO_OF_OUTPUT = re.compile(r"\s*here(?:'s| is| are) (?:the |your |a |an )?(?:tool(?:'s)? )?"
                              r"(?:results?|outputs?|response|json|answer)\b", re.I)


# An answer about the tool rather than its result: "The fetch command will return …", "This server
# supports list_directory …", "list_tables() is a function that …" (none of 313 real results starts so).
_ABOUT = r"(?:command|tool|function|call|server|endpoint|api|method|operation)"
_ABOUT_THE_TOOL = re.compile(rf"\s*(?:the\s+`?[\w.-]+`?(?:\(\))?\s+{_ABOUT}|this\s+{_ABOUT}|"
                             r"the\s+(?:result|response|output)\s+(?:of|from|is|will))\b", re.I)
_DESCRIBES = (r"`?(?:\(\))?`?\s+(?:is|will|returns?|lists?|shows?|displays?|retrieves?|fetches|gets|can|should)\b")


def _chat(text: str, tool: str = "") -> bool:
    """The answer explains or introduces the result instead of being it."""
    if _INTRO.match(text):
        return bool(_INTRO_OF_OUTPUT.match(text))
    if _ABOUT_THE_TOOL.match(text) or tool and re.match(r"\s*`?" + re.escape(tool) + _DESCRIBES, text, re.I):
        return True
    return sounds_like_commentary(text)
rules = McpRules()
