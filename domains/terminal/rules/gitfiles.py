"""What a repository's `.git` folder holds right after the world's seed commit (`git init -b BRANCH
&& git add -A && git commit`, as the shadow sandbox makes it): each file and folder, each file's
size and what it holds, so that `find` can count and filter what is below a repository's top, `du`
can add it up, `grep -r` can tell a word is in none of it, and `ls .git` and `cat .git/HEAD` are
answered. The rest of `.git` is git's own: what `git init` copies from git's template folder (the
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
from typing import NamedTuple

from . import gitobjects
from .gitindex import _untouched
from .state import TerminalState

# What `git init` writes itself (git 2.x), beside the template's files
CONFIG = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"
FOLDERS = ("objects", "objects/info", "objects/pack", "refs", "refs/heads", "refs/tags")
ZERO = "0" * 40
MAX_TEMPLATE = 1_000_000  # bytes of one template file (git's own are a few KiB)


class Entry(NamedTuple):
    """A file or folder in .git: its size (None for a folder) and its bytes where known (the index's
    only in part: what git writes of each file's stat data is the machine's, not the state's)."""
    size: int | None
    data: bytes | None = None


def _template_root() -> str | None:
    git = shutil.which("git")
    if git is None:
        return None
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(git))), "share", "git-core", "templates")
    return root if os.path.isdir(root) else None


@functools.lru_cache(maxsize=1)
def template() -> tuple[tuple[str, Entry], ...] | None:
    """git's template folder as `git init` copies it: (path within it, what is there); None where this
    machine has no git, or its templates are not where git's prefix puts them."""
    root = _template_root()
    if root is None:
        return None
    found: list[tuple[str, Entry]] = []
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        if rel != ".":
            found.append((rel, Entry(None)))
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path) or os.path.getsize(path) > MAX_TEMPLATE:
                return None  # (copied as a link, or a template of its own: not followed here)
            with open(path, "rb") as f:
                data = f.read()
            found.append((os.path.relpath(path, root), Entry(len(data), data)))
    return tuple(sorted(found))


def _index(files: dict[str, str], trees: dict[str, str]) -> Entry:
    """The index `git commit` leaves: its size (a version 2 header; one entry per file: 62 bytes, the
    path, NUL padding to a multiple of 8; the cache tree: each folder's path part, NUL, the files
    below and the folders in it, its tree id; the checksum) and the parts of it that do not depend
    on the files' stat data (times, device, inode, owner), NUL-separated: what a search may match."""
    paths = sorted(files, key=lambda p: p.encode())
    known = [b"DIRC" + (2).to_bytes(4, "big") + len(paths).to_bytes(4, "big")]
    size = 12
    for path in paths:
        name, blob = path.encode(), bytes.fromhex(gitobjects.blob_id(files[path]))
        length = (62 + len(name) + 8) // 8 * 8
        known.append(len(files[path].encode()).to_bytes(4, "big") + blob + min(len(name), 0xFFF).to_bytes(2, "big") +
                     name + b"\0" * (length - 62 - len(name)))
        size += length
    counts: dict[str, int] = {}  # each folder: the files below it
    inside: dict[str, set[str]] = {}  # each folder: the folders in it
    for path in paths:
        parts = path.split("/")[:-1]
        for depth in range(len(parts) + 1):
            here = "/".join(parts[:depth])
            counts[here] = counts.get(here, 0) + 1
            inside.setdefault(here, set()).update(parts[depth:depth + 1])
    cache = b"".join(posixpath.basename(f).encode() + b"\0" + f"{counts[f]} {len(inside[f])}\n".encode() +
                     bytes.fromhex(trees[f]) for f in _walk(inside))
    known.append(b"TREE" + len(cache).to_bytes(4, "big") + cache)
    return Entry(size + 8 + len(cache) + 20, b"\0".join(known))


def _walk(inside: dict[str, set[str]]) -> list[str]:
    """The folders as git writes its cache tree: each after its parent, the folders in one by the
    length of their names, then by their bytes (cache-tree.c's order)."""
    out, stack = [], [""]
    while stack:
        here = stack.pop()
        out.append(here)
        names = sorted(inside[here], key=lambda n: (len(n.encode()), n.encode()))
        stack.extend(reversed([f"{here}/{n}".lstrip("/") for n in names]))
    return out


def _loose(kind: str, body: bytes) -> bytes:
    """A loose object file: its header and body, compressed."""
    return zlib.compress(f"{kind} {len(body)}\0".encode() + body, 1)


def entries(files: dict[str, str], branch: str, who: str, epoch: int, message: str) -> dict[str, Entry] | None:
    """`.git`'s entries (path within it: what is there) after the seed commit of `files` (relative
    paths: contents) on `branch`, by `who` ("name <email>") at `epoch`; None where not known here (no
    template, a tree too deep, a message git would clean up)."""
    return _entries(tuple(sorted(files.items())), branch, who, epoch, message)


