"""git's file modes: a file with the user's x bit is 100755 to git, any other 100644.

git keeps a file's mode in the index and in each commit's tree, and compares the working tree's with
the index's (core.fileMode, on by default): after `chmod +x` of a file git tracks, `git status` says
` M`, `git diff` prints `old mode 100644` / `new mode 100755`, `git commit` says `mode change 100644 =>
100755 run.sh` (or `create mode 100755` for a new file) and writes 100755 in its tree, so the commit's
id depends on it. The working tree's modes are modes.py's (`TerminalState.modes`); the last commit's
are `GitState.head_x` (the files it has as 100755: the world's repository has none), the index's
`GitState.index_x` where they differ from the commit's. A file whose mode changes is `_touched`, so it
is among the paths `base` lists, and each answer that compares two sides compares their modes too.

The git commands that answer from or change the modes here are the reads, `add`, `commit`, and the
ones that put files back or take them out (checkout, restore, reset, rm, mv: gitrestore, gitrm and
gitmv work out each file's mode too, and a file git writes back is 755 or 644). Any other (stash,
clean, merge…) is followed as before where no mode differs anywhere (`settled`: then whatever git
writes back keeps its mode); otherwise, while a file of mode 100755 is in play, it is left to the
model, and what it did to the modes is not followed (`x_lost`) until a commit of everything (`git add
-A`) makes the last commit's modes the working tree's again.
"""

from __future__ import annotations

import posixpath

from . import modes
from .state import GitState, TerminalState, _within

EXEC, PLAIN = "100755", "100644"
# git commands whose answers here read the modes, and whose effects on them are followed
AWARE = frozenset({"status", "diff", "log", "show", "grep", "ls-files", "rev-parse", "describe", "branch", "tag",
                   "add", "commit", "blame", "shortlog", "config", "remote", "init", "help", "version", "--version",
                   "checkout", "switch", "restore", "reset", "rm", "mv"})


def text(executable: bool) -> str:
    """The mode git writes: 100755 or 100644."""
    return EXEC if executable else PLAIN


def head(g: GitState, rel: str) -> bool:
    """The last commit has `rel` as 100755."""
    return rel in g.head_x


def staged(g: GitState, rel: str) -> bool:
    """The index has `rel` as 100755."""
    return g.index_x.get(rel, rel in g.head_x)


def work(s: TerminalState, rel: str) -> bool | None:
    """The working tree's file `rel` has the user's x bit; None where its mode is not known."""
    assert s.git is not None
    mode = modes.of(posixpath.join(s.git.repo, rel), s)
    return None if mode is None else bool(mode & 0o100)


def committed(s: TerminalState, every_tracked: bool) -> dict[str, bool] | None:
    """The mode (100755 or not) each path `base` lists has in the index a commit takes (`-a`: each
    tracked file's as the working tree has it); None where one is not known."""
    g = s.git
    assert g is not None
    out: dict[str, bool] = {}
    for rel, head_blob in g.base.items():
        x: bool | None = staged(g, rel)
        if every_tracked and g.index.get(rel, head_blob):
            x = work(s, rel)
        if x is None:
            return None
        out[rel] = x
    return out


def set_staged(g: GitState, rel: str, executable: bool) -> None:
    """The index has `rel` as 100755 (`executable`) or 100644 now."""
    if executable == head(g, rel):
        g.index_x.pop(rel, None)
    else:
        g.index_x[rel] = executable


def stage(s: TerminalState, rel: str) -> None:
    """`git add` took `rel` as the working tree has it: its mode too."""
    g = s.git
    assert g is not None
    x = work(s, rel)
    if x is None:
        g.x_lost = True
    else:
        set_staged(g, rel, x)


