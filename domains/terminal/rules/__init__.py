"""The terminal domain: a bash session answered as a transcript, kept straight by a shell state.

Its code: the seed (who and where the shell is, which files and git repositories exist), the state
and the shell interpreter over it (shell.py; how it reads a line, line.py; what each command does to
the state, effects.py), what an answer must look like (output.py), the
transcript layout the instruct dialect continues, and the report's check for writes outside the
project (the other risk patterns are data in domain.yaml).
"""

from __future__ import annotations

from datetime import datetime, timezone
import posixpath
import shlex
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mcp_world.rules import Call, Moment, Parsed, Picture, Rules, TrainedAction, Transcript

from . import checks as task_checks
from . import gitobjects, output, repository, shell, trained
from . import state as st


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _ancestors(folders: set[str]) -> set[str]:
    """The folders and every folder above them, up to (not including) the root."""
    out = set()
    for d in folders:
        while d not in ("/", "") and d not in out:
            out.add(d)
            d = posixpath.dirname(d)
    return out


class GitSeed(BaseModel):
    """A git repository in the terminal world: the folder, its branch and one commit of its files."""

    model_config = ConfigDict(extra="forbid")
    path: str
    branch: str = Field(default="main", pattern=r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$")
    message: str = "Initial commit"
    author: str = "user <user@example.com>"
    log: list[str] = Field(default_factory=list)  # recent commits, newest first, as `git log --oneline` shows them
    date: datetime = Field(default=datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc),
                           description="When the seed commit was made (the shadow sandbox commits at this time, "
                                       "so the commit's id is known)")

    def commit_hash(self, files: dict[str, str | None]) -> str:
        """The seed commit's id in the shadow sandbox, which writes a file of unknown content empty."""
        inside = {p[len(self.path.rstrip("/")) + 1:]: c or "" for p, c in files.items()
                  if p.startswith(self.path.rstrip("/") + "/")}
        return gitobjects.root_commit(inside, self.author, self.epoch, self.message)

    @property
    def epoch(self) -> int:
        when = self.date if self.date.tzinfo else self.date.replace(tzinfo=timezone.utc)
        return int(when.timestamp())


class TerminalSeed(BaseModel):
    """The terminal domain's structured seed: who and where the shell is, and which files exist."""

    model_config = ConfigDict(extra="forbid")
    hostname: str = Field(default="devbox", pattern=r"^[A-Za-z0-9][A-Za-z0-9.-]{0,62}$")
    user: str = Field(default="user", pattern=r"^[a-z_][a-z0-9_-]{0,31}$")  # a plain user name
    cwd: str = "/home/user"
    files: dict[str, str | None] = Field(default_factory=dict)  # path -> contents (None: exists, unknown)
    git: list[GitSeed] = Field(default_factory=list)
    notes: str = ""

    # World files come from other people (shared worlds, mirrored servers): every path is absolute and
    # normalized, and the shell's folder and the repositories lie in the user's home, so nothing built
    # from a seed (the shadow sandbox's scratch folder) can point anywhere else.
    @field_validator("files")
    @classmethod
    def _plain_paths(cls, value: dict[str, str | None]) -> dict[str, str | None]:
        bad = [p for p in value if not _normalized(p)]
        if bad:
            raise ValueError(f"file paths must be absolute and normalized (no '..', '.', '//'): {bad[:3]}")
        return value

    @model_validator(mode="after")
    def _inside_home(self) -> TerminalSeed:
        home = "/root" if self.user == "root" else f"/home/{self.user}"
        for what, path in [("cwd", self.cwd)] + [("git path", g.path) for g in self.git]:
            if not _normalized(path) or not (path == home or path.startswith(home + "/")):
                raise ValueError(f"{what} {path!r} must be an absolute, normalized path inside {home}")
        return self


def _made_in_order(seed: TerminalSeed, home: str) -> list[str]:
    """The paths in the home, oldest first, as the shadow sandbox makes them: each file of the seed in
    turn, after the folders above it that are not there yet, then the working folder (TerminalState.order)."""
    order: list[str] = []
    seen = {home}
    for path in [*seed.files, seed.cwd]:
        if not path.startswith(home + "/"):
            continue  # (the sandbox writes only the home)
        parts = path[len(home) + 1:].split("/")
        for i in range(1, len(parts) + 1):
            made = posixpath.join(home, *parts[:i])
            if made not in seen:
                seen.add(made)
                order.append(made)
    return order


def _git_made(seed: TerminalSeed, home: str) -> list[str]:
    """The repository's .git, made after every file of the world (the sandbox runs `git init` last)."""
    return [posixpath.join(g.path, ".git") for g in seed.git[:1] if g.path.startswith(home + "/")]


def _made_now(seed: TerminalSeed, home: str) -> dict[str, int]:
    """Everything the shadow sandbox makes of the seed is made now: the home, the folder it is in,
    each path in it, and the repository's .git (TerminalState.times)."""
    now = int(st.clock())
    made = [posixpath.dirname(home), home, *_made_in_order(seed, home)]
    made += [posixpath.join(g.path, ".git") for g in seed.git[:1]]
    return {p: now for p in made}


