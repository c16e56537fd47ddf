"""`git rm [-r] [--cached] [-f] [-q] PATHS` in the terminal's state, where it follows the repository:
what git prints (each file it takes out of the index, from the repository's top; the first name it
refuses, and why), the index after it, and the files and the folders it leaves empty removed from
the working tree (not with --cached; never the shell's own folder). A file whose change git would
refuse to lose without -f is left to the model. Worked out once as gitrestore's Plan, so the answer
and the state after it agree.

Checked byte for byte against git in the sandbox (tests/test_git_restore.py, benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import posixpath
import re

from . import gitmodes
from .gitrestore import Plan, carry_out, emptied_known
from .gitindex import _tracked
from .state import TerminalState, _abs, _blob, _within

NOT_MATCHED = "fatal: pathspec '{}' did not match any files\n"
NOT_RECURSIVE = "fatal: not removing '{}' recursively without -r\n"


def _options(args: list[str]) -> tuple[set[str], list[str]] | None:
    """(the options, as letters q r f and "cached"; the paths) of `git rm …`; None for another option."""
    options: set[str] = set()
    paths: list[str] = []
    for i, a in enumerate(args):
        if a == "--":
            return options, paths + args[i + 1:]
        if a in ("--quiet", "--cached", "--force"):
            options.add({"--quiet": "q", "--cached": "cached", "--force": "f"}[a])
        elif re.fullmatch(r"-[qrf]+", a):
            options |= set(a[1:])
        elif a.startswith("-"):
            return None
        else:
            paths.append(a)
    return options, paths


def plan(s: TerminalState, args: list[str]) -> Plan | None:
    """What `git rm …` (`args` from `rm` on) prints and changes, where the state knows it all."""
    g = s.git
    parsed = _options(args[1:]) if args[:1] == ["rm"] else None
    if parsed is None or g is None or not g.follows or g.unknown or not g.commits or not parsed[1]:
        return None
    options, paths = parsed
    tracked = _tracked(s)
    if tracked is None or any(not p or re.search(r"[*?\[\\:]", p) for p in paths):
        return None
    matched: list[str] = []
    for typed in paths:
        named = _abs(typed, s)
        if not _within(named, g.repo) or _within(named, posixpath.join(g.repo, ".git")):
            return None
        these = [rel for rel in tracked if _within(posixpath.join(g.repo, rel), named)]
        if not these:
            return Plan(NOT_MATCHED.format(typed), 128)
        if "r" not in options and any(posixpath.join(g.repo, rel) != named for rel in these):
            return Plan(NOT_RECURSIVE.format(typed), 128)
        matched += [rel for rel in these if rel not in matched]
    out = Plan("", 0)
    for rel in sorted(matched, key=lambda r: r.encode()):
        path = posixpath.join(g.repo, rel)
        head, work = g.base.get(rel, _blob(s, path)), _blob(s, path)
        staged = g.index.get(rel, head)
        if head is None or work is None or staged is None:
            return None
        # (each side's blob with its mode: a change of mode alone is a change git refuses to lose too)
        head_x, staged_x = gitmodes.head(g, rel) and bool(head), gitmodes.staged(g, rel) and bool(staged)
        work_x = gitmodes.work(s, rel) if work else False
        if work_x is None:
            return None
        sides = (head, head_x), (staged, staged_x), (work, work_x)
        if "f" not in options and (sides[1] != sides[0] and sides[1] != sides[2] if "cached" in options else
                                   sides[1] != sides[0] or sides[2] not in (sides[1], ("", False))):
            return None  # (git refuses to lose a change: what it lists, left to the model)
        out.index[rel] = ""
        if "cached" not in options and work:
            if not emptied_known(s, path):
                return None
            out.removes.append(path)
        if "q" not in options:
            out.said = (out.said or "") + f"rm '{rel}'\n"
    return out


def answer(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    planned = plan(s, args)
    return None if planned is None or planned.said is None else (planned.said, planned.code)


def apply(s: TerminalState, args: list[str], output: str | None) -> bool:
    """The index and files after `git rm …` printed `output` (None: not known); False where the state
    does not know them, or git printed something else (the caller forgets)."""
    planned = plan(s, args)
    if planned is None or output is not None and output != planned.said:
        return False
    if planned.code == 0:
        carry_out(s, planned)
    return True