@functools.lru_cache(maxsize=8)  # (asked again at each step that walks the repository: the same answer)
def _entries(items: tuple[tuple[str, str], ...], branch: str, who: str, epoch: int,
             message: str) -> dict[str, Entry] | None:
    files = dict(items)
    found = template()
    if found is None or any(p.count("/") > gitobjects.MAX_DEPTH for p in files) or \
            message != message.strip() or "\n" in message or not message:
        return None
    blobs = {p: gitobjects.blob_id(text) for p, text in files.items()}
    trees: dict[str, bytes] = {}
    folders: dict[str, str] = {}
    root = gitobjects.tree_of(blobs, trees, folders)
    head = gitobjects.commit_id(root, "", who, epoch, message)
    stamp = f"{who} {epoch} +0000"
    commit = f"tree {root}\nauthor {stamp}\ncommitter {stamp}\n\n{message}\n".encode()
    objects = {blob: _loose("blob", files[p].encode()) for p, blob in blobs.items()}
    objects.update({made: _loose("tree", body) for made, body in trees.items()})
    objects[head] = _loose("commit", commit)
    logged = f"{ZERO} {head} {stamp}\tcommit (initial): {message}\n".encode()
    out: dict[str, Entry] = dict(found)
    out.update({folder: Entry(None) for folder in FOLDERS})
    written = {"HEAD": f"ref: refs/heads/{branch}\n".encode(), "config": CONFIG.encode(),
               "COMMIT_EDITMSG": f"{message}\n".encode(), f"refs/heads/{branch}": f"{head}\n".encode(),
               "logs/HEAD": logged, f"logs/refs/heads/{branch}": logged}
    out.update({path: Entry(len(data), data) for path, data in written.items()})
    out["index"] = _index(files, folders)
    for made, data in objects.items():
        out[f"objects/{made[:2]}"] = Entry(None)
        out[f"objects/{made[:2]}/{made[2:]}"] = Entry(len(data), data)
    for path in list(out):  # (the folders on the way: logs/refs/heads, a branch's own folders)
        folder = posixpath.dirname(path)
        while folder and folder not in out:
            out[folder] = Entry(None)
            folder = posixpath.dirname(folder)
    return dict(sorted(out.items()))


def layout(files: dict[str, str], branch: str, who: str, epoch: int, message: str) -> list[tuple[str, int | None]] | None:
    """`entries` as (path, size; None for a folder), in path order."""
    found = entries(files, branch, who, epoch, message)
    return None if found is None else [(path, entry.size) for path, entry in found.items()]


def _seed_commit(s: TerminalState) -> tuple[dict[str, str], str, str, int, str] | None:
    """What the world's seed commit was made of (`entries`' arguments), where .git is as it left it
    (GitState.pristine) and the state knows every file that commit holds."""
    g = s.git
    if g is None or not g.pristine or not g.follows or g.unknown or len(g.commits) != 1 or len(g.made) != 1 or \
            g.made[0] is None or g.branches != [g.branch]:
        return None
    committed = _untouched(s)
    committed.update({rel: g.texts.get(head) for rel, head in g.base.items() if head})
    if any(text is None for text in committed.values()):
        return None
    return committed, g.branch, g.made[0].who, g.made[0].when, g.commits[0]  # type: ignore[return-value]


def of_repository(s: TerminalState) -> dict[str, Entry] | None:
    """`.git`'s entries (as `entries`) of the state's repository, where it is as the world's seed
    commit left it and the state knows every file that commit holds."""
    seed = _seed_commit(s)
    return None if seed is None else entries(*seed)


# What git (2.39) makes in .git after the template's entries, in order: `git init`'s own, and then
# `git commit`'s (the objects between them: `_objects_made`). Checked with `find .git` in the sandbox.
INIT_MADE = ("refs", "refs/heads", "refs/tags", "HEAD", "config", "objects", "objects/pack", "objects/info")
COMMIT_MADE = ("index", "COMMIT_EDITMSG", "logs", "logs/HEAD", "logs/refs")


@functools.lru_cache(maxsize=1)
def _template_made() -> tuple[str, ...] | None:
    """The template's paths in the order `git init` copies them (copy_templates_1): each folder's
    entries in the order the file system hands them out (readdir, as os.scandir reads them), a
    folder's own right after it."""
    root = _template_root()
    if root is None:
        return None
    out: list[str] = []

    def copy(folder: str, rel: str) -> None:  # (the template is two folders deep)
        with os.scandir(folder) as found:
            inside = [(e.path, f"{rel}/{e.name}".lstrip("/"), e.is_dir(follow_symlinks=False)) for e in found]
        for path, name, is_dir in inside:
            out.append(name)
            if is_dir:
                copy(path, name)
    copy(root, "")
    return tuple(out)


