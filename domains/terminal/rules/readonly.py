"""Writes into the sandbox's read-only root, refused as the sandbox refuses them: `touch /x`,
`mkdir /opt`, `mkdir -p /opt/tool`, `echo x > /etc/motd`, `rm /x` ("Read-only file system", or
what the path's being there or not makes it first: "File exists", "Is a directory", "No such file or
directory").

Only where what is there does not depend on the host: the root holds the sandbox's own folders
(state.ROOT) and nothing else, and /etc the files the sandbox writes (executors/sandbox.py) and the
host's harmless parts it binds, whose names are known; what /usr holds is the host's, so a path
below it is left to the model (no host file is looked at to answer an agent). Absolute paths alone,
one at a time.
"""

from __future__ import annotations

import posixpath

from .state import ROOT

ETC_WRITTEN = ("passwd", "group", "hostname", "hosts")  # files the sandbox writes into its /etc
ETC_BOUND = ("alternatives", "ld.so.cache", "ssl", "localtime")  # the host's, bound where the host has them
READ_ONLY = "Read-only file system"


LINKS = ("bin", "lib", "sbin")  # links in the root to /usr's folders (lib64's may point at nothing)


def at(path: str) -> str | None:
    """"dir", "link" (to a folder), "file" or "missing" for `/`, `/etc` and a name directly in them
    (in the root: never a writable mount, /home, /tmp, /dev or /proc); None elsewhere, or where it
    is the host's."""
    if path in ("/", "/etc", "/usr"):
        return "dir"
    folder, name = posixpath.split(path)
    if folder == "/" and name not in ("home", "tmp", "dev", "proc", "lib64"):
        return "link" if name in LINKS else "dir" if name in ROOT else "missing"
    if folder == "/etc" and name not in ETC_BOUND:
        return "file" if name in ETC_WRITTEN else "missing"
    return None


def _plain(word: str) -> bool:
    return word.startswith("/") and posixpath.normpath(word) == word and word.isascii() and \
        all(c.isalnum() or c in "._-/" for c in word)


def refused(cmd: str, args: list[str]) -> tuple[str, int] | None:
    """`touch PATH`, `mkdir [-p] PATH`, `rm PATH` refused in the read-only root; None elsewhere."""
    flags = [a for a in args if a.startswith("-")]
    plain = [a for a in args if not a.startswith("-")]
    if len(plain) != 1 or not _plain(plain[0]):
        return None
    path = plain[0]
    if cmd == "mkdir" and flags == ["-p"]:
        top = "/" + path.split("/")[1]  # (-p makes each folder on the way: the first it must make is refused)
        etc = "/etc/" + path.split("/")[2] if path.startswith("/etc/") else None
        first = top if at(top) == "missing" else etc if etc and at(etc) == "missing" else None
        return (f"mkdir: cannot create directory ‘{first}’: {READ_ONLY}\n", 1) if first else None
    kind = at(path)
    if flags or kind is None or path == "/":
        return None
    if cmd == "touch":  # (of what is there: its times, whose refusal depends on its owner)
        return (f"touch: cannot touch '{path}': {READ_ONLY}\n", 1) if kind == "missing" else None
    if cmd == "mkdir":
        return f"mkdir: cannot create directory ‘{path}’: {READ_ONLY if kind == 'missing' else 'File exists'}\n", 1
    if cmd == "rm":  # (a link is removed itself, not what it points at)
        why = {"dir": "Is a directory", "missing": "No such file or directory", "file": READ_ONLY, "link": READ_ONLY}
        return f"rm: cannot remove '{path}': {why[kind]}\n", 1
    return None


def redirected(target: str) -> str | None:
    """Why bash cannot open `target` for `>` or `>>` in the read-only root (None: elsewhere)."""
    kind = at(target) if _plain(target) else None
    return None if kind is None else "Is a directory" if kind in ("dir", "link") else READ_ONLY
