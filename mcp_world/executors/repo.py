"""The real repository (swe): each episode's code base is written out at the world's root
(`seed.swe.root`, e.g. /workspace/textstats) inside a bubblewrap sandbox with the terminal's walls
and limits (sandbox.py), and the repository tools run there for real:

    repo_run_tests   the world's test command (`pytest` by default), run in the repository's root;
                     the agent gets what it printed, and the counts are read from its summary line
    repo_view, repo_replace, repo_search, repo_list
                     the real files, read and written by a helper inside the sandbox
                     (repo_tool.py), answered in the domain's formats (the same code that
                     answers them from the state), so the two differ only where the files do

The test runner is the server's own pytest and what it needs (found with importlib.metadata),
copied once into a folder bound read-only at /opt/mcp-world with nothing else of the server's
Python; the sandbox's python is /usr/bin/python3 when it is the server's version, else the server's
base interpreter, bound read-only. The project imports as if installed in editable mode (its root,
and its src/ in a src layout); nothing else is installed. The real run writes no bytecode and no .pytest_cache
(PYTHONDONTWRITEBYTECODE, `-p no:cacheprovider`), as CI containers are usually set up, so the
repository holds what the agent made of it.
"""

from __future__ import annotations

import json
import os
import posixpath
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..errors import MCPWorldError
from ..rules import Call, Parsed
from ..world import World
from .base import RealObservation
from .sandbox import Sandboxes, SandboxLimits, TerminalSandbox

RUNNER_AT = "/opt/mcp-world"  # where the test runner and the tools' helper are, read-only
SYSTEM = ("/usr", "/etc", "/proc", "/dev", "/sys", "/run", "/bin", "/lib", "/lib64", "/sbin", "/opt/mcp-world")
TOOLS = ("repo_view", "repo_replace", "repo_search", "repo_list", "repo_run_tests")
READ_LIMIT = 48 << 20  # the helper's answer (16 MiB of files at most, JSON-escaped)


def repository_root(root: str) -> str:
    """The seed's root, when a sandbox can put the repository there (an absolute, normalized folder
    outside the system's own)."""
    bad = (not root.startswith("/") or posixpath.normpath(root) != root or root in ("/", "/home", "/tmp")
           or any(root == s or root.startswith(s + "/") for s in SYSTEM))
    if bad:
        raise MCPWorldError(f"the real repository is put at seed.swe.root, which must be an absolute, normalized "
                            f"folder outside {', '.join(SYSTEM)} (e.g. /workspace/project); got {root!r}")
    return root


def _rules() -> Any:
    from ..domain import load_domain

    return load_domain("swe").rules


