"""The terminal's success checks: what a task asks of the machine, read from the shell state.

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


class _PathCheck(Check):
    path: str = Field(min_length=1, max_length=4096)

    def where(self, episode: EpisodeView) -> str:
        state = self.state(episode)
        path = self.path
        if path == "~" or path.startswith("~/"):
            path = _home(state) + path[1:]
        elif not path.startswith("/"):
            path = posixpath.join(_project(episode), path)
        return posixpath.normpath(path)

    def exists(self, episode: EpisodeView) -> bool:
        state = self.state(episode)
        path = self.where(episode)
        return path in state.get("files", {}) or path in state.get("dirs", []) or \
            any(p.startswith(path.rstrip("/") + "/") for p in state.get("files", {}))

    def content(self, episode: EpisodeView) -> str | None:
        return self.state(episode).get("files", {}).get(self.where(episode))


class FileExists(_PathCheck):
    """The path exists; `type: file` or `dir` also requires what it is (default: either)."""

    kind: Literal["file_exists"]
    type: Literal["any", "file", "dir"] = "any"

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        state, path = self.state(episode), self.where(episode)
        found = self.exists(episode)
        if not found:
            return False, f"{path} does not exist"
        is_file = path in state.get("files", {})
        what = "a file" if is_file else "a folder"
        if self.type != "any" and (self.type == "file") != is_file:
            return False, f"{path} exists but is {what}, not {'a file' if self.type == 'file' else 'a folder'}"
        return True, f"{path} exists ({what})"


class FileAbsent(_PathCheck):
    kind: Literal["file_absent"]

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        found = self.exists(episode)
        return not found, f"{self.where(episode)} {'still exists' if found else 'is gone'}"


class FileContains(_PathCheck):
    kind: Literal["file_contains"]
    text: str = Field(min_length=1)

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        content = self.content(episode)
        if content is None:
            known = self.exists(episode)
            return False, f"{self.where(episode)} " + ("exists, its content unknown" if known else "does not exist")
        found = self.text in content
        return found, f"{self.where(episode)} {'contains' if found else 'lacks'} {self.text!r}"


class FileEquals(_PathCheck):
    kind: Literal["file_equals"]
    text: str  # the whole content, compared with trailing whitespace ignored

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        content = self.content(episode)
        if content is None:
            return False, f"{self.where(episode)}: no known content"
        same = content.rstrip() == self.text.rstrip()
        return same, f"{self.where(episode)} {'equals' if same else 'differs from'} the expected content"


class Cwd(_PathCheck):
    kind: Literal["cwd"]

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        cwd = self.state(episode).get("cwd", "")
        return cwd == self.where(episode), f"the shell is in {cwd}"


class GitBranch(Check):
    kind: Literal["git_branch"]
    equals: str | None = None  # the current branch
    exists: str | None = None  # a branch that must exist

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        git = self.state(episode).get("git") or {}
        if not git:
            return False, "no git repository in the state"
        branch, branches = git.get("branch", ""), git.get("branches", [])
        passed = (self.equals is None or branch == self.equals) and (self.exists is None or self.exists in branches)
        return passed, f"on branch {branch}; branches {', '.join(branches)}"


class GitCommit(Check):
    kind: Literal["git_commit"]
    message_contains: str = ""  # the newest commit's message contains this ("" : any new commit)
    new: bool = True  # a commit made during the episode

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        git = self.state(episode).get("git") or {}
        commits = list(git.get("commits", []))
        if not commits:
            return False, "no commits in the state"
        seed = episode.world.seed.get("terminal")
        before = 1
        if isinstance(seed, dict) and seed.get("git"):
            before = max(1, len(seed["git"][0].get("log") or []) or 1)
        if self.new and len(commits) <= before:
            return False, f"no new commit (the last is {commits[-1]!r})"
        passed = self.message_contains.lower() in commits[-1].lower()
        return passed, f"the last commit is {commits[-1]!r}"


CHECKS = (FileExists, FileAbsent, FileContains, FileEquals, Cwd, GitBranch, GitCommit)
