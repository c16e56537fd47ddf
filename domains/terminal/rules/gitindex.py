"""What git's index and working tree hold in the terminal's state: the paths tracked, what each
changed path is in the index and the working tree beside HEAD (`git status`'s letters), and the index
a commit takes. repository.py answers git's commands from these; gitmv, gitrm, gitrestore and
history.py read them too.
"""

from __future__ import annotations

import posixpath
import re

from . import gitignore, gitmodes, gitstatus
from .state import TerminalState, _blob, _kept, _within


def _committed(s: TerminalState, every_tracked: bool) -> dict[str, str | None] | None:
    """The blob each changed path has in the index a commit takes (`-a`: every tracked file's change
    staged first); None where the state does not follow the repository or does not know a blob."""
    g = s.git
    if g is None or not g.follows:
        return None
    index = {rel: g.index.get(rel, head) for rel, head in g.base.items()}
    if every_tracked:
        for rel, staged in index.items():
            if staged:  # tracked: its change, a removal too, goes in
                index[rel] = _kept(s, posixpath.join(g.repo, rel))
    return None if any(v is None for v in index.values()) else index


def _untouched(s: TerminalState) -> dict[str, str | None]:
    """The repository's files nothing wrote or removed since the last commit (relative to it): as
    the commit has them, with their contents where known."""
    g = s.git
    assert g is not None
    nested = [posixpath.join(g.repo, ".git"), *(r for r in s.other_repos if r != g.repo)]
    return {posixpath.relpath(p, g.repo): c for p, c in s.files.items()
            if _within(p, g.repo) and p != g.repo and p not in s.dirs and posixpath.relpath(p, g.repo) not in g.base
            and not any(_within(p, n) for n in nested) and not any(_within(p, d) for d in s.deleted)}


def _tracked(s: TerminalState) -> list[str] | None:
    """The paths in git's index (relative to the repository), in its order; None where the state does
    not follow every change, or git would quote a name."""
    g = s.git
    if g is None or not g.follows or ignoring(s) is None:
        return None  # (a world's file git ignores is not tracked: what is, is not known)
    unchanged = _untouched(s)
    if any(g.index.get(rel, head) is None for rel, head in g.base.items()):
        return None  # (a path whose blob, and so whether the index has it, is not known)
    tracked = set(unchanged) | {rel for rel, head in g.base.items() if g.index.get(rel, head) != ""}
    if any(not re.fullmatch(r"[A-Za-z0-9._/+@=,-]+", rel) for rel in tracked):
        return None
    return sorted(tracked, key=lambda rel: rel.encode())


def changes(s: TerminalState, relative_to: str) -> list[tuple[str, str]] | None:
    """What `git status --short` lists, as (path relative to `relative_to`, status letters), sorted
    as git sorts them; None where the state does not know it all."""
    g = s.git
    if g is None or not g.follows or not g.others_known:
        return None
    out: list[tuple[str, str]] = []
    untracked: set[str] = set()
    for rel in sorted(g.base, key=lambda p: p.encode()):
        head = g.base[rel]
        staged = g.index.get(rel, head)
        path = posixpath.join(g.repo, rel)
        work = _blob(s, path)
        if work is None and staged == "" and path in s.files and path not in s.deleted and path not in s.dirs:
            work = "?"  # a file git does not track: that it is there is all that shows (`??`)
        if head is None or staged is None or work is None:
            return None
        if not re.fullmatch(r"[A-Za-z0-9._/+@=,-]+", rel):
            return None  # git quotes names with spaces and other characters: not written here
        if staged == "":
            if head:
                out.append((rel, "D "))
            if work:
                untracked.add(rel)
            continue
        # (a file's mode is compared too, where the file is on both sides: gitmodes.py)
        head_x, staged_x, work_x = gitmodes.head(g, rel), gitmodes.staged(g, rel), gitmodes.work(s, rel)
        if work and work_x is None:
            return None
        x = " " if staged == head and (not head or head_x == staged_x) else ("A" if not head else "M")
        y = " " if work == staged and (not work or staged_x == work_x) else ("D" if not work else "M")
        if x + y != "  ":
            out.append((rel, x + y))
    ignored: set[str] = set()  # (untracked, but not listed: neither are they tracked, for the folders shown)
    if untracked:
        ignores = ignoring(s)
        if ignores is None:
            return None  # what is ignored: not known
        ignored = {rel for rel in untracked if ignores(rel, False)}
        untracked -= ignored
    renamed = gitstatus.renames(g, out)
    if renamed is None:
        return None
    shown: set[str] = set()
    for rel in untracked:  # a folder holding no tracked file is shown once, as the folder
        parts = rel.split("/")
        for n in range(1, len(parts)):
            folder = "/".join(parts[:n])
            full = posixpath.join(g.repo, folder)
            if not _tracked_under(s, full, untracked | ignored):
                if any(_within(d, full) and d not in s.known_dirs for d in s.dirs):
                    return None  # a file the state does not know of may be tracked there
                shown.add(folder + "/")
                break
        else:
            shown.add(rel)
    out = [(f"{renamed[p]} -> {p}", "R" + xy[1]) if p in renamed else (p, xy) for p, xy in out
           if p not in renamed.values()]
    out += [(p, "??") for p in sorted(shown, key=lambda p: p.encode())]
    return [(" -> ".join(posixpath.relpath(posixpath.join(g.repo, q), relative_to) for q in p.split(" -> ")) +
             ("/" if p.endswith("/") else ""), xy) for p, xy in out]


def _tracked_under(s: TerminalState, folder: str, untracked: set[str]) -> bool:
    """Some file under `folder` is tracked (all of them are but the untracked ones)."""
    g = s.git
    assert g is not None
    return any(_within(p, folder) and _blob(s, p) != "" and posixpath.relpath(p, g.repo) not in untracked
               for p in s.files) or any(_within(posixpath.join(g.repo, rel), folder) and g.index.get(rel, head)
                                        for rel, head in g.base.items())


def ignoring(s: TerminalState) -> gitignore.Ignores | None:
    """Whether git ignores a path (gitignore.rules), where the state's picture of what is tracked
    holds: none of the files it takes for tracked (those nothing changed since the last commit) is
    one git ignores. A world may declare such a file, and the sandbox's `git add -A` leaves it out
    of the first commit."""
    ignores = gitignore.rules(s)
    g = s.git
    assert g is not None
    if ignores is None or any(ignores(rel, False) for rel in _untouched(s)):
        return None
    return ignores


def refused(s: TerminalState, paths: list[str], ignores: gitignore.Ignores | None) -> list[str] | None:
    """What of the (absolute) paths `git add` is given git ignores (`ignores`: the repository's, as
    `ignoring` reads them), as it names them when it refuses them: the outermost ignored folder on each
    one's way, or the file, relative to the repository, sorted; None where that is not known (what is
    ignored, or a path there is tracked, which git adds all the same)."""
    g = s.git
    assert g is not None
    if ignores is None:
        return None
    named: set[str] = set()
    for path in paths:
        at = ignores.where(posixpath.relpath(path, g.repo), path in s.dirs) if path != g.repo else None
        if at is None:
            continue
        full = posixpath.join(g.repo, at)
        tracked = [rel for rel, head in g.base.items() if head or g.index.get(rel)] + list(_untouched(s))
        if any(_within(posixpath.join(g.repo, rel), full) for rel in tracked):
            return None
        named.add(at)
    return sorted(named, key=lambda rel: rel.encode())
