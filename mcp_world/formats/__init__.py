"""Observation formats: how each domain's answer must look, and how it is read back.

A format gives the text that starts the world model's answer (a prefill that keeps a small model
on track), parses and validates the answer, and extracts the structured content. A parse failure
raises `FormatError` saying what was wrong; the simulator then repairs (re-asks) a bounded number of
times and otherwise returns an error — never an invented observation.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Protocol

from lxml import etree, html as lxml_html

XML_DECLARATION = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"


class FormatError(ValueError):
    """The world model's answer is not a valid observation for the domain."""


@dataclass
class Parsed:
    text: str
    structured: dict[str, Any] = field(default_factory=dict)
    repaired: bool = False  # closed a truncated document; recorded on the step
    needs_structured: bool = False  # the tool has an outputSchema the text alone does not satisfy
    thinking: str = ""  # the world model's reasoning before this answer: logged, never shown to the agent


@dataclass(frozen=True)
class Call:
    """What a format needs to know about the call being answered."""

    tool: str
    arguments: dict[str, Any]
    state: dict[str, Any]  # this domain's state before the call
    truncated: bool = False  # the engine stopped at max_tokens
    spec: Any = None  # the domain.Tool being called (the mcp format reads its schemas)


class Format(Protocol):
    name: str

    def prefill(self, call: Call) -> str: ...

    def parse(self, raw: str, call: Call) -> Parsed: ...


# -- terminal ---------------------------------------------------------------------------------

_COMMENTARY = re.compile(
    r"^\s*(this command|the command|the output|sure[,!. ]|here('s| is| are)|i (can|cannot|can't|am|will)|"
    r"as an ai|explanation:|output:|note:|certainly|the `)",
    re.IGNORECASE,
)
_EXIT_RULES: list[tuple[re.Pattern[str], int]] = [
    (re.compile(r"command not found\s*$", re.M), 127),
    (re.compile(r"^fatal: ", re.M), 128),
    (re.compile(r"^usage: ", re.M | re.I), 2),
    (re.compile(r"(?i:no such file or directory|permission denied|command not found)|cannot |Traceback \(most recent call last\)|"
                r"^error(\[\w+\])?:|^E: |Is a directory|Not a directory|: invalid option|syntax error|"
                r"^FAILED|failed|Operation not permitted|^ERROR", re.M), 1),
]


def exit_code_for(output: str) -> int:
    """The exit code a real shell would give, read from the output (the small model cannot be
    trusted with it: forcing it into `{output, exit_code}` JSON made its outputs worse)."""
    for pattern, code in _EXIT_RULES:
        if pattern.search(output):
            return code
    return 0


def shell_words(command: str) -> list[str] | None:
    """A command line as bash splits it into words and operators (`&&`, `;`, `|`, `>`, `>>`…);
    None when it does not parse (an open quote)."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|<>()")
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:
        return None


def next_cwd(command: str, cwd: str, home: str, exit_code: int) -> str:
    """Follow `cd` in a command line (`cd x`, `cd x && ...`, `cd`), so structured `cwd` stays right."""
    if exit_code != 0:
        return cwd
    words = shell_words(command)
    if words is None:
        return cwd
    segments: list[list[str]] = [[]]
    for w in words:
        if w in ("&&", ";", "||", "|", "&"):
            segments.append([])
        else:
            segments[-1].append(w)
    for seg in segments:
        if seg and seg[0] == "cd":
            target = seg[1] if len(seg) > 1 else home
            if target == "-":
                continue
            target = target.replace("~", home, 1) if target.startswith("~") else target
            path = target if target.startswith("/") else f"{cwd.rstrip('/')}/{target}"
            parts: list[str] = []
            for p in path.split("/"):
                if p in ("", "."):
                    continue
                if p == "..":
                    if parts:
                        parts.pop()
                else:
                    parts.append(p)
            cwd = "/" + "/".join(parts)
    return cwd


def _degenerate(text: str) -> bool:
    """A run cut at max_tokens whose tail repeats one line or one short pattern over and over."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) >= 6 and len(set(lines[-6:])) == 1:
        return True
    tail = text[-400:]
    return len(tail) >= 160 and any(tail.count(tail[-k:]) * k >= len(tail) * 0.7 for k in range(2, 80))


