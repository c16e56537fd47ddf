"""`git clean` in the terminal's state: `-n` (what it would remove), `-f` (removed), `-d` (folders too),
`-q`, below the shell's folder. What it removes is what `git status` lists as untracked, less what a
.gitignore ignores (gitignore.py), as git walks the tree:

- without `-d`, the untracked files in folders that hold a tracked file (it does not go into an
  untracked folder);
- with `-d`, an untracked folder as `folder/` where nothing in it is ignored (an empty one too), and
  one holding something ignored walked instead, its untracked files and folders named one by one (the
  ignored stay, and so does the folder); a folder that is ignored itself is not entered.

Names are relative to the shell's folder, in the byte order of the paths (a folder's with its `/`).
With `-x` what is ignored goes too (a .gitignore is then not read at all: `git clean -fdx`, a project
back to what git tracks). Without `-n` or `-f` git refuses (clean.requireForce). Checked beside git in
the sandbox (tests/test_gitignore.py, `benchmarks/state_fuzz.py --templates ignores`). `-X`, `-e`, `-i`,
paths, a repository inside, or a folder the state does not know whole are the model's.
"""

from __future__ import annotations

import posixpath
import re

from .gitindex import _tracked_under, ignoring
from .state import TerminalState, _blob, _children, _remove, _within

REFUSED = ("fatal: clean.requireForce defaults to true and neither -i, -n, nor -f given; refusing to clean\n", 128)
_FLAGS = re.compile(r"-[fndqx]+")
_LONG = {"--force": "f", "--dry-run": "n", "--quiet": "q"}


def _flags(args: list[str]) -> set[str] | None:
    """The letters of `git clean`'s options (f, n, d, q, x); None for any other word."""
    letters: set[str] = set()
    for a in args[1:]:
        if a in _LONG:
            letters.add(_LONG[a])
        elif _FLAGS.fullmatch(a):
            letters.update(a[1:])
        else:
            return None
    return letters


def _removed(s: TerminalState, dirs_too: bool, everything: bool = False) -> list[str] | None:
    """The paths `git clean` removes (absolute, a folder's with a trailing `/`), sorted as git lists them;
    None where the state does not know them. `everything` (`-x`): what is ignored too."""
    g = s.git
    assert g is not None
    ignores = (lambda rel, folder=False: False) if everything else ignoring(s)
    if ignores is None or not g.follows or not g.others_known or s.configured or \
            any(_within(r, g.repo) and r != g.repo for r in s.other_repos) or any(_within(p, g.repo) for p in s.modes):
        return None  # (a repository inside, or a mode that may refuse git a folder: not worked out)
    untracked: set[str] = set()
    for rel, head in g.base.items():
        path = posixpath.join(g.repo, rel)
        if head == "" and g.index.get(rel, "") == "" and path in s.files and path not in s.dirs and \
                not any(_within(path, d) for d in s.deleted):
            untracked.add(rel)
    ignored = {rel for rel in untracked if ignores(rel)}
    untracked -= ignored
    if any(not re.fullmatch(r"[A-Za-z0-9._/+@=,-]+", rel) for rel in untracked):
        return None  # (git quotes such names)
    git_dir = posixpath.join(g.repo, ".git")
    out: list[str] = []

    def known_whole(folder: str) -> bool:
        return all(d in s.known_dirs for d in s.dirs if _within(d, folder))

    def walk(folder: str, inside_untracked: bool) -> bool:
        if folder not in s.known_dirs:
            return False
        for child in _children(folder, s):
            path = posixpath.join(folder, child)
            rel = posixpath.relpath(path, g.repo)
            if path == git_dir:
                continue
            if path in s.dirs:
                if ignores(rel, True):
                    continue  # (not entered)
                if not inside_untracked and _tracked_under(s, path, untracked | ignored):
                    if not walk(path, False):
                        return False
                elif dirs_too:
                    if not known_whole(path):
                        return False
                    holds_ignored = any(_within(posixpath.join(g.repo, r), path) for r in ignored) or \
                        any(_within(d, path) and d != path and ignores(posixpath.relpath(d, g.repo), True)
                            for d in s.dirs)
                    if not holds_ignored:
                        out.append(path + "/")
                    elif not walk(path, True):
                        return False
            elif rel in untracked:
                out.append(path)
            elif rel not in ignored and _blob(s, path) is None and inside_untracked:
                return False  # (a file the state cannot place)
        return True

    if s.cwd != g.repo and not _tracked_under(s, s.cwd, untracked | ignored):
        return None  # (the shell in an untracked folder: not worked out)
    return sorted(out, key=lambda p: p.encode()) if walk(s.cwd, False) else None


def _plan(s: TerminalState, args: list[str]) -> tuple[tuple[str, int], list[str]] | None:
    """(what `git clean …` prints and its exit code, the paths it removes), where the state knows them."""
    flags = _flags(args)
    if flags is None or s.git is None:
        return None
    if not flags & {"f", "n"}:
        return None if s.configured else (REFUSED, [])
    removed = _removed(s, "d" in flags, "x" in flags)
    if removed is None:
        return None
    verb = "Would remove" if "n" in flags else "Removing"
    said = "" if "q" in flags else "".join(
        f"{verb} {posixpath.relpath(p.rstrip('/'), s.cwd)}{'/' if p.endswith('/') else ''}\n" for p in removed)
    return (said, 0), [] if "n" in flags else removed


def answer(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    """What `git clean …` prints, where the state knows it."""
    planned = _plan(s, args)
    return None if planned is None else planned[0]


def apply(s: TerminalState, args: list[str], output: str | None) -> bool:
    """The files after `git clean …` printed `output` (None: not known), where the state knows what it
    removed and the output is what it expected; False elsewhere (the caller forgets)."""
    planned = _plan(s, args)
    if planned is None or output is not None and output != planned[0][0]:
        return False
    for path in planned[1]:  # (none for a dry run or a refusal)
        _remove(s, path.rstrip("/"))
    return True
