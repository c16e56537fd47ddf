"""git's objects as git hashes them — blobs, trees, commits — and what git prints of the commits the
state makes: `git commit`'s summary and `git log`'s entries. Checked byte for byte, ids included,
against git in the sandbox (benchmarks/state_vs_real.py)."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel

from . import gitdiff
from .gitlog import date

MAX_DEPTH = 200  # folders deep: trees are built recursively here, and a deeper one is not answered


def git_object(kind: str, body: bytes) -> bytes:
    """The id of a git object of this kind and body."""
    return hashlib.sha1(f"{kind} {len(body)}\0".encode() + body).digest()


def blob_id(text: str) -> str:
    return git_object("blob", text.encode()).hex()


def tree_of(blobs: dict[str, str], made: dict[str, bytes] | None = None, named: dict[str, str] | None = None,
            at: str = "", executable: frozenset[str] = frozenset()) -> str:
    """The id of the tree git makes of these files (relative path: blob id; mode 100644, 100755 for
    those `executable` names); `made`, where given, gets every tree object it takes (id: body), the
    folders' ones too, and `named` each folder's tree id (its path below the top, "" for the top;
    `at`: this one's)."""
    entries: dict[str, tuple[str, bytes]] = {}
    folders: dict[str, dict[str, str]] = {}
    for path, blob in blobs.items():
        top, sep, rest = path.partition("/")
        if sep:
            folders.setdefault(top, {})[rest] = blob
        else:
            entries[top] = ("100755" if path in executable else "100644", bytes.fromhex(blob))
    for name, inner in folders.items():
        below = frozenset(p[len(name) + 1:] for p in executable if p.startswith(name + "/"))
        entries[name] = ("40000", bytes.fromhex(tree_of(inner, made, named, f"{at}/{name}".lstrip("/"), below)))
    # git orders entries by name, a folder's name as if it ended in "/"
    order = sorted(entries, key=lambda n: (n + "/" if entries[n][0] == "40000" else n).encode())
    body = b"".join(f"{entries[n][0]} {n}\0".encode() + entries[n][1] for n in order)
    tree = git_object("tree", body).hex()
    if made is not None:
        made[tree] = body
    if named is not None:
        named[at] = tree
    return tree


def commit_id(tree: str, parent: str, who: str, when: int, message: str) -> str:
    """The id of a commit of `tree` on `parent` ("" for a root commit), authored and committed by
    `who` ("name <email>") at `when` (UTC: the sandbox's clock)."""
    stamp = f"{who} {when} +0000"
    head = f"tree {tree}\n" + (f"parent {parent}\n" if parent else "")
    return git_object("commit", f"{head}author {stamp}\ncommitter {stamp}\n\n{message}\n".encode()).hex()


def root_commit(files: dict[str, str], author: str, epoch: int, message: str) -> str:
    """The id of the root commit `git add -A && git commit -m message` makes of `files` (relative
    paths) with author and committer `author` at `epoch`: what the shadow sandbox makes of a world's
    seed repository, so its `git log` is answered exactly ("" for a tree too deep to build here)."""
    if any(p.count("/") > MAX_DEPTH for p in files):
        return ""
    return commit_id(tree_of({p: blob_id(c) for p, c in files.items()}), "", author, epoch, message)


class Commit(BaseModel):
    """What a commit made now would hold, but for its time: its tree, who makes it, what it changes."""
    tree: str
    who: str  # "name <email>"
    message: str
    changed: list[tuple[str, str, str, int, int]]  # (path, blob before, blob after, lines added, removed)
    renames: bool = False  # git may find a rename among the changes (its summary then names it)
    modes: dict[str, tuple[str, str]] = {}  # each changed path's modes before and after, where one is not 100644

    def made(self, parent: str, when: int) -> str:
        """The commit's id, made at `when`."""
        return commit_id(self.tree, parent, self.who, when, self.message)

    def said(self, branch: str, made: str, root: bool = False) -> str:
        """What git prints: the branch and the id (a repository's first commit says so), the subject,
        the diffstat's summary, each file made or removed."""
        modes = []
        for rel, head, after, _, _ in sorted(self.changed, key=lambda c: c[0].encode()):
            before, now = self.modes.get(rel, ("100644", "100644"))
            if not head or not after:
                modes.append(f" {'create' if not head else 'delete'} mode {now if not head else before} {rel}\n")
            elif before != now:
                modes.append(f" mode change {before} => {now} {rel}\n")
        subject = self.message.split("\n\n", 1)[0]  # (a message of paragraphs: the first, one line)
        return f"[{branch}{' (root-commit)' if root else ''} {made[:7]}] {subject}\n" + gitdiff.shortstat(
            len(self.changed), sum(c[3] for c in self.changed), sum(c[4] for c in self.changed)) + "".join(modes)


def log(commits: list[tuple[str, str, str, int]], dates: str = "d") -> str:
    """`git log` in its default form of (message, full id, author, time) entries, newest first (`dates`:
    the `Date:` lines' form, gitlog.DATES')."""
    return "\n".join(f"commit {full}\nAuthor: {who}\nDate:   {date(when, dates)}\n\n    {message}\n"
                     for message, full, who, when in commits)
