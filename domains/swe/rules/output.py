"""The swe domain's observations: what repository tools print.

    repo_view        the file with line numbers as `cat -n` prints them (`     1\\tline`)
    repo_replace     a unified diff of the change (`--- a/path`, `+++ b/path`, `@@ … @@` hunks)
    repo_search      `path:line:text` lines, as `grep -rn` prints them
    repo_list        one entry per line, folders with a trailing `/`
    repo_run_tests   the test runner's output as it prints it (pytest's by default)
Any of them may instead be one `error: …` line (no such file, text not found), returned to the agent
as a tool error.
"""

from __future__ import annotations

import re

from mcp_world.rules import Call, FormatError, Parsed, refuse_repetition, exit_code_for, sounds_like_commentary

_NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")
_MATCH = re.compile(r"^([^:\n]+):(\d+):(.*)$")
_PYTEST_COUNTS = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)")
_TEST_DEF = re.compile(r"^\s*(?:async )?def test_\w*\(", re.M)
PYTEST_HEAD = "============================= test session starts =============================="


def pytest_header(state: dict, target: str | None) -> str:
    """What pytest prints before the first result, as far as the known files say: the header, the
    root, how many tests were collected (counted in the known test files). The rest is predicted."""
    head = (f"{PYTEST_HEAD}\nplatform linux -- Python 3.11.7, pytest-8.3.3, pluggy-1.5.0\n"
            f"rootdir: {state.get('root', '/workspace/project')}\n")
    files = state.get("files") or {}
    tests = {p: len(_TEST_DEF.findall(c)) for p, c in files.items()
             if c is not None and re.search(r"(^|/)test_[^/]*\.py$", p)}
    if not tests or any(c is None for p, c in files.items() if re.search(r"(^|/)test_[^/]*\.py$", p)):
        return head
    if target:
        if "::" in target:
            return head + "collected 1 item\n\n"
        tests = {p: n for p, n in tests.items() if p == target or p.startswith(target.rstrip("/") + "/")}
    total = sum(tests.values())
    return head + f"collected {total} item{'s' if total != 1 else ''}\n\n"


def numbered(lines: list[str], first: int) -> str:
    """Lines as `cat -n` shows them, starting at line `first`."""
    return "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(lines, first))


def error_result(message: str) -> Parsed:
    return Parsed(f"error: {message}\n", {"error": message})


class RepoOutput:
    def prefill(self, call: Call) -> str:
        if call.tool == "repo_run_tests" and str(call.state.get("test_command", "pytest")).startswith("pytest"):
            return pytest_header(call.state, call.arguments.get("target"))
        if call.tool == "repo_replace":
            path = call.arguments.get("path", "")
            return f"--- a/{path}\n+++ b/{path}\n@@ "
        return ""

    def parse(self, raw: str, call: Call) -> Parsed:
        text = raw.replace("\r\n", "\n")
        fence = re.fullmatch(r"\s*```[a-z]*\n(.*?)\n?```\s*", text, re.S)
        if fence:
            text = fence.group(1)
        text = re.sub(r"(\n```\s*)+$", "", text.rstrip()).strip("\n")  # a stray closing fence is not output
        refuse_repetition(text, call)
        if re.fullmatch(r"error: [^\n]+", text.strip()):
            return error_result(text.strip().removeprefix("error: "))
        if sounds_like_commentary(text):
            raise FormatError("the answer talks about the repository instead of being the tool's output")
        path = str(call.arguments.get("path", "."))
        if call.tool == "repo_view":
            return self._view(text, path, call)
        if call.tool == "repo_replace":
            return self._diff(text, path)
        if call.tool == "repo_search":
            return self._matches(text, call)
        if call.tool == "repo_list":
            entries = [ln.strip() for ln in text.splitlines() if ln.strip()]
            if not entries or any(" " in e or len(e) > 255 for e in entries):
                raise FormatError("a listing has one file or folder name per line (folders end in /)")
            return Parsed("\n".join(entries) + "\n", {"path": path, "entries": entries})
        return self._tests(text)

    def _view(self, text: str, path: str, call: Call) -> Parsed:
        lines = text.split("\n")
        if call.truncated and lines and not _NUMBERED.match(lines[-1]):
            lines.pop()  # cut at the token limit mid-line
        numbers = []
        for line in lines:
            m = _NUMBERED.match(line)
            if not m:
                raise FormatError(f"a file view has every line numbered as `cat -n` does; got {line[:80]!r}")
            numbers.append(int(m.group(1)))
        if not numbers or numbers != list(range(numbers[0], numbers[0] + len(numbers))):
            raise FormatError("a file view's line numbers count up by one")
        body = "\n".join(lines) + "\n"
        return Parsed(body, {"path": path, "start_line": numbers[0], "end_line": numbers[-1]})

    def _diff(self, text: str, path: str) -> Parsed:
        lines = text.split("\n")
        if len(lines) < 4 or not lines[0].startswith("--- ") or not lines[1].startswith("+++ ") \
                or not lines[2].startswith("@@ "):
            raise FormatError("a replacement is answered with a unified diff: `--- a/path`, `+++ b/path`, `@@` hunks")
        body = lines[3:]
        added = sum(1 for ln in body if ln.startswith("+"))
        removed = sum(1 for ln in body if ln.startswith("-"))
        if not added and not removed:
            raise FormatError("the diff changes no line")
        return Parsed("\n".join(lines) + "\n", {"path": path, "added": added, "removed": removed})

    def _matches(self, text: str, call: Call) -> Parsed:
        pattern = call.arguments.get("pattern", "")
        if re.fullmatch(r"(?i)no matches[^\n]*", text.strip()):
            return Parsed(f"No matches for {pattern!r}\n", {"pattern": pattern, "matches": 0, "files": []})
        files: list[str] = []
        count = 0
        for line in text.splitlines():
            m = _MATCH.match(line)
            if not m:
                raise FormatError(f"search results are `path:line:text` lines; got {line[:80]!r}")
            count += 1
            if m.group(1) not in files:
                files.append(m.group(1))
        if not count:
            raise FormatError("the search answer is empty; say `No matches` when nothing matches")
        return Parsed(text + "\n", {"pattern": pattern, "matches": count, "files": files})

    def _tests(self, text: str) -> Parsed:
        body = text.removeprefix(PYTEST_HEAD).strip("\n")
        if not body:
            raise FormatError("the test run printed nothing")
        counts = {k: 0 for k in ("passed", "failed", "errors", "skipped")}
        summary = next((ln for ln in reversed(text.splitlines()) if _PYTEST_COUNTS.search(ln)), "")
        for n, kind in _PYTEST_COUNTS.findall(summary):
            key = "errors" if kind.startswith("error") else kind
            if key in counts:
                counts[key] = int(n)
        code = 1 if counts["failed"] or counts["errors"] else (0 if summary else exit_code_for(text))
        return Parsed(text + "\n", {**counts, "exit_code": code, "summary": summary.strip("= ")})
