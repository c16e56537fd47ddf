"""The repository's success checks: file contents as the state knows them (or, when the episode's
agent got the real repository, as they are there: `EpisodeView.real["swe"]`, a `RepoReader`),
edits, the last test run (the real one in a real episode: the log's real observation)."""

from __future__ import annotations

import posixpath
from typing import Literal

from pydantic import Field

from mcp_world.rules import Check, EpisodeView


def _rel(path: str) -> str:
    return posixpath.normpath(path.lstrip("./") if path.startswith("./") else path)


class FileContains(Check):
    """A file (relative to the repository root) contains this text, or with `absent: true` does not."""

    kind: Literal["file_contains"]
    path: str = Field(min_length=1)
    text: str = Field(min_length=1)
    absent: bool = False

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        reader = episode.real.get(self.domain or "")
        if reader is not None:
            content = reader.read(_rel(self.path))
            if content is None:
                return False, f"{self.path}: no such text file (in the real repository)"
            found = self.text in content
            return found != self.absent, f"{self.path} {'contains' if found else 'lacks'} {self.text!r} " \
                "(in the real repository)"
        content = self.state(episode).get("files", {}).get(_rel(self.path))
        if content is None:
            return False, f"{self.path}: content unknown (never shown whole, or an edit could not be applied)"
        found = self.text in content
        return found != self.absent, f"{self.path} {'contains' if found else 'lacks'} {self.text!r}"


class Edited(Check):
    """The agent changed this file (a successful repo_replace)."""

    kind: Literal["edited"]
    path: str = Field(min_length=1)

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        edited = self.state(episode).get("edited", [])
        return _rel(self.path) in edited, f"edited: {', '.join(edited) or 'nothing'}"


class Unchanged(Check):
    """A file (relative to the repository root) is as the world started it: a task that asks for the
    tests to pass says with this that passing by editing the tests does not count."""

    kind: Literal["unchanged"]
    path: str = Field(min_length=1)

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        path = _rel(self.path)
        seed = episode.world.seed.get(self.domain or "swe")
        start = (seed.get("files") or {}).get(path) if isinstance(seed, dict) else None
        if start is None:
            return False, f"{self.path}: the world does not give its contents"
        reader = episode.real.get(self.domain or "")
        if reader is not None:
            now, where = reader.read(path), " (in the real repository)"
        else:
            now, where = self.state(episode).get("files", {}).get(path), ""
            if now is None and path not in self.state(episode).get("edited", []):
                now = start  # never edited and never rewritten: as the world started it
        same = now == start
        return same, f"{self.path} is {'unchanged' if same else 'changed'}{where}"


class TestsPass(Check):
    """The last run of the whole suite (`repo_run_tests` without a target: a run of the tests that
    pass is no run of the suite), made after the last edit, had no failures or errors and ran
    something. In a real episode also the whole suite run again at verify, on the agent's code with
    the tests and the test configuration as the world gave them (`RepoReader.fresh_test_run`): an
    edited test, a conftest.py that skips, a `-k` in setup.cfg do not make it pass."""

    kind: Literal["tests_pass"]

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        last_run = last_edit = None
        for i, s in enumerate(episode.steps):
            if s.domain != self.domain or s.error:
                continue
            if s.tool == "repo_run_tests" and s.structured is not None and not s.arguments.get("target"):
                last_run = (i, s.structured)
            elif s.tool == "repo_replace" and not (s.structured or {}).get("error"):
                last_edit = i
        if last_run is None:
            return False, "the whole suite was never run (repo_run_tests without a target)"
        i, result = last_run
        if last_edit is not None and last_edit > i:
            return False, "the code was edited after the last run of the whole suite"
        ok = _passed(result)
        detail = f"the last run: {result.get('summary') or result}"
        reader = episode.real.get(self.domain or "")
        if not ok or reader is None:
            return ok, detail
        again = reader.fresh_test_run()
        return _passed(again), (f"{detail} (in the real repository); at verify, with the tests as the world gave "
                                f"them: {again.get('summary') or again}")


def _passed(result: dict) -> bool:
    return not result.get("failed") and not result.get("errors") and bool(result.get("passed"))


CHECKS = (FileContains, Edited, Unchanged, TestsPass)
