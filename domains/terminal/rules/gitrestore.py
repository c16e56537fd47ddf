"""git putting files back, where the state follows the repository (every change since the last
commit: GitState.base and .index): `git checkout [--] PATHS` and `git restore PATHS` (the working
files as the index has them), `git checkout HEAD -- PATHS` and `git restore --staged [--worktree]
PATHS` (as the last commit has them), `git reset [PATHS]` (the index as the last commit has it) and
`git reset --hard`. Agents type these to undo an edit that went wrong. What each prints, and the
files and index it leaves, are worked out once (`plan`), so the answer and the state after it
agree; a form, path or blob the state does not know is left to the model, and the state then
forgets the repository's files as before (history.py).

Checked byte for byte against git in the sandbox (tests/test_git_restore.py, benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from . import gitmodes
from .gitindex import _tracked, _untouched
from .state import TerminalState, _abs, _blob, _exists, _kept, _made, _remove, _within, _write

NOT_MATCHED = "error: pathspec '{}' did not match any file(s) known to git\n"
AMBIGUOUS = ("fatal: ambiguous argument '{}': unknown revision or path not in the working tree.\n"
             "Use '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'\n")
NO_PATHS = "fatal: you must specify path(s) to restore\n"
_HEAD = ("HEAD", "@")
_PATTERN = re.compile(r"[*?\[\\:]")  # (a pathspec git reads as a pattern, or magic: not worked out here)


@dataclass
class _Form:
    verb: str  # checkout, restore or reset
    paths: list[str]  # as typed; [] with `reset`: the whole repository
    index: bool  # the index is set back to the last commit
    worktree: str | None  # what the working files are set back to: "index", "head", or None (left)
    quiet: bool = False
    dashed: bool = True  # `--` before the paths (checkout without it counts what it wrote)
    hard: bool = False


@dataclass
class Plan:
    said: str | None  # (None: not known, as where what git prints is `git status` and that is not known)
    code: int
    index: dict[str, str] = field(default_factory=dict)  # path relative to the repository -> staged blob
    writes: dict[str, str | None] = field(default_factory=dict)  # absolute path -> its text (None: not known)
    index_x: dict[str, bool] = field(default_factory=dict)  # the staged blob's mode: 100755 or not (gitmodes.py)
    writes_x: dict[str, bool] = field(default_factory=dict)  # each file written: 100755 (rwxr-xr-x) or not
    removes: list[str] = field(default_factory=list)


def _form(args: list[str], branches: list[str]) -> _Form | None:
    """The form of `git checkout|restore|reset …` (`args` from the subcommand on); None for one not
    followed here (another source or commit, a branch named, a patch, options)."""
    verb, rest = args[0], args[1:]
    dashed = "--" in rest
    before, paths = (rest[:rest.index("--")], rest[rest.index("--") + 1:]) if dashed else (rest, [])
    quiet = any(a in ("-q", "--quiet") for a in before)
    before = [a for a in before if a not in ("-q", "--quiet")]
    if verb == "restore":
        staged = worktree = False
        plain = []
        for a in before:
            if a in ("-S", "--staged", "-SW", "-WS"):
                staged = True
            if a in ("-W", "--worktree", "-SW", "-WS"):
                worktree = True
            if a in ("--source=HEAD", "--source=@"):
                continue
            if not a.startswith("-"):
                plain.append(a)
            elif a not in ("-S", "--staged", "-W", "--worktree", "-SW", "-WS"):
                return None
        worktree = worktree or not staged
        source_head = staged or any(a.startswith("--source=") for a in before)
        paths = plain + paths
        return _Form("restore", paths, staged, ("head" if source_head else "index") if worktree else None, quiet)
    if any(a.startswith("-") and a not in ("--hard", "--mixed") for a in before):
        return None
    hard = "--hard" in before
    plain = [a for a in before if not a.startswith("-")]
    head = plain[:1] and plain[0] in _HEAD
    if head:
        plain = plain[1:]
    if any(p in branches or p in _HEAD or re.fullmatch(r"[0-9a-f]{4,40}", p) for p in plain + paths):
        return None  # (a branch, tag or commit named: a switch, or ambiguous)
    paths = plain + paths
    if verb == "checkout" and not hard and "--mixed" not in before and paths:
        if head and not dashed:
            return None  # (`git checkout HEAD x` counts what it wrote "from" the tree's id: not written here)
        return _Form("checkout", paths, bool(head), "head" if head else "index", quiet, dashed)
    if verb == "reset" and hard and not paths:
        return _Form("reset", [], True, "head", quiet, hard=True)
    if verb == "reset" and not hard:
        return _Form("reset", paths, True, None, quiet, dashed)
    return None


def plan(s: TerminalState, args: list[str]) -> Plan | None:
    """What `git checkout|restore|reset …` prints and changes, where the state knows it all."""
    g = s.git
    if g is None or not g.follows or g.unknown or not g.commits or not args or \
            args[0] not in ("checkout", "restore", "reset"):
        return None
    form = _form(args, [*g.branches, *g.tags])
    if form is not None and form.verb == "restore" and not form.paths:
        return Plan(NO_PATHS, 128)
    if form is None or any(_PATTERN.search(p) or not p for p in form.paths):
        return None
    named = [_abs(p, s) for p in form.paths]
    if any(not _within(p, g.repo) or _within(p, posixpath.join(g.repo, ".git")) for p in named):
        return None
    if any(g.base.get(rel) is None for rel in g.base) or any(v is None for v in g.index.values()):
        return None
    in_index = _tracked(s)
    if in_index is None:
        return None
    in_head = set(_untouched(s)) | {rel for rel, head in g.base.items() if head}
    # (`restore --staged` and `reset` take a path the last commit has and the index does not, and one
    # staged as new)
    known = in_head if form.worktree == "head" else set(in_index) | (in_head if form.worktree is None else set())
    unmatched = [typed for typed, p in zip(form.paths, named)
                 if not any(_within(posixpath.join(g.repo, rel), p) for rel in known)]
    if form.verb == "reset" and named and not form.dashed and not _exists(named[0], s):
        # (without `--`, the first name must be a commit or in the working tree, even a tracked one)
        return Plan(AMBIGUOUS.format(form.paths[0]), 128) if _blob(s, named[0]) == "" else None
    if unmatched and form.verb != "reset":  # (reset takes a name git does not know: nothing to do there)
        return Plan("".join(NOT_MATCHED.format(p) for p in unmatched), 1)
    out = Plan("", 0)
    staged_after: dict[str, tuple[str, bool]] = {}  # (each path's blob and mode in the index after it)
    written = 0
    for rel, head in g.base.items():
        path = posixpath.join(g.repo, rel)
        staged = g.index.get(rel, head) or ""
        head_x, staged_x = gitmodes.head(g, rel), gitmodes.staged(g, rel)
        if named and not any(_within(path, p) for p in named):
            staged_after[rel] = staged, staged_x
            continue
        staged_after[rel] = ((head or ""), head_x) if form.index else (staged, staged_x)
        if form.index:
            out.index[rel], out.index_x[rel] = head or "", head_x
        target, target_x = {"index": (staged, staged_x), "head": (head, head_x)}.get(form.worktree or "", (None, False))
        if target is None:
            continue
        work = _blob(s, path)
        work_x = gitmodes.work(s, rel) if work else False
        if work_x is None:
            return None  # (whether its mode differs: not known)
        if target == "":
            if form.hard and staged:  # staged as new: `reset --hard` removes it
                if work is None and path not in s.files or not emptied_known(s, path):
                    return None
                out.removes.append(path)
                written += 1
            elif staged and form.worktree == "head":
                return None  # (staged but not in the last commit: checkout HEAD keeps it, restore does not)
            continue  # (untracked: left where it is)
        if work == target and work_x == target_x:
            continue
        if work is None and not form.dashed:
            return None  # (whether it differs, and so the count, is not known)
        out.writes[path], out.writes_x[path] = g.texts.get(target), target_x
        written += 1
    if form.hard:
        if not g.hashes or not g.hashes[-1] or "\n" in g.commits[-1] or len(g.hashes) != len(g.commits):
            return None
        out.said = "" if form.quiet else f"HEAD is now at {g.hashes[-1]} {g.commits[-1]}\n"
    elif form.verb == "checkout" and not form.dashed and not form.quiet:
        out.said = f"Updated {written} path{'s' if written != 1 else ''} from the index\n"
    elif form.verb == "reset" and not form.quiet:
        unstaged = _unstaged(s, staged_after)
        if unstaged is None:
            return None
        out.said = "Unstaged changes after reset:\n" + unstaged if unstaged else ""
    return out


def _unstaged(s: TerminalState, staged_after: dict[str, tuple[str, bool]]) -> str | None:
    """What `git reset` lists after it: each tracked path whose working file differs from the index
    (M: its content or its mode) or is gone (D), relative to the repository, in the index's order."""
    g = s.git
    assert g is not None
    out = []
    for rel in sorted(staged_after, key=lambda r: r.encode()):
        (staged, staged_x), path = staged_after[rel], posixpath.join(g.repo, rel)
        if not staged:
            continue
        work = _blob(s, path)
        work_x = gitmodes.work(s, rel) if work else False
        if work is None or work_x is None:
            return None
        if work != staged or work and work_x != staged_x:
            out.append(f"{'D' if not work else 'M'}\t{rel}\n")
    return "".join(out)