class TerminalFormat:
    name = "terminal"

    def prefill(self, call: Call) -> str:
        return ""

    def parse(self, raw: str, call: Call) -> Parsed:
        text = raw.replace("\r\n", "\n")
        fence = re.fullmatch(r"\s*```[a-z]*\n(.*?)\n?```\s*", text, re.S)
        if fence:
            text = fence.group(1) + "\n"
        command = str(call.arguments.get("command", "")).strip()
        lines = text.split("\n")
        # An echoed prompt line ("$ ls", or a screen's "user@devbox:~/app$ ls") is not part of the output.
        if lines and command and re.fullmatch(r"\s*(?:\S+@[\w.-]+:[^\n]*?[$#] ?|[$#] )?" + re.escape(command) + r"\s*",
                                              lines[0]):
            lines = lines[1:]
        while lines and re.fullmatch(r"\s*(\S+@\S+[:~\w/]*)?[$#]\s*", lines[-1]):
            lines.pop()
        text = "\n".join(lines)
        if _COMMENTARY.match(text):
            raise FormatError("the answer explains the command instead of showing its output")
        if call.truncated and _degenerate(text):
            raise FormatError("the answer degenerated into repetition")
        text = text.strip("\n")
        if text:
            text += "\n"
        code = exit_code_for(text)
        home = call.state.get("home", "/home/user")
        cwd = next_cwd(command, call.state.get("cwd", home), home, code)
        return Parsed(text, {"output": text, "exit_code": code, "cwd": cwd})


# -- browser (HTML) -------------------------------------------------------------------------------

_HTML_HEAD = '<!DOCTYPE html>\n<html lang="en">\n<head>\n<link rel="canonical" href="'


class HtmlFormat:
    name = "html"

    def prefill(self, call: Call) -> str:
        if call.tool == "browser_navigate":
            return _HTML_HEAD + _attr(str(call.arguments.get("url", ""))) + '">\n'
        return _HTML_HEAD

    def parse(self, raw: str, call: Call) -> Parsed:
        text = raw.strip()
        if not text.lower().startswith("<!doctype html"):
            text = self.prefill(call) + raw
        text = text.strip()
        if "<body" not in text.lower():
            raise FormatError("the answer is not an HTML document with a <body>")
        try:
            doc = lxml_html.document_fromstring(text)
        except (etree.ParserError, ValueError) as err:
            raise FormatError(f"the answer does not parse as HTML: {err}") from None
        body = doc.find("body")
        if body is None or (not len(body) and not (body.text or "").strip()):
            raise FormatError("the HTML document has an empty <body>")
        repaired = False
        if call.truncated or "</html>" not in text.lower():
            # Truncated at max_tokens: close the open elements, as a browser would.
            text = lxml_html.tostring(doc, doctype="<!DOCTYPE html>", encoding="unicode")
            repaired = True
        title_el = doc.find(".//title")
        title = (title_el.text or "").strip() if title_el is not None else ""
        canonical = doc.xpath('//link[@rel="canonical"]/@href')
        url = call.arguments.get("url") if call.tool == "browser_navigate" else None
        if not url:
            url = canonical[0].strip() if canonical else call.state.get("url", "")
        status = 404 if re.search(r"\b(404|not found)\b", title, re.I) else 200
        return Parsed(text if text.endswith("\n") else text + "\n",
                      {"url": url, "status": status, "title": title}, repaired)


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


# -- android (uiautomator dump) --------------------------------------------------------------------

_BOUNDS = re.compile(r"^\[-?\d+,-?\d+\]\[-?\d+,-?\d+\]$")
_DUMP_HEAD = XML_DECLARATION + '<hierarchy rotation="0">'


class UiautomatorFormat:
    name = "uiautomator"

    def prefill(self, call: Call) -> str:
        # The android domain's grammar (domains/android/grammar.gbnf) continues from here.
        return _DUMP_HEAD

    def parse(self, raw: str, call: Call) -> Parsed:
        text = raw.strip()
        if not text.startswith("<?xml"):
            text = self.prefill(call) + raw
        text = text.strip()
        repaired = False
        try:
            root = etree.fromstring(text.encode("utf-8"))
        except etree.XMLSyntaxError as strict_err:
            parser = etree.XMLParser(recover=True)
            root = etree.fromstring(text.encode("utf-8"), parser)
            if root is None or not call.truncated:
                raise FormatError(f"the answer is not well-formed XML: {strict_err}") from None
            repaired = True
        if root.tag != "hierarchy":
            raise FormatError(f"the root element is <{root.tag}>, not <hierarchy>")
        if repaired:
            # Cut at max_tokens: the node being written when the answer stopped is incomplete; drop it
            # (and only it, and its ancestors' unfinished tails), as closing the document does.
            for n in reversed(root.findall(".//node")):
                if "class" in n.attrib and _BOUNDS.match(n.get("bounds", "")):
                    break
                n.getparent().remove(n)
        nodes = root.findall(".//node")
        if not nodes:
            raise FormatError("the hierarchy has no <node> elements")
        for n in nodes:
            if "class" not in n.attrib or not _BOUNDS.match(n.get("bounds", "")):
                raise FormatError(
                    f"a node lacks a class or has malformed bounds ({n.get('bounds')!r}); "
                    f'bounds must look like "[0,0][1080,2400]"'
                )
        if repaired:
            text = XML_DECLARATION + etree.tostring(root, encoding="unicode")
        package = nodes[0].get("package", "")
        clickable = [n.get("text") or n.get("content-desc") for n in nodes if n.get("clickable") == "true"]
        return Parsed(text, {"package": package, "node_count": len(nodes),
                             "clickable": [c for c in clickable if c][:50]}, repaired)


