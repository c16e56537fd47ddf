"""`git mv SRC DST` in the terminal's state, where it follows the repository: the file or folder moves
as `mv` moves it (into DST where that is a folder), and in the index each tracked file under it
leaves its old path for its new one with the content it had staged (`git status` then shows the
renames). What git refuses (a source missing or untracked, a destination that exists, a path moved
onto itself) is answered as git words it, its paths from the repository's top; options, several
sources, a destination git may also track, are left to the model.

Checked byte for byte against git in the sandbox (tests/test_git_restore.py, benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from . import gitmodes
from .gitindex import _tracked, _untouched
from .state import TerminalState, _abs, _blob, _exists, _within

_WHY = {"missing": "bad source", "untracked": "not under version control", "exists": "destination exists",
        "itself": "can not move directory into itself", "over": "cannot move directory over file",
        "empty": "source directory is empty"}


@dataclass
class Move:
    said: str
    code: int
    src: str = ""
    dst: str = ""
    index: dict[str, str] = field(default_factory=dict)  # path relative to the repository -> staged blob ("": none)
    index_x: dict[str, bool] = field(default_factory=dict)  # the staged blob's mode: 100755 or not (gitmodes.py)


def plan(s: TerminalState, args: list[str]) -> Move | None:
    """What `git mv SRC DST` (`args` from `mv` on) prints and changes, where the state knows it all."""
    g = s.git
    plain = [a for a in args[1:] if a != "--"]
    if args[:1] != ["mv"] or g is None or not g.follows or g.unknown or not g.commits or len(plain) != 2 or \
            any(a.startswith("-") and a != "--" for a in args[1:]) or any(re.search(r"[*?\[\\:]", a) or not a
                                                                        for a in plain):
        return None
    src, dst = _abs(plain[0], s), _abs(plain[1], s)
    if any(not _within(p, g.repo) or p == g.repo or _within(p, posixpath.join(g.repo, ".git")) for p in (src, dst)):
        return None
    if dst in s.dirs:
        dst = posixpath.join(dst, posixpath.basename(src))
    tracked = _tracked(s)
    if tracked is None:
        return None

    def refused(why: str) -> Move:
        rel = [posixpath.relpath(p, g.repo) for p in (src, dst)]
        return Move(f"fatal: {_WHY[why]}, source={rel[0]}, destination={rel[1]}\n", 128)

    if not _exists(src, s):  # (in git's order: the first that holds is said)
        return refused("missing") if _blob(s, src) == "" else None
    if _within(dst, src):
        return refused("itself")
    there = True if _exists(dst, s) else False if _blob(s, dst) == "" else None
    if there is None:
        return None
    if src in s.dirs and there:
        return refused("over")
    moved = [rel for rel in tracked if _within(posixpath.join(g.repo, rel), src)]
    if src in s.dirs and not moved:
        return refused("empty")
    if src in s.files and not moved:
        return refused("untracked")
    if there:
        return refused("exists")
    head = set(_untouched(s)) | {rel for rel, blob in g.base.items() if blob}
    if posixpath.dirname(dst) not in s.dirs or any(_within(posixpath.join(g.repo, rel), dst) for rel in head):
        return None  # (into a folder that is not there, or onto what git tracks)
    out = Move("", 0, src, dst)
    new = posixpath.relpath(dst, g.repo)
    old = posixpath.relpath(src, g.repo)
    for rel in moved:
        staged = g.index.get(rel, g.base[rel]) if rel in g.base else _blob(s, posixpath.join(g.repo, rel))
        if staged is None:
            return None
        out.index[rel] = ""
        out.index[new + rel[len(old):]] = staged
        out.index_x[new + rel[len(old):]] = gitmodes.staged(g, rel)
    return out


def answer(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    planned = plan(s, args)
    return None if planned is None else (planned.said, planned.code)


def apply(s: TerminalState, args: list[str], output: str | None) -> bool:
    """The files and index after `git mv …` printed `output` (None: not known); False where the state
    does not know them, or git printed something else (the caller forgets)."""
    from .effects import _placed  # (which reads this module, through history.py)
    planned = plan(s, args)
    if planned is None or output is not None and output != planned.said:
        return False
    if planned.code:
        return True  # (refused: nothing changed)
    g = s.git
    assert g is not None
    _placed(s, "mv", [], planned.src, planned.dst)  # (the working tree, as mv leaves it)
    for rel, staged in planned.index.items():
        if staged:  # (a new path: the last commit had none there, checked above)
            g.base[rel] = ""
        if staged == g.base[rel]:
            g.index.pop(rel, None)
        else:
            g.index[rel] = staged
        gitmodes.set_staged(g, rel, planned.index_x.get(rel, False))
    return True