class Runner:
    """The folder bound at /opt/mcp-world: bin/ (pytest, python, python3), site/ (pytest and the
    distributions it requires, copied from the server's environment) and the tools' helper."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="mcp-world-runner-"))
        try:
            self.python, self.binds = _interpreter()
            self.has_pytest = self._copy("pytest")
            shutil.copyfile(Path(__file__).with_name("repo_tool.py"), self.folder / "repo_tool.py")
            (self.folder / "bin").mkdir()
            for name, line in [("pytest", f'exec {self.python} -m pytest "$@"'),
                               ("python", f'exec {self.python} "$@"'), ("python3", f'exec {self.python} "$@"')]:
                (self.folder / "bin" / name).write_text(f"#!/bin/sh\n{line}\n")
            for path in [self.folder, *self.folder.rglob("*")]:  # the sandbox's uid reads it (as root: not ours)
                os.chmod(path, 0o755 if path.is_dir() or path.parent.name == "bin" else 0o644)
        except BaseException:
            self.close()
            raise

    def _copy(self, name: str) -> bool:
        """Copy the distribution `name` and what it requires into site/; False when it is not installed."""
        from importlib import metadata

        from packaging.requirements import Requirement

        site = self.folder / "site"
        site.mkdir(exist_ok=True)
        todo, seen = [name], set()
        while todo:
            wanted = todo.pop()
            key = wanted.lower().replace("_", "-")
            if key in seen:
                continue
            seen.add(key)
            try:
                dist = metadata.distribution(wanted)
            except metadata.PackageNotFoundError:
                if wanted == name:
                    return False
                continue
            for file in dist.files or []:
                if ".." in file.parts or "__pycache__" in file.parts:
                    continue  # scripts outside site-packages; bytecode is not written or needed
                source = Path(str(dist.locate_file(file)))
                if source.is_file():
                    (site / file).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(source, site / file)
            for text in dist.requires or []:
                req = Requirement(text)
                if req.marker is None or req.marker.evaluate({"extra": ""}):
                    todo.append(req.name)
        return True

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _interpreter() -> tuple[str, list[str]]:
    """The python the sandbox runs, and the bwrap options that make it visible there."""
    usr = "/usr/bin/python3"
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if os.path.exists(usr):
        r = subprocess.run([usr, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                           capture_output=True, text=True, timeout=30)
        if r.stdout.strip() == version:
            return usr, []
    base = os.path.realpath(sys.base_prefix)
    return os.path.join(base, "bin", f"python{version}"), ["--ro-bind", base, base]


class RepoSandbox(TerminalSandbox):
    """One episode's real repository: the seed's files at its root, the test runner beside it."""

    def __init__(self, world: World, limits: SandboxLimits, runner: Runner, parent: Path | None = None) -> None:
        from ..domain import load_domain

        self.repo = world.seed_of("swe")
        self.repo_root = repository_root(self.repo.root)
        if "pytest" in self.repo.test_command and not runner.has_pytest:
            raise MCPWorldError(f"world '{world.name}' runs its tests with `{self.repo.test_command}`, and the real "
                                "repository runs the server's own pytest: install it beside mcp-world "
                                "(pip install pytest)")
        self.runner = runner
        super().__init__(world, limits, parent, seed=load_domain("terminal").rules.seed({}))

    def _materialize(self) -> None:
        super()._materialize()
        folder = self.scratch / "repo"
        folder.mkdir()
        self._sized("repo", self.limits.disk_bytes, "0755")  # as root: the repository's disk is its own
        for path, content in self.repo.files.items():
            target = self._inside("/repo/" + path)
            if target is None:
                self.skipped.append(path)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content or "")
        if self.root:
            for path in [folder, *folder.rglob("*")]:
                os.chown(path, self.host_uid, self.host_uid, follow_symlinks=False)

    def mounts(self) -> list[str]:
        return [*self.runner.binds, "--ro-bind", str(self.runner.folder), RUNNER_AT,
                "--bind", str(self.scratch / "repo"), self.repo_root]

    def environment(self) -> dict[str, str]:
        # The project importable as after `pip install -e .`: from its root (`python -m pytest` puts
        # it first), and from src/ in a src layout.
        src = [f"{self.repo_root}/src"] if any(p.startswith("src/") for p in self.repo.files) else []
        return {"PATH": f"{RUNNER_AT}/bin:/usr/local/bin:/usr/bin:/bin",
                "PYTHONPATH": ":".join([*src, f"{RUNNER_AT}/site"]),
                "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_ADDOPTS": "-p no:cacheprovider"}

    def _can_enter(self, cwd: str) -> bool:
        return cwd == self.repo_root or super()._can_enter(cwd)

    # -- the tools -----------------------------------------------------------------------------
    def run_tests(self, target: str | None) -> tuple[Parsed, dict[str, Any]]:
        command = self.repo.test_command + (f" {shlex.quote(target)}" if target else "")
        real = self.run(command, self.repo_root)
        # The counts straight from the summary line: what the model's answers must also pass (no
        # repetition, no commentary) is no test of a real run's hundreds of alike progress lines.
        structured = dict(_rules().run_summary(real.output))
        if not structured.get("summary"):  # what it printed is not a runner's report
            last = next((ln for ln in reversed(real.output.splitlines()) if ln.strip()), "")
            structured["summary"] = last.strip("= ")[:200]
        structured["exit_code"] = real.exit_code
        return Parsed(real.output, structured), {"timed_out": real.timed_out, "truncated": real.truncated}

    def _helper(self, request: dict[str, Any]) -> dict[str, Any]:
        # -I: the standard library only, so a json.py the agent left in the repository (or in src/,
        # on PYTHONPATH) cannot answer for the helper, nor for a check that reads through it.
        real = self.run(f"{shlex.quote(self.runner.python)} -I {RUNNER_AT}/repo_tool.py", self.repo_root,
                        stdin=json.dumps(request).encode(), max_output_bytes=READ_LIMIT)
        try:
            answer = json.loads(real.output)
        except ValueError:
            answer = None
        if real.exit_code != 0 or not isinstance(answer, dict):
            why = "it took too long" if real.timed_out else (real.output.strip().splitlines() or ["no answer"])[-1]
            raise MCPWorldError(f"the real repository could not be read: {why[:300]}")
        return answer

    def read(self, path: str) -> dict[str, Any]:
        """What is at `path` (relative to the root): {kind: file, content} | {kind: dir, files,
        folders} | {kind: missing} | {kind: outside}."""
        return self._helper({"op": "read", "root": self.repo_root, "path": path})

    def tool(self, tool: str, arguments: dict[str, Any]) -> Parsed:
        """A repository tool other than the tests, on the real files, in the domain's format."""
        path = posixpath.normpath(str(arguments.get("path") or ".").strip() or ".")
        found = self.read(path)
        kind = found.get("kind")
        if kind == "outside":
            return _error(f"{path} is outside the repository")
        files: dict[str, str | None] = {}
        if kind == "file":
            files[path] = found.get("content")
        elif kind == "dir":
            files = {rel if path == "." else f"{path}/{rel}": c for rel, c in (found.get("files") or {}).items()}
        if tool in ("repo_view", "repo_replace"):
            if kind == "dir":
                return _error(f"{path} is a folder; use repo_list")
            if kind == "file" and files[path] is None:
                return _error(f"{path} is not a UTF-8 text file of at most 1 MiB")
        if tool == "repo_list" and kind == "dir":
            rels = list(found.get("files") or {}) + [f + "/" for f in found.get("folders") or []]
            entries = sorted({r.split("/", 1)[0] + ("/" if "/" in r else "") for r in rels})
            return Parsed("".join(e + "\n" for e in entries), {"path": path, "entries": entries})
        if tool == "repo_search":
            files = {p: c for p, c in files.items() if c is not None}  # grep skips what is not text
        doc = {"root": self.repo_root, "files": files, "complete": True, "test_command": self.repo.test_command}
        parsed = _rules().answer(doc, Call(tool, arguments, doc))
        if parsed is None:
            return _error(f"{tool} could not be answered from the real files")
        if tool == "repo_replace" and not parsed.structured.get("error"):
            old, new = str(arguments.get("old_str", "")), str(arguments.get("new_str", ""))
            written = self._helper({"op": "write", "root": self.repo_root, "path": path,
                                    "content": str(files[path]).replace(old, new, 1)})
            if written.get("error"):
                return _error(str(written["error"]))
        return parsed