def answer(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    """What `git checkout|restore|reset …` prints, where the state knows it."""
    planned = plan(s, args)
    return None if planned is None else (planned.said, planned.code)


def apply(s: TerminalState, args: list[str], output: str | None) -> bool:
    """The files and index after the command, where the state knows them and the command printed what
    the state expected (`output`; None: not known, a part of a line); False elsewhere (the caller
    then forgets what it may have changed)."""
    planned = plan(s, args)
    if planned is None or output is not None and output != planned.said:
        return False
    carry_out(s, planned)
    return True


def carry_out(s: TerminalState, plan: Plan) -> None:
    """What `plan` changes: the index, the files written back (and the folders on the way), the files
    removed (and the folders they leave empty, up to the repository)."""
    g = s.git
    assert g is not None
    for rel, staged in plan.index.items():
        if rel not in g.base:  # (untouched since the last commit until now)
            g.base[rel] = _kept(s, posixpath.join(g.repo, rel))
        if staged == g.base[rel]:
            g.index.pop(rel, None)
        else:
            g.index[rel] = staged
        gitmodes.set_staged(g, rel, plan.index_x.get(rel, False))
    for path, text in sorted(plan.writes.items(), key=lambda item: item[0].encode()):  # (in the index's order)
        _folders_for(s, path)
        s.files.pop(path, None)  # (git removes the old file and writes a new one: the newest of its folder)
        _write(s, path, text)
        s.modes.pop(path, None)  # (made anew: 644, or 755 for git's 100755, less the umask 022)
        if plan.writes_x.get(path):
            s.modes[path] = 0o755
    for path in plan.removes:
        _remove(s, path)
        folder = posixpath.dirname(path)  # (and the folders it leaves empty, up to the repository)
        while folder != g.repo and not _within(s.cwd, folder) and not any(
                posixpath.dirname(p) == folder for p in list(s.files) + s.dirs if p != folder):
            _remove(s, folder)
            folder = posixpath.dirname(folder)


def emptied_known(s: TerminalState, path: str) -> bool:
    """Whether the state knows which folders removing `path` leaves empty (git removes them, up to the
    repository, but not the shell's folder): each on the way is known whole, or holds the shell."""
    g = s.git
    assert g is not None
    folder = posixpath.dirname(path)
    while folder != g.repo and _within(folder, g.repo):
        if _within(s.cwd, folder):
            return True
        if folder not in s.known_dirs:
            return False
        folder = posixpath.dirname(folder)
    return True


def _folders_for(s: TerminalState, path: str) -> None:
    """git makes the folders on the way to a file it writes back; each is new, holding only what git
    writes into it."""
    missing = []
    folder = posixpath.dirname(path)
    while not _exists(folder, s) and folder not in ("/", ""):
        missing.append(folder)
        folder = posixpath.dirname(folder)
    for made in reversed(missing):
        s.dirs.append(made)
        s.known_dirs.append(made)
        if made in s.deleted:
            s.deleted.remove(made)
        _made(s, made)
