"""The terminal's success checks: what a task asks of the machine, read from the shell state, or
from the real sandbox when the episode's agent got real tools (`EpisodeView.real["terminal"]`, a
`SandboxReader`): then the files and the repository are what the real commands left.

Paths are absolute, `~/…`, or relative to the world's project folder (the seed's `cwd`).
"""

from __future__ import annotations

import posixpath
from typing import Any, Literal

from pydantic import Field

from mcp_world.rules import Check, EpisodeView


def _home(state: dict[str, Any]) -> str:
    return str(state.get("home") or "/home/user")


def _project(episode: EpisodeView) -> str:
    seed = episode.world.seed.get("terminal")
    if isinstance(seed, dict) and seed.get("cwd"):
        return str(seed["cwd"])
    return _home(episode.state.get("terminal", {}))


def _sandbox(check: Check, episode: EpisodeView) -> Any:
    return episode.real.get(check.domain or "")


class _PathCheck(Check):
    path: str = Field(min_length=1, max_length=4096)

    def found(self, episode: EpisodeView) -> str | None:
        """'file', 'dir' or None: in the sandbox when there is one, else in the state."""
        sandbox, path = _sandbox(self, episode), self.where(episode)
        if sandbox is not None:
            return sandbox.kind(path)
        state = self.state(episode)
        if path in state.get("files", {}):
            return "file"
        if path in state.get("dirs", []) or any(p.startswith(path.rstrip("/") + "/") for p in state.get("files", {})):
            return "dir"
        return None

    def where(self, episode: EpisodeView) -> str:
        state = self.state(episode)
        path = self.path
        if path == "~" or path.startswith("~/"):
            path = _home(state) + path[1:]
        elif not path.startswith("/"):
            path = posixpath.join(_project(episode), path)
        return posixpath.normpath(path)

    def exists(self, episode: EpisodeView) -> bool:
        return self.found(episode) is not None

    def content(self, episode: EpisodeView) -> str | None:
        sandbox = _sandbox(self, episode)
        if sandbox is not None:
            return sandbox.read(self.where(episode))
        return self.state(episode).get("files", {}).get(self.where(episode))

    def at(self, episode: EpisodeView) -> str:
        """The path, said with where it was read."""
        return self.where(episode) + (" (in the real sandbox)" if _sandbox(self, episode) is not None else "")


class FileExists(_PathCheck):
    """The path exists; `type: file` or `dir` also requires what it is (default: either)."""

    kind: Literal["file_exists"]
    type: Literal["any", "file", "dir"] = "any"

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        path, found = self.at(episode), self.found(episode)
        if found is None:
            return False, f"{path} does not exist"
        is_file = found == "file"
        what = "a file" if is_file else "a folder"
        if self.type != "any" and (self.type == "file") != is_file:
            return False, f"{path} exists but is {what}, not {'a file' if self.type == 'file' else 'a folder'}"
        return True, f"{path} exists ({what})"


class FileAbsent(_PathCheck):
    kind: Literal["file_absent"]

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        found = self.exists(episode)
        return not found, f"{self.at(episode)} {'still exists' if found else 'is gone'}"


class FileContains(_PathCheck):
    kind: Literal["file_contains"]
    text: str = Field(min_length=1)

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        content = self.content(episode)
        if content is None:
            known = self.exists(episode)
            return False, f"{self.at(episode)} " + ("exists, its content unknown" if known else "does not exist")
        found = self.text in content
        return found, f"{self.at(episode)} {'contains' if found else 'lacks'} {self.text!r}"


class FileEquals(_PathCheck):
    kind: Literal["file_equals"]
    text: str  # the whole content, compared with trailing whitespace ignored

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        content = self.content(episode)
        if content is None:
            return False, f"{self.at(episode)}: no known content"
        same = content.rstrip() == self.text.rstrip()
        return same, f"{self.at(episode)} {'equals' if same else 'differs from'} the expected content"


class Cwd(_PathCheck):
    kind: Literal["cwd"]

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        cwd = self.state(episode).get("cwd", "")
        return cwd == self.where(episode), f"the shell is in {cwd}"


def _git(check: Check, episode: EpisodeView) -> tuple[dict[str, Any], int, str]:
    """The repository as (facts, commits it started with, where it was read)."""
    seed = episode.world.seed.get("terminal")
    repos = seed.get("git") if isinstance(seed, dict) else None
    sandbox = _sandbox(check, episode)
    if sandbox is not None:
        path = str(repos[0].get("path")) if repos else _project(episode)
        facts = sandbox.git(path) or {}
        return facts, int(facts.get("initial", 0)), " (in the real sandbox)"
    before = max(1, len(repos[0].get("log") or []) or 1) if repos else 1
    return check.state(episode).get("git") or {}, before, ""


class GitBranch(Check):
    kind: Literal["git_branch"]
    equals: str | None = None  # the current branch
    exists: str | None = None  # a branch that must exist

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        git, _, where = _git(self, episode)
        if not git:
            return False, "no git repository" + (where or " in the state")
        branch, branches = git.get("branch", ""), git.get("branches", [])
        passed = (self.equals is None or branch == self.equals) and (self.exists is None or self.exists in branches)
        return passed, f"on branch {branch}; branches {', '.join(branches)}{where}"


class GitCommit(Check):
    kind: Literal["git_commit"]
    message_contains: str = ""  # the newest commit's message contains this ("" : any new commit)
    new: bool = True  # a commit made during the episode

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        git, before, where = _git(self, episode)
        commits = list(git.get("commits", []))
        if not commits:
            return False, "no commits" + (where or " in the state")
        if self.new and len(commits) <= before:
            return False, f"no new commit (the last is {commits[-1]!r}){where}"
        passed = self.message_contains.lower() in commits[-1].lower()
        return passed, f"the last commit is {commits[-1]!r}{where}"


CHECKS = (FileExists, FileAbsent, FileContains, FileEquals, Cwd, GitBranch, GitCommit)