def after_commit(s: TerminalState, taken: dict[str, bool] | None, everything: bool, ignored: set[str]) -> None:
    """A commit was made: of the paths `base` listed, with the modes `taken` (False for a path it
    removed; None: not known, and then neither is the tree: the state stops following the
    repository until a commit of everything), or (`everything`) of every file of the working tree
    but the `ignored` ones."""
    g = s.git
    assert g is not None
    g.index_x = {}
    if everything:
        files = [p for p in s.files if _within(p, g.repo) and p != g.repo and p not in s.dirs and
                 not _within(p, posixpath.join(g.repo, ".git"))]
        held = {posixpath.relpath(p, g.repo): modes.of(p, s) for p in files}
        g.x_lost = any(m is None for m in held.values())
        g.head_x = sorted((rel for rel, m in held.items() if m is not None and m & 0o100 and rel not in ignored),
                          key=lambda rel: rel.encode())
        return
    if taken is None:
        return
    now = set(g.head_x) - set(taken) | {rel for rel, x in taken.items() if x}
    g.head_x = sorted(now, key=lambda rel: rel.encode())


def involved(s: TerminalState) -> bool:
    """A file git tracks or has staged is, or was at the last commit, 100755 (or its mode is not known)."""
    g = s.git
    if g is None:
        return False
    if g.head_x or any(g.index_x.values()):
        return True
    return any((mode is None or mode & 0o100) and _within(path, g.repo) and path not in s.dirs and
               not _untracked(g, posixpath.relpath(path, g.repo)) for path, mode in s.modes.items())


def _untracked(g: GitState, rel: str) -> bool:
    """The state follows the repository and knows `rel` is neither at the last commit nor staged."""
    return g.follows and g.base.get(rel) == "" and g.index.get(rel, "") == ""


def lost(s: TerminalState) -> bool:
    """What git's modes are is not known: a git command not followed through them ran while one was
    in play, or a file of the repository has a mode not known."""
    g = s.git
    if g is None:
        return False
    return g.x_lost or any(mode is None and _within(path, g.repo) and path not in s.dirs
                           for path, mode in s.modes.items())


def aware(args: list[str]) -> bool:
    """git's command (its words after `git` and its `-c` options) answers from the modes here, and
    what it does to them is followed (a new branch made where the shell is: nothing)."""
    return bool(args) and args[0] in AWARE or len(args) == 3 and args[:2] in (["checkout", "-b"], ["switch", "-c"])


def settled(s: TerminalState) -> bool:
    """No file's mode differs between the last commit, the index and the working tree, and each one
    the state holds in the repository is one git writes (644 or 755): whatever git writes back has
    the mode it had, so a command not followed through the modes leaves them as they are."""
    g = s.git
    if g is None or not g.follows or lost(s) or g.index_x:
        return False
    for path, mode in s.modes.items():
        if not _within(path, g.repo) or path in s.dirs or _within(path, posixpath.join(g.repo, ".git")):
            continue
        rel = posixpath.relpath(path, g.repo)
        if mode not in (0o644, 0o755) or not _untracked(g, rel) and bool(mode & 0o100) != staged(g, rel):
            return False
    return all(work(s, rel) for rel in g.head_x if posixpath.join(g.repo, rel) in s.files)


def snapshot(s: TerminalState) -> dict[str, int | None]:
    """The modes the state holds of the repository's files (`written_back` puts them back)."""
    g = s.git
    return {} if g is None else {p: m for p, m in s.modes.items() if _within(p, g.repo) and p not in s.dirs}


def written_back(s: TerminalState, before: dict[str, int | None]) -> None:
    """git wrote files of a `settled` repository back (a stash, a clean): each it left there has the
    mode it had (git writes 755 for 100755, 644 for 100644, and they agreed)."""
    for path, mode in before.items():
        if path in s.files and path not in s.modes:
            s.modes[path] = mode


def unanswered(s: TerminalState, args: list[str]) -> bool:
    """git's command `args` is left to the model: the modes are not known, or it is one that does
    not read them here while a file of mode 100755 is in play and a mode differs somewhere."""
    return lost(s) or not aware(args) and involved(s) and not settled(s)


def lose(s: TerminalState) -> None:
    """A git command not followed through the modes ran while a file of mode 100755 was in play and
    a mode differed: the index's and the last commit's are not known (nor the changes since) until a
    commit of everything."""
    g = s.git
    if g is not None and involved(s):
        g.x_lost, g.follows = True, False


def pair(old: bool, new: bool) -> tuple[str, str] | None:
    """A path's two modes as a diff shows them, where either is 100755."""
    return (text(old), text(new)) if old or new else None