def _normalized(path: str) -> bool:
    return path.startswith("/") and posixpath.normpath(path) == path and "\x00" not in path


class TerminalRules(Rules):
    state_model = st.TerminalState
    seed_model = TerminalSeed
    checks = task_checks.CHECKS

    def seed(self, raw: Any) -> TerminalSeed:
        return TerminalSeed.model_validate(raw) if isinstance(raw, dict) else TerminalSeed(notes=raw or "")

    def initial(self, world: Any) -> dict[str, Any]:
        seed = self.seed(world.seed.get("terminal"))
        home = f"/home/{seed.user}" if seed.user != "root" else "/root"
        files = dict(seed.files)
        # Every folder above a file exists too (a folder holding only folders: `schemas/draft7/x.json`).
        dirs = sorted(_ancestors({posixpath.dirname(p) for p in files} | {seed.cwd}))
        git = None
        if seed.git:
            g = seed.git[0]
            head = ""  # the last commit's full id
            if g.log:  # as recorded: the ids are the real ones (abbreviated)
                commits = [line.split(" ", 1)[-1] for line in reversed(g.log)]
                hashes = [line.split(" ", 1)[0] if " " in line else "" for line in reversed(g.log)]
            else:  # made at the seed's date (by default GitSeed's), as the shadow sandbox makes it
                commits = [g.message]
                head = g.commit_hash(seed.files)
                hashes = [head[:7]]
            # (the world makes it with every file committed, and nothing stashed)
            git = st.GitState(repo=g.path, branch=g.branch, branches=[g.branch], commits=commits, hashes=hashes,
                                 follows=True, head=head, pristine=not g.log, stash=None if g.log else [],
                                 remotes=None if g.log else {},
                                 made=[st.Made(id=head, who=g.author, when=g.epoch) if head else None])
        # Folders the seed lists files in are taken as fully known (the shadow sandbox makes exactly them).
        # Folders the seed lists files in, and those between them and the working folder, are taken
        # as fully known (the shadow sandbox makes exactly them); so are the folders from the home
        # down to the working folder, /home (the user's home alone) and /tmp (empty at the start).
        known = {d for d in _ancestors({posixpath.dirname(p) for p in files}) if _inside(d, seed.cwd)}
        if files:
            known.add(seed.cwd)
            if _inside(seed.cwd, home):
                known |= {d for d in _ancestors({seed.cwd}) if _inside(d, home)}
                if posixpath.dirname(home) == "/home":
                    known.add("/home")
        known.add("/tmp")
        if posixpath.dirname(home) == "/home":
            known.add("/")  # the root the shadow sandbox makes (the world's files are in the home it makes)
            dirs += [posixpath.join("/", name) for name in st.ROOT]
        dirs = sorted(set(dirs) | known)
        known = sorted(known)
        return st.TerminalState(cwd=seed.cwd, home=home, host=seed.hostname, files=files, dirs=dirs, known_dirs=known,
                                   git=git, no_repo=git is None and not any("/.git/" in p for p in files),
                                   order=_made_in_order(seed, home) + _git_made(seed, home),
                                   times=_made_now(seed, home),
                                   identity={},  # (the sandbox configures no git identity)
                                   names_known=True,  # (the shell starts with the sandbox's variables alone)
                                   configured=any(p.endswith(repository.GIT_CONFIG_FILES) for p in files)).model_dump()

    def answer(self, state: dict[str, Any], call: Call) -> Parsed | None:
        command = str(call.arguments.get("command", ""))
        found = shell.answer(state, command)
        if found is None:
            found = shell.silent(state, command)
        if found is None:
            return None
        out, code = found
        home = state.get("home", "/home/user")
        return Parsed(out, {"output": out, "exit_code": code, "cwd": shell.cwd_after({"home": home, **state}, command, code)})

    def apply(self, state: dict[str, Any], call: Call, text: str, structured: dict[str, Any]) -> dict[str, Any]:
        return st.within_bounds(state, shell.apply(state, str(call.arguments.get("command", "")), text,
                                                   int(structured.get("exit_code", 0) or 0), structured.get("cwd", "")))

    def situation(self, state: dict[str, Any]) -> dict[str, Any]:
        # (the clock: when the world was made and written; the last status, which the history shows)
        return {k: v for k, v in state.items() if k not in ("times", "status")}

    def summary(self, state: dict[str, Any]) -> str:
        s = st.TerminalState.model_validate(state)
        parts = [f"cwd {s.cwd}"]
        known = {p: c for p, c in s.files.items() if p.startswith(s.home) or p.startswith("/tmp")}
        if known:
            shown = []
            for p, c in list(known.items())[-25:]:
                if c is None:
                    shown.append(p)
                else:
                    body = c if len(c) <= 80 else c[:77] + "..."
                    shown.append(f"{p} = {body!r}")
            parts.append("files: " + "; ".join(shown))
        if s.deleted:
            parts.append("deleted: " + ", ".join(s.deleted[-10:]))
        if s.env:
            parts.append("env: " + ", ".join(f"{k}={v}" for k, v in list(s.env.items())[-10:]))
        values = {k: v for k, v in s.vars.items() if v is not None}
        if values:
            parts.append("variables: " + ", ".join(f"{k}={v[:40]}" for k, v in list(values.items())[-10:]))
        if s.git:
            parts.append(f"git: on {s.git.branch}; branches {', '.join(s.git.branches)}; "
                         f"last commits {', '.join(repr(c) for c in s.git.commits[-3:])}")
        return "; ".join(parts)

    def next_cwd(self, command: str, cwd: str, home: str, exit_code: int) -> str:
        """The cwd after `command` ran in `cwd` (for the real shell's structured result too)."""
        return output.next_cwd(command, cwd, home, exit_code)

    def where(self, state: dict[str, Any]) -> str:
        return str(state.get("cwd", ""))

    def picture(self, text: str, call: Call, where: str = "") -> Picture | None:
        return Picture("terminal", prompt=f"{where or '~'}$", command=str(call.arguments.get("command", "")), output=text)

    def parse(self, raw: str, call: Call) -> Parsed:
        parsed = output.parse(raw, call)
        command = str(call.arguments.get("command", ""))
        code = parsed.structured.get("exit_code", 0)
        if call.state.get("cwd") and ("$" in command or "`" in command or code and "cd" in command or "cd -" in command):
            # (`cd "$(dirname f)"`, `cd $HOME`, `cd /tmp && git commit` failing, `cd -`: where the state knows)
            home = call.state.get("home", "/home/user")
            parsed.structured["cwd"] = shell.cwd_after({"home": home, **call.state}, command, code)
        return parsed

    def transcript(self, world: Any, state: dict[str, Any]) -> Transcript:
        seed = self.seed(world.seed.get("terminal"))
        home = state.get("home", f"/home/{seed.user}")

        def prompt(cwd: str) -> str:
            shown = "~" + cwd[len(home):] if cwd == home or cwd.startswith(home + "/") else cwd
            return f"{seed.user}@{seed.hostname}:{shown}$ "

        return Transcript(prompt, seed.cwd, (f"\n{seed.user}@{seed.hostname}:", f"{seed.user}@{seed.hostname}:"))

    def display(self, call: Call) -> str:
        return f"$ {call.arguments.get('command', '')}"

    # Qwen-AgentWorld's format: keystrokes in, the terminal's screen out (trained.py, agentworld.md).
    def trained_action(self, call: Call, moment: Moment) -> TrainedAction:
        return trained.action(call)

    def trained_observation(self, text: str, call: Call, moment: Moment) -> str:
        return trained.screen(text, str(call.arguments.get("command", "")), self._prompt(moment), moment)

    def from_trained(self, raw: str, call: Call, moment: Moment) -> str:
        return trained.read(raw, str(call.arguments.get("command", "")))

    def trained_screen(self, world: Any, state: dict[str, Any], where: str = "") -> str:
        return self.transcript(world, state).prompt(where or str(state.get("cwd", ""))).rstrip() if world else ""

    def _prompt(self, moment: Moment) -> Any:
        if moment.world is None:
            return lambda cwd: f"user@localhost:{cwd}$ "
        return self.transcript(moment.world, moment.state).prompt

    def risks(self, world: Any, call: Call) -> list[tuple[str, str]]:
        seed = self.seed(world.seed.get("terminal"))
        home = "/root" if seed.user == "root" else f"/home/{seed.user}"
        project = seed.cwd if "cwd" in seed.model_fields_set else home
        outside = _outside_writes(str(call.arguments.get("command", "")), home, project)
        return [("outside-project", f"writes {', '.join(outside[:3])} outside the project")] if outside else []


def _outside_writes(command: str, home: str, project: str) -> list[str]:
    """Paths written by redirections, cp/mv/tee/touch/mkdir targets that lie outside the project."""
    try:
        words = shlex.split(command, posix=True)
    except ValueError:
        return []
    targets: list[str] = []
    for i, w in enumerate(words):
        if w in (">", ">>") and i + 1 < len(words):
            targets.append(words[i + 1])
        elif w.startswith((">", ">>")) and len(w.lstrip(">")) > 0:
            targets.append(w.lstrip(">"))
    if words and words[0] in ("cp", "mv", "install", "ln") and len(words) > 2:
        targets.append(words[-1])
    if words and words[0] in ("tee", "touch", "mkdir"):
        targets += [w for w in words[1:] if not w.startswith("-")]
    out = []
    for t in targets:
        path = t.replace("~", home, 1) if t.startswith("~") else t
        if path.startswith("/") and not path.startswith(("/tmp/", "/dev/null")) and \
                not (project and (path == project or path.startswith(project.rstrip("/") + "/"))):
            out.append(t)
    return out


rules = TerminalRules()
