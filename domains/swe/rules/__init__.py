"""The swe domain: repository tools over a described code base. Where the files are known, viewing,
replacing, searching and listing are answered exactly from the state (state.py); running the
tests is predicted under a pytest grammar, continuing the header the known files determine
(output.py)."""

from __future__ import annotations

import re
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from mcp_world.rules import Call, Parsed, Rules

from . import checks as task_checks
from . import state
from .output import RepoOutput, run_summary


class RepoSeed(BaseModel):
    """The swe domain's seed: a code base (paths relative to its root) and how its tests run."""

    model_config = ConfigDict(extra="forbid")
    root: str = "/workspace/project"
    language: str = "python"
    files: dict[str, str | None] = Field(default_factory=dict)  # path -> contents (None: exists, unknown)
    complete: bool = True  # `files` lists the whole repository: anything else does not exist
    test_command: str = "pytest"
    failing_tests: list[str] = Field(default_factory=list)  # test ids that fail at the start
    notes: str = ""

    @field_validator("files")
    @classmethod
    def _relative_paths(cls, value: dict[str, str | None]) -> dict[str, str | None]:
        bad = [p for p in value if p.startswith("/") or ".." in p.split("/") or not p.strip()]
        if bad:
            raise ValueError(f"repository paths are relative to its root, without '..': {bad[:5]}")
        return value


SEED_PROMPT_CHARS = 12_000  # of file contents in the prompt: about 3,400 of the 8,192-token context
_CONFIG = re.compile(r"^(pyproject\.toml|setup\.cfg|pytest\.ini|tox\.ini|(.*/)?conftest\.py)$")
_TEST = re.compile(r"(^|/)tests?/|(^|/)test[^/]*\.py$|_test\.py$")


def _shown_first(path: str, content: str) -> tuple[int, int]:
    """The order file contents go into a prompt that cannot hold them all: the test runner's
    configuration, then the tests and the code (the smaller first), then everything else."""
    if _CONFIG.match(path):
        return 0, len(content)
    if path.endswith(".py"):
        return (1 if _TEST.search(path) else 2), len(content)
    return 3, len(content)


class SweRules(Rules):
    state_model = state.RepoState
    seed_model = RepoSeed
    checks = task_checks.CHECKS

    def seed(self, raw: Any) -> RepoSeed:
        return RepoSeed.model_validate(raw) if isinstance(raw, dict) else RepoSeed(notes=raw or "", complete=False)

    def seed_prompt(self, raw: Any) -> str | None:
        """A repository larger than a prompt shows every path, and the contents of as many files as
        fit SEED_PROMPT_CHARS (the rest `null`, said so): a real project's source distribution is
        100 KB and more, and the whole of it overflowed the engine's context on every call."""
        if not isinstance(raw, dict) or not isinstance(raw.get("files"), dict):
            return None
        files = raw["files"]
        if sum(len(c or "") for c in files.values()) <= SEED_PROMPT_CHARS:
            return None
        shown, used = set(), 0
        for path in sorted((p for p, c in files.items() if c), key=lambda p: _shown_first(p, files[p])):
            if used + len(files[path]) <= SEED_PROMPT_CHARS:
                shown.add(path)
                used += len(files[path])
        hidden = sum(1 for p, c in files.items() if c and p not in shown)
        seed = {**raw, "files": {p: (c if p in shown else None) for p, c in files.items()}}
        return (yaml.safe_dump(seed, sort_keys=False, allow_unicode=True) +
                f"# {hidden} files' contents are not shown here (null above): the repository is larger than this "
                "prompt; they exist, with contents.")

    def initial(self, world: Any) -> dict[str, Any]:
        seed = self.seed(world.seed.get("swe"))
        return state.RepoState(root=seed.root, files=dict(seed.files), complete=seed.complete,
                               test_command=seed.test_command).model_dump()

    def answer(self, doc: dict[str, Any], call: Call) -> Parsed | None:
        return state.answer(doc, call.tool, call.filled())

    def apply(self, doc: dict[str, Any], call: Call, text: str, structured: dict[str, Any]) -> dict[str, Any]:
        return state.apply(doc, call.tool, call.arguments, text, structured)

    def summary(self, doc: dict[str, Any]) -> str:
        return state.summary(doc)

    def prefill(self, call: Call) -> str:
        return _OUTPUT.prefill(call)

    def parse(self, raw: str, call: Call) -> Parsed:
        return _OUTPUT.parse(raw, call)

    def grammar(self, call: Call, grammar: str) -> str | None:
        return _OUTPUT.grammar(call, grammar)

    @staticmethod
    def run_summary(text: str) -> dict[str, Any]:
        """The counts of what a test runner printed (for the real repository's runs)."""
        return run_summary(text)


_OUTPUT = RepoOutput()
rules = SweRules()