def _error(message: str) -> Parsed:
    """A repository tool's own failure, as the domain writes it: one `error: …` line."""
    return Parsed(f"error: {message}\n", {"error": message})


# What a verify-time run takes from the world, not from the agent: the tests and how pytest is told
# to run them (SWE-bench's rule: the tests are the task's, the code is the agent's).
TEST_CONFIG = frozenset({"pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"})


def is_test_file(path: str) -> bool:
    """A test, a conftest.py or pytest's configuration (relative to the repository root)."""
    parts = path.split("/")
    name = parts[-1]
    return (path in TEST_CONFIG or name == "conftest.py" or any(p in ("tests", "test", "testing") for p in parts[:-1])
            or (name.startswith("test") and name.endswith(".py")) or name.endswith("_test.py"))


class RepoReader:
    """Reads one episode's real repository for a task's checks (`verify` in a real episode)."""

    def __init__(self, box: RepoSandbox) -> None:
        self.box = box

    def fresh_test_run(self) -> dict[str, Any]:
        """The world's whole test suite, run now in a fresh repository that holds the agent's files
        but the tests as the world gave them (tests, conftest.py files and pytest's configuration
        from the seed; one the agent's run made is left out): the run's counts, `summary`,
        `exit_code`. The episode's own repository is not touched."""
        found = self.box.read(".")
        files = dict(self.box.repo.files)
        if found.get("kind") == "dir":
            for rel, content in (found.get("files") or {}).items():
                if content is not None and not is_test_file(rel):
                    files[rel] = content
        world = self.box.world
        seed = {**world.seed, "swe": {**world.seed["swe"], "files": files}}
        fresh = RepoSandbox(world.model_copy(update={"seed": seed}), self.box.limits, self.box.runner)
        try:
            parsed, extra = fresh.run_tests(None)
        finally:
            fresh.close()
        return {**parsed.structured, **extra}

    def read(self, path: str) -> str | None:
        """A file's text (relative to the root), or None when there is none."""
        found = self.box.read(posixpath.normpath(path))
        return found.get("content") if found.get("kind") == "file" else None


class ShadowRepo(Sandboxes):
    """The real repository of every episode, beside the simulated one (`--shadow swe`)."""

    name = "shadow-repo"

    def __init__(self, limits: SandboxLimits = SandboxLimits(), workers: int = 4) -> None:
        super().__init__(limits, workers)
        self.runner = Runner()

    def make(self, world: World) -> TerminalSandbox:
        return RepoSandbox(world, self.limits, self.runner)

    async def observe(self, episode_id: str, world: World, tool: str, arguments: dict[str, Any],
                      state: dict[str, Any]) -> RealObservation | None:
        if tool not in TOOLS:
            return None
        box = await self._in_pool(self.sandbox, episode_id, world)
        extra: dict[str, Any] = {}
        try:
            if tool == "repo_run_tests":
                parsed, extra = await self._in_pool(box.run_tests, arguments.get("target"))
            else:
                parsed = await self._in_pool(box.tool, tool, arguments)
        except MCPWorldError as err:
            parsed = _error(str(err))
        return RealObservation(parsed.text, dict(parsed.structured), {**parsed.structured, **extra})

    def reader(self, episode_id: str, world: World) -> RepoReader:
        """What reads the episode's repository (made now if the agent never used it: the seed's)."""
        return RepoReader(self.sandbox(episode_id, world))  # type: ignore[arg-type]

    def close(self) -> None:
        super().close()
        self.runner.close()
