"""What a repository's `.git` folder holds right after the world's seed commit (`git init -b BRANCH
&& git add -A && git commit`, as the shadow sandbox makes it): each file and folder, and each
file's size, so that `find` can count and filter what is below a repository's top and `du` can add
it up. The rest of `.git` is git's own: what `git init` copies from git's template folder (the
sample hooks, `description`, `info/exclude`: read here from the template folder of the git this
machine has, the one the sandbox runs), the files it writes (`HEAD`, `config`, the branch, its log,
`COMMIT_EDITMSG`, `index`), and one loose object per distinct blob and tree and the commit, each
compressed as git writes loose objects (zlib, `core.looseCompression`'s default: 1). Checked
against git in the sandbox (benchmarks/state_vs_real.py, tests/test_state.py).
"""

from __future__ import annotations

import functools
import os
import posixpath
import shutil
import zlib

from . import gitobjects
from .repository import _untouched
from .state import TerminalState

# What `git init` writes itself (git 2.x), beside the template's files
CONFIG = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"
FOLDERS = ("objects", "objects/info", "objects/pack", "refs", "refs/heads", "refs/tags")
ZERO = "0" * 40


@functools.lru_cache(maxsize=1)
def template() -> tuple[tuple[str, int | None], ...] | None:
    """git's template folder as `git init` copies it: (path within it, size; None for a folder);
    None where this machine has no git, or its templates are not where git's prefix puts them."""
    git = shutil.which("git")
    if git is None:
        return None
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(git))), "share", "git-core", "templates")
    if not os.path.isdir(root):
        return None
    found: list[tuple[str, int | None]] = []
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        if rel != ".":
            found.append((rel, None))
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                return None  # (copied as a link: not followed here)
            found.append((os.path.relpath(path, root), os.path.getsize(path)))
    return tuple(sorted(found))


def _index_size(paths: list[str]) -> int:
    """The size of the index `git commit` leaves: a version 2 header, one entry per file (62 bytes,
    the path, NUL padding to a multiple of 8), the cache tree it records (each folder: its path
    part, NUL, the files below and the folders in it, its tree id) and the checksum."""
    size = 12 + sum((62 + len(p.encode()) + 8) // 8 * 8 for p in paths)
    folders: dict[str, tuple[int, set[str]]] = {"": (0, set())}
    for path in paths:
        parts = path.split("/")[:-1]
        for depth in range(len(parts) + 1):
            here = "/".join(parts[:depth])
            count, inside = folders.setdefault(here, (0, set()))
            folders[here] = (count + 1, inside | ({parts[depth]} if depth < len(parts) else set()))
    tree = sum(len(posixpath.basename(f).encode()) + 1 + len(f"{count} {len(inside)}\n") + 20
               for f, (count, inside) in folders.items())
    return size + 8 + tree + 20


def _loose(kind: str, body: bytes) -> int:
    """The size of a loose object file: its header and body, compressed."""
    return len(zlib.compress(f"{kind} {len(body)}\0".encode() + body, 1))


def layout(files: dict[str, str], branch: str, who: str, epoch: int, message: str) -> list[tuple[str, int | None]] | None:
    """`.git`'s entries (path within it, size in bytes; None for a folder) after the seed commit of
    `files` (relative paths: contents) on `branch`, by `who` ("name <email>") at `epoch`; None where
    not known here (no template, a tree too deep, a message git would clean up)."""
    found = template()
    if found is None or any(p.count("/") > gitobjects.MAX_DEPTH for p in files) or \
            message != message.strip() or "\n" in message or not message:
        return None
    blobs = {p: gitobjects.blob_id(text) for p, text in files.items()}
    trees: dict[str, bytes] = {}
    root = gitobjects.tree_of(blobs, trees)
    head = gitobjects.commit_id(root, "", who, epoch, message)
    stamp = f"{who} {epoch} +0000"
    commit = f"tree {root}\nauthor {stamp}\ncommitter {stamp}\n\n{message}\n".encode()
    objects = {blob: _loose("blob", files[p].encode()) for p, blob in blobs.items()}
    objects.update({made: _loose("tree", body) for made, body in trees.items()})
    objects[head] = _loose("commit", commit)
    logged = len(f"{ZERO} {head} {stamp}\tcommit (initial): {message}\n".encode())
    entries: dict[str, int | None] = dict(found)
    entries.update({folder: None for folder in FOLDERS})
    entries.update({"HEAD": len(f"ref: refs/heads/{branch}\n"), "config": len(CONFIG),
                    "COMMIT_EDITMSG": len(message.encode()) + 1, "index": _index_size(sorted(files)),
                    f"refs/heads/{branch}": 41, "logs/HEAD": logged, f"logs/refs/heads/{branch}": logged})
    for made, size in objects.items():
        entries[f"objects/{made[:2]}"] = None
        entries[f"objects/{made[:2]}/{made[2:]}"] = size
    for path in list(entries):  # (the folders on the way: logs/refs/heads, a branch's own folders)
        folder = posixpath.dirname(path)
        while folder and folder not in entries:
            entries[folder] = None
            folder = posixpath.dirname(folder)
    return sorted(entries.items())


def of_repository(s: TerminalState) -> list[tuple[str, int | None]] | None:
    """`.git`'s entries (as `layout`) of the state's repository, where it is as the world's seed
    commit left it (GitState.pristine) and the state knows every file that commit holds."""
    g = s.git
    if g is None or not g.pristine or not g.follows or g.unknown or len(g.commits) != 1 or len(g.made) != 1 or \
            g.made[0] is None or g.branches != [g.branch]:
        return None
    committed = _untouched(s)
    committed.update({rel: g.texts.get(head) for rel, head in g.base.items() if head})
    if any(text is None for text in committed.values()):
        return None
    return layout(committed, g.branch, g.made[0].who, g.made[0].when, g.commits[0])  # type: ignore[arg-type]