# -- search (numbered results; fetched pages as Markdown) ------------------------------------------

_RESULT = re.compile(r"^\[(\d+)\] (\S+)\s*\nTitle: (.*)\nSnippet: (.*)\nDate: (.*)$", re.M)


class SearchFormat:
    """`web_search`: numbered blocks `[n] url`, `Title:`, `Snippet:`, `Date:` (DESIGN.md); a block
    cut off at the token limit is dropped. `web_fetch`: the page as Markdown, not HTML."""

    name = "search"

    def prefill(self, call: Call) -> str:
        return "[1] " if call.tool == "web_search" else ""

    def parse(self, raw: str, call: Call) -> Parsed:
        text = raw.replace("\r\n", "\n").strip()
        if call.tool != "web_search":
            return self._page(text, call)
        results = []
        for m in _RESULT.finditer(text):
            n, url, title, snippet, date = m.groups()
            if int(n) != len(results) + 1:
                break
            results.append({"n": int(n), "url": url, "title": title.strip(), "snippet": snippet.strip(),
                            "date": date.strip()})
        wanted = int(call.arguments.get("num_results", 10) or 10)
        results = results[:wanted]
        if not results:
            raise FormatError("the answer has no results in the layout `[1] url` / `Title:` / `Snippet:` / `Date:`")
        body = "".join(f"[{r['n']}] {r['url']}\nTitle: {r['title']}\nSnippet: {r['snippet']}\nDate: {r['date']}\n"
                       for r in results)
        return Parsed(body, {"query": call.arguments.get("query", ""), "results": results},
                      repaired=body.strip() != text.strip())

    def _page(self, text: str, call: Call) -> Parsed:
        fence = re.fullmatch(r"```(?:markdown|md)?\n(.*?)\n?```", text, re.S)
        if fence:
            text = fence.group(1).strip()
        if not text:
            raise FormatError("the fetched page is empty")
        if _COMMENTARY.match(text):
            raise FormatError("the answer talks about the page instead of being its content")
        if re.match(r"\s*<(!doctype|html)", text, re.I):
            raise FormatError("the page came back as HTML; web_fetch returns Markdown")
        if call.truncated and _degenerate(text):
            raise FormatError("the answer degenerated into repetition")
        title = next((ln.lstrip("# ").strip() for ln in text.splitlines() if ln.startswith("# ")), "")
        return Parsed(text + "\n", {"url": call.arguments.get("url", ""), "title": title, "chars": len(text)})


# -- mcp (any declared tool) ------------------------------------------------------------------------


class McpFormat:
    """A declared tool's text result. When every demonstration of the tool is a JSON document the
    answer must be one too (prefilled with its first character); when the tool declares an
    outputSchema, structured content that validates is read from the JSON text where it can be (the
    text itself, or the text as the schema's only property) and otherwise asked for separately."""

    name = "mcp"

    def prefill(self, call: Call) -> str:
        return getattr(call.spec, "answer_start", "") or ""

    def parse(self, raw: str, call: Call) -> Parsed:
        spec = call.spec
        text = raw.replace("\r\n", "\n").strip()
        fence = re.fullmatch(r"```[a-z]*\n(.*?)\n?```", text, re.S)
        if fence:
            text = fence.group(1).strip()
        if _COMMENTARY.match(text):
            raise FormatError("the answer talks about the tool instead of being its result")
        if call.truncated and _degenerate(text):
            raise FormatError("the answer degenerated into repetition")
        value: Any = None
        if text[:1] in ("{", "["):
            try:
                value, end = json.JSONDecoder().raw_decode(text)
                text = text[:end]  # anything after the JSON document is the model running on
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
    from jsonschema.validators import validator_for

    return validator_for(schema)(schema)


from .desktop import DesktopFormat, parse_tree as parse_tree  # noqa: E402  (they build on the definitions above)
from .repo import RepoFormat  # noqa: E402

FORMATS: dict[str, Format] = {f.name: f for f in (TerminalFormat(), HtmlFormat(), UiautomatorFormat(), SearchFormat(),
                                                   McpFormat(), RepoFormat(), DesktopFormat())}


def get_format(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise KeyError(f"unknown observation format {name!r}; known: {sorted(FORMATS)}") from None
