"""The swe domain's state: the repository's files as far as known, what was edited, the last test run.

Where the files are known, the repository tools are deterministic and answered from here: a view
numbers the file's lines, a replacement is applied (or refused: text absent or not unique) and
answered with its diff, a search greps the known files, a listing lists them. Only running the
tests needs the world model — it predicts the runner's output from the code as it now is.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

import re2

from mcp_world.rules import Parsed
from mcp_world.schemas import compile_pattern

from .output import error_result, numbered


class RepoState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    root: str = "/workspace/project"
    files: dict[str, str | None] = Field(default_factory=dict)  # path -> contents (None: exists, unknown)
    complete: bool = False  # `files` is the whole repository
    test_command: str = "pytest"
    edited: list[str] = Field(default_factory=list)
    last_tests: str = ""  # the last run's summary line


def _norm(path: str) -> str:
    return posixpath.normpath(path.strip() or ".").rstrip("/") or "."


def _folder_entries(s: RepoState, folder: str) -> list[str] | None:
    prefix = "" if folder == "." else folder + "/"
    entries = set()
    for p in s.files:
        if p.startswith(prefix):
            rest = p[len(prefix):]
            entries.add(rest.split("/", 1)[0] + ("/" if "/" in rest else ""))
    return sorted(entries) if entries else None


def answer(state: dict[str, Any], tool: str, arguments: dict[str, Any]) -> Parsed | None:
    """The tool's output when the known files determine it; None leaves it to the world model."""
    s = RepoState.model_validate(state)
    path = _norm(str(arguments.get("path", ".")))
    content = s.files.get(path)
    if tool == "repo_view":
        if content is None:
            if path in s.files or not s.complete:
                return None
            if _folder_entries(s, path) is not None:
                return error_result(f"{path} is a folder; use repo_list")
            return error_result(f"no such file: {path}")
        lines = content.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        start = int(arguments.get("start_line") or 1)
        end = int(arguments.get("end_line") or -1)
        end = len(lines) if end == -1 else end
        if start > max(len(lines), 1) or end < start:
            return error_result(f"line range {start}-{end} is outside {path}, which has {len(lines)} lines")
        shown = lines[start - 1:min(end, len(lines))]
        return Parsed(numbered(shown, start) or "", {"path": path, "start_line": start,
                                                      "end_line": start + len(shown) - 1})
    if tool == "repo_replace":
        if content is None:
            return None if (path in s.files or not s.complete) else error_result(f"no such file: {path}")
        old, new = str(arguments.get("old_str", "")), str(arguments.get("new_str", ""))
        count = content.count(old)
        if count != 1:
            return error_result(f"old_str occurs {count} times in {path}; it must occur exactly once "
                                "(give more surrounding lines to make it unique)" if count else
                                f"old_str was not found in {path}; nothing was replaced")
        return _diff(path, content, content.replace(old, new, 1))
    if tool == "repo_search":
        return _search(s, str(arguments.get("pattern", "")), path)
    if tool == "repo_list":
        if not s.complete:
            return None
        entries = _folder_entries(s, path)
        if entries is None:
            return error_result(f"{path} is a file; use repo_view" if path in s.files else f"no such folder: {path}")
        return Parsed("\n".join(entries) + "\n", {"path": path, "entries": entries})
    return None


def _diff(path: str, before: str, after: str) -> Parsed:
    lines = list(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                      f"a/{path}", f"b/{path}", n=3))
    text = "".join(ln if ln.endswith("\n") else ln + "\n" for ln in lines)
    added = sum(1 for ln in lines[2:] if ln.startswith("+"))
    removed = sum(1 for ln in lines[2:] if ln.startswith("-"))
    return Parsed(text, {"path": path, "added": added, "removed": removed})


def _search(s: RepoState, pattern: str, folder: str) -> Parsed | None:
    prefix = "" if folder == "." else folder.rstrip("/") + "/"
    scope = {p: c for p, c in s.files.items() if p.startswith(prefix) or p == folder}
    if not s.complete or any(c is None for c in scope.values()):
        return None  # some file's contents are unknown: the model answers
    try:
        # RE2: linear time, so a pattern like (a|aa)*c over a long line cannot freeze the server.
        rx = compile_pattern(pattern)
    except re2.error as err:
        why = err.args[0].decode() if err.args and isinstance(err.args[0], bytes) else str(err)
        return error_result(f"invalid regular expression {pattern!r}: {why} (RE2 syntax: no lookaround or "
                            "backreferences)")
    hits = [f"{p}:{n}:{line}" for p, c in sorted(scope.items())
            for n, line in enumerate((c or "").splitlines(), 1) if rx.search(line)]
    if not hits:
        return Parsed(f"No matches for {pattern!r}\n", {"pattern": pattern, "matches": 0, "files": []})
    files = list(dict.fromkeys(h.split(":", 1)[0] for h in hits))
    return Parsed("\n".join(hits) + "\n", {"pattern": pattern, "matches": len(hits), "files": files})


def apply(state: dict[str, Any], tool: str, arguments: dict[str, Any], text: str,
          structured: dict[str, Any]) -> dict[str, Any]:
    s = RepoState.model_validate(state)
    if structured.get("error"):
        return s.model_dump()
    path = _norm(str(arguments.get("path", ".")))
    if tool == "repo_replace":
        content = s.files.get(path)
        old, new = str(arguments.get("old_str", "")), str(arguments.get("new_str", ""))
        s.files[path] = content.replace(old, new, 1) if content is not None and content.count(old) == 1 else None
        if path not in s.edited:
            s.edited.append(path)
    elif tool == "repo_view" and s.files.get(path) is None and structured.get("start_line") == 1 \
            and not arguments.get("end_line"):
        # The model showed a whole file not known before: it is now established.
        s.files[path] = "".join(re.sub(r"^ *\d+\t", "", ln) + "\n" for ln in text.splitlines())
    elif tool == "repo_run_tests":
        s.last_tests = str(structured.get("summary", ""))[:200]
    return s.model_dump()


def summary(state: dict[str, Any]) -> str:
    s = RepoState.model_validate(state)
    parts = [f"repository {s.root}"]
    if s.edited:
        parts.append("edited: " + ", ".join(s.edited[-10:]))
        for p in s.edited[-3:]:
            body = s.files.get(p)
            if body is not None:
                parts.append(f"{p} now reads {body[:400]!r}")
    if s.last_tests:
        parts.append(f"last test run: {s.last_tests}")
    return "; ".join(parts)