def _objects_made(files: dict[str, str], branch: str, who: str, epoch: int, message: str) -> list[str]:
    """The object ids in the order `git add -A && git commit` writes them: each distinct blob as the
    paths come in byte order, each folder's tree after the trees of the folders in it (cache-tree's
    walk of the index), the commit."""
    blobs = {p: gitobjects.blob_id(text) for p, text in files.items()}
    named: dict[str, str] = {}
    root = gitobjects.tree_of(blobs, None, named)
    paths = sorted(files, key=lambda p: p.encode())
    order = list(dict.fromkeys(blobs[p] for p in paths))
    inside: dict[str, list[str]] = {}  # each folder: the folders in it, as their paths first come in the index
    for path in paths:
        parts = path.split("/")[:-1]
        for depth in range(len(parts)):
            here, sub = "/".join(parts[:depth]), "/".join(parts[:depth + 1])
            if sub not in inside.setdefault(here, []):
                inside[here].append(sub)
    trees: list[str] = []
    stack = [("", False)]
    while stack:
        folder, done = stack.pop()
        if done:
            trees.append(named[folder])
            continue
        stack.append((folder, True))
        stack.extend((sub, False) for sub in reversed(inside.get(folder, [])))
    order += [t for t in dict.fromkeys(trees) if t not in order]
    return order + [gitobjects.commit_id(root, "", who, epoch, message)]


def walk(s: TerminalState) -> list[tuple[str, bool]] | None:
    """The entries of the repository's .git (relative to it; is a folder) in the order find and
    grep -r walk them: each folder's entries newest first (the sandbox's tmpfs hands them out so), a
    folder's own right after it. Where .git is as the world's commit left it, but that `git status`
    may have written the index anew (GitState.index_moved: the index is then where the commit left
    it, and the caller must not rely on that); None where not known."""
    seed = _seed_commit(s)
    if seed is None:
        return None
    found = _walked(tuple(sorted(seed[0].items())), *seed[1:])
    return None if found is None else list(found)


@functools.lru_cache(maxsize=8)  # (asked again at each find and grep -r of the repository: the same answer)
def _walked(items: tuple[tuple[str, str], ...], branch: str, who: str, epoch: int,
            message: str) -> tuple[tuple[str, bool], ...] | None:
    files = dict(items)
    laid = _entries(items, branch, who, epoch, message)
    made = _template_made()
    if laid is None or made is None:
        return None
    order = list(made) + list(INIT_MADE)
    for oid in _objects_made(files, branch, who, epoch, message):
        order += [f"objects/{oid[:2]}", f"objects/{oid[:2]}/{oid[2:]}"]
    order += COMMIT_MADE
    rank: dict[str, int] = {}
    for path in order + list(laid):  # (the rest, in any order: each the only one in its folder)
        rank.setdefault(path, len(rank))
    if set(rank) != set(laid):
        return None  # (a template or a layout not as this was written for)
    children: dict[str, list[str]] = {}
    for path in laid:
        children.setdefault(posixpath.dirname(path), []).append(path)
    out: list[tuple[str, bool]] = []
    stack = [sorted(children.get("", []), key=lambda p: rank[p])]  # (each list popped from its end: newest first)
    while stack:
        if not stack[-1]:
            stack.pop()
            continue
        path = stack[-1].pop()
        is_dir = laid[path].size is None
        out.append((path, is_dir))
        if is_dir:
            stack.append(sorted(children.get(path, []), key=lambda p: rank[p]))
    return tuple(out)


def _within_git(path: str, s: TerminalState) -> tuple[dict[str, Entry], str] | None:
    """The entries of the repository's .git and `path` within it ("" for .git itself), where `path`
    is .git or below it and .git is as the world's commit left it."""
    if s.git is None:
        return None
    git = posixpath.join(s.git.repo, ".git")
    if path != git and not path.startswith(git + "/"):
        return None
    laid = of_repository(s)
    return None if laid is None else (laid, path[len(git):].lstrip("/"))


def listing(folder: str, s: TerminalState) -> list[str] | None:
    """The names in `folder`, .git or a folder in it (None: not one, or not known), in no order."""
    found = _within_git(folder, s)
    if found is None:
        return None
    laid, rel = found
    if rel and (rel not in laid or laid[rel].size is not None):
        return None
    return [posixpath.basename(p) for p in laid if posixpath.dirname(p) == rel]


def text(path: str, s: TerminalState) -> str | None:
    """What a text file in .git holds (`HEAD`, `config`, a sample hook…); None where it is not one,
    or not known (the index and the objects are binary)."""
    found = _within_git(path, s)
    if found is None:
        return None
    laid, rel = found
    entry = laid.get(rel)
    if entry is None or entry.data is None or rel == "index" or b"\0" in entry.data:
        return None
    try:
        return entry.data.decode()
    except UnicodeDecodeError:
        return None
