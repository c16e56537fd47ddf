"""touch, mkdir and rmdir of several paths, each in its turn: what the tool prints for those it
refuses, and which it made or removed (`outcome`).

GNU coreutils works through its operands in order: a refused one is said on its own line and the
rest go on (`touch x nope/y` makes x, `mkdir c c` makes c once, `rmdir a/b a` removes both); the
status is 1 if any was refused. Each operand is looked at as the ones before it left the file system
(`Walk`, the state with what this command made and removed on top). Where the state does not know
what one operand finds, nothing is answered. The messages are coreutils 9.1's, as the sandbox prints
them: touch and rmdir name a path between ' ', mkdir between ‘ ’ (a name of plain characters alone);
`mkdir -p` names the folder on the way that is a file, as typed; `touch x/` of what is not a folder
fails "setting times of" it.
"""

from __future__ import annotations

import posixpath
from typing import NamedTuple

from .state import _PLAIN, _QUOTABLE, WRITABLE, TerminalState, _abs, _children, _git_folder, _kind, _within, _writable

NO_ENTRY = "No such file or directory"
NOT_DIR = "Not a directory"
COMMANDS = frozenset({"touch", "mkdir", "rmdir"})


class Outcome(NamedTuple):
    output: str  # what the tool printed: a line for each operand it refused
    status: int
    done: list[str]  # the operands it made (touch, mkdir) or removed (rmdir), as typed


class Walk:
    """The file system as the state knows it, with what this command has made and removed so far."""

    def __init__(self, s: TerminalState):
        self.s = s
        self.now: dict[str, str] = {}  # path -> "file", "dir" or "missing", set by this command
        self.made_in: dict[str, set[str]] = {}  # folder -> what this command made there and left

    def set(self, path: str, kind: str) -> None:
        self.now[path] = kind
        inside = self.made_in.setdefault(posixpath.dirname(path), set())
        (inside.discard if kind == "missing" else inside.add)(path)

    def kind(self, path: str) -> str | None:
        if path in self.now:
            return self.now[path]
        if self.now.get(posixpath.dirname(path)) == "dir":
            return "missing"  # (in a folder this command made)
        above = posixpath.dirname(path)
        while above not in ("/", ""):  # (each folder above it, not every path this command named)
            if self.now.get(above) == "missing":
                return "missing"  # (in a folder this command removed)
            above = posixpath.dirname(above)
        return _kind(path, self.s)

    def on_the_way(self, path: str) -> str | None:
        """Why nothing can be made at `path`: a folder above it not there (NO_ENTRY) or a file
        (NOT_DIR); "" where each is a folder; None where one is not known."""
        folder, above = "/", path.strip("/").split("/")[:-1]
        for name in above:
            folder = posixpath.join(folder, name)
            kind = self.kind(folder)
            if kind != "dir":
                return {"file": NOT_DIR, "missing": NO_ENTRY}.get(kind or "")
        return ""

    def empty(self, folder: str) -> bool | None:
        """A folder holds nothing (None: its listing is not known)."""
        if _git_folder(posixpath.join(folder, ".git"), self.s):
            return False
        if self.made_in.get(folder):
            return False
        if folder not in self.s.known_dirs and self.now.get(folder) != "dir":
            return None
        return all(self.kind(posixpath.join(folder, n)) == "missing" for n in _children(folder, self.s))


def outcome(cmd: str, args: list[str], s: TerminalState) -> Outcome | None:
    """What `cmd args` (touch, mkdir [-p], rmdir, without other options) prints, its status, and the
    operands it made or removed; None where the state does not know for one of them."""
    parents = cmd == "mkdir" and args[:1] in (["-p"], ["--parents"])
    words = args[1:] if parents else args
    if cmd not in COMMANDS or not words or any(not w or w.startswith("-") or not _named(cmd, w) for w in words):
        return None
    walk, lines, done = Walk(s), [], []
    for word in words:
        path = _abs(word, s)
        if not _writable(path) or path in WRITABLE or path == s.home or _within(s.cwd, path) or \
                "//" in word or ".." in word.split("/") or "." in word.split("/")[1:] or word.rstrip("/") == ".":
            return None  # (a mount, the read-only root, the shell's folder or one above it; a path the kernel walks)
        said = (_touch if cmd == "touch" else _rmdir if cmd == "rmdir" else _mkdir)(walk, word, path, parents)
        if said is None:
            return None
        if said:
            lines.append(said)
        else:
            done.append(word)
    return Outcome("".join(lines), 1 if lines else 0, done)


def _touch(walk: Walk, word: str, path: str, _parents: bool) -> str | None:
    way = walk.on_the_way(path)
    if way is None:
        return None
    if way:
        return f"touch: cannot touch '{word}': {way}\n"
    kind = walk.kind(path)
    if word.endswith("/") and kind != "dir":  # (it cannot make a folder: only set the times of one)
        return f"touch: setting times of '{word}': {NOT_DIR if kind == 'file' else NO_ENTRY}\n" if kind else None
    if kind == "missing":
        walk.set(path, "file")
    return ""


def _mkdir(walk: Walk, word: str, path: str, parents: bool) -> str | None:
    if parents:  # (each folder on the way made where it is not there; a file on it refused, named as typed)
        if walk.kind(walk.s.cwd if not word.startswith("/") else "/") != "dir":
            return None  # (the shell's folder removed)
        typed = word.rstrip("/").split("/")
        for i in range(1, len(typed) + 1):
            prefix = "/".join(typed[:i])
            if not prefix:
                continue
            kind = walk.kind(_abs(prefix, walk.s))
            if kind is None:
                return None
            if kind == "file":
                why = "File exists" if i == len(typed) else NOT_DIR
                return f"mkdir: cannot create directory ‘{prefix}’: {why}\n"
            if kind == "missing":
                walk.set(_abs(prefix, walk.s), "dir")
        return ""
    way = walk.on_the_way(path)
    kind = walk.kind(path)
    if way is None or not way and kind is None:
        return None
    if way or kind != "missing":
        return f"mkdir: cannot create directory ‘{word}’: {way or 'File exists'}\n"
    walk.set(path, "dir")
    return ""


def _rmdir(walk: Walk, word: str, path: str, _parents: bool) -> str | None:
    way = walk.on_the_way(path)
    kind = walk.kind(path) if way == "" else None
    if way:
        return f"rmdir: failed to remove '{word}': {way}\n"
    if kind in ("missing", "file"):
        return f"rmdir: failed to remove '{word}': {NO_ENTRY if kind == 'missing' else NOT_DIR}\n"
    empty = walk.empty(path) if kind == "dir" else None
    if empty is None:
        return None
    if not empty:
        return f"rmdir: failed to remove '{word}': Directory not empty\n"
    walk.set(path, "missing")
    return ""


def _named(cmd: str, word: str) -> bool:
    """A name the tool prints as it is: mkdir's quotes for plain names, touch's and rmdir's for
    any without a quote, a backslash or a control character."""
    if cmd == "mkdir":
        return bool(_PLAIN.fullmatch(word))
    return bool(_QUOTABLE.fullmatch(word)) and word.isascii() and word.isprintable()
