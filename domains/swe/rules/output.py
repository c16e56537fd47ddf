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
PYTEST_HEAD = "============================= test session starts =============================="


def pytest_config(files: dict) -> tuple[str | None, dict] | None:
    """(the ini file pytest reads at the root, its options) as pytest finds it: pytest.ini (even
    without a [pytest] section), pyproject.toml with [tool.pytest.ini_options], tox.ini with
    [pytest], setup.cfg with [tool:pytest], in that order, else a pyproject.toml without the table;
    (None, {}) when none; None when a candidate's contents are unknown."""
    import configparser
    import tomllib

    for name, section in (("pytest.ini", "pytest"), (".pytest.ini", "pytest"), ("pyproject.toml", None),
                          ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        if name not in files:
            continue
        text = files[name]
        if text is None:
            return None
        if section is None:
            try:
                options = tomllib.loads(text).get("tool", {}).get("pytest", {}).get("ini_options")
            except tomllib.TOMLDecodeError:
                return None
            if isinstance(options, dict):
                return name, options
            continue
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text)
        except configparser.Error:
            return None
        if parser.has_section(section):
            return name, dict(parser[section])
        if name.endswith("pytest.ini"):
            return name, {}
    # pytest 8.1 and later: with no other, a pyproject.toml without the table is the ini file too.
    return ("pyproject.toml" if "pyproject.toml" in files else None), {}


def _listed(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else str(value or "").split()


def pytest_header(state: dict, target: str | None) -> str:
    """What pytest prints before the first result, as far as the known files say: the header, the
    root, the ini file and (with no target) its testpaths. The rest is predicted."""
    head = (f"{PYTEST_HEAD}\nplatform linux -- Python 3.11.7, pytest-8.3.3, pluggy-1.5.0\n"
            f"rootdir: {state.get('root', '/workspace/project')}\n")
    files = state.get("files") or {}
    config = pytest_config(files) if state.get("complete", True) else None
    if config is None:
        return head
    ini, options = config
    testpaths = _listed(options.get("testpaths")) if not target else []
    if ini:
        head += f"configfile: {ini}\n"
    if testpaths:
        head += f"testpaths: {', '.join(testpaths)}\n"
    # What is collected is not said here: a test module that fails to import, a parametrized test,
    # a class pytest does not collect all change it (measured on the real runs of
    # fixtures/real/repos.jsonl.xz, the known files' count was wrong on 35 of 64).
    return head


_COLLECTED = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$")  # pytest's default python_files


def test_files(state: dict, target: str | None) -> list[str] | None:
    """The test files a run collects from, as far as the known files say (pytest's default
    python_files, in the target or the ini's testpaths); None when they do not say it (files not
    all known, or options that change what is collected)."""
    files = state.get("files") or {}
    config = pytest_config(files) if state.get("complete", True) else None
    if config is None or any(k in config[1] for k in ("python_files", "addopts")):
        return None
    if any(c is None for p, c in files.items() if _COLLECTED.search(p)):
        return None
    scope = [target.split("::")[0].rstrip("/")] if target else _listed(config[1].get("testpaths"))
    found = [p for p in files if _COLLECTED.search(p)
             and (not scope or any(p == s or p.startswith(s + "/") or s == "." for s in scope))]
    return sorted(found)


def numbered(lines: list[str], first: int) -> str:
    """Lines as `cat -n` shows them, starting at line `first`."""
    return "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(lines, first))


def error_result(message: str) -> Parsed:
    return Parsed(f"error: {message}\n", {"error": message})


class RepoOutput:
    def grammar(self, call: Call, grammar: str) -> str | None:
        """A test run's progress lines name only the test files it collects, where the known files
        say which (the small model wrote the demonstrations' `tests/test_tiny.py` for textstats, and
        `test_single.py.py.py…`)."""
        if call.tool != "repo_run_tests":
            return None
        found = test_files(call.state, call.arguments.get("target"))
        if not found or len(found) > 64 or not re.search(r"^path ::= .*$", grammar, re.M):
            return None
        names = " | ".join('"' + p.replace("\\", "\\\\").replace('"', '\\"') + '"' for p in found)
        return re.sub(r"^path ::= .*$", lambda _: f"path ::= {names}", grammar, count=1, flags=re.M)

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
        if lines and re.fullmatch(r" *\d+", lines[-1]):
            lines[-1] += "\t"  # an empty last line, its tab lost with the answer's trailing whitespace
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
        return Parsed(text + "\n", run_summary(text))


def run_summary(text: str) -> dict:
    """{passed, failed, errors, skipped, exit_code, summary} from what a test runner printed (its last
    summary line): of the model's answer, and of a real run (executors/repo.py)."""
    counts = {k: 0 for k in ("passed", "failed", "errors", "skipped")}
    summary = next((ln for ln in reversed(text.splitlines())
                    if _PYTEST_COUNTS.search(ln) or re.match(r"=+ no tests ran", ln)), "")
    for n, kind in _PYTEST_COUNTS.findall(summary):
        key = "errors" if kind.startswith("error") else kind
        if key in counts:
            counts[key] = int(n)
    code = 1 if counts["failed"] or counts["errors"] else (0 if summary else exit_code_for(text))
    if "no tests ran" in summary:
        code = 5  # pytest's exit status when nothing was collected
    return {**counts, "exit_code": code, "summary": summary.strip("= ")}
