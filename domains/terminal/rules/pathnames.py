"""`basename`, `dirname`, `realpath` and `seq` as GNU coreutils print them: names worked out from
the words alone, and (realpath) from what the state knows is at each folder of a path. None: the
model answers (an option not listed here, a path the state cannot vouch for).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable

MAX_SEQ = 10_000

Kind = Callable[[str], str | None]  # an absolute path: "dir", "file", "missing", or None (not known)


def answer(cmd: str, args: list[str], cwd: str, home: str, kind: Kind) -> tuple[str, int] | None:
    if cmd == "basename":
        return _basename(args)
    if cmd == "dirname":
        if not args or any(a.startswith("-") or a.startswith("//") for a in args):
            return None  # (`//x`: POSIX leaves a leading // to the system)
        return "".join(dirname(a) + "\n" for a in args), 0
    if cmd == "seq":
        return _seq(args)
    if cmd == "realpath":
        return _realpath(args, cwd, home, kind)
    return None


def base(name: str, suffix: str = "") -> str:
    stripped = name.rstrip("/")
    if not stripped:
        return "/" if name else ""
    last = stripped.rpartition("/")[2]
    return last[:-len(suffix)] if suffix and last.endswith(suffix) and last != suffix else last


def dirname(name: str) -> str:
    stripped = name.rstrip("/") or ("/" if name else "")
    if "/" not in stripped:
        return "."
    return stripped.rpartition("/")[0].rstrip("/") or "/"


def _basename(args: list[str]) -> tuple[str, int] | None:
    every, suffix, names, i = False, "", [], 0
    while i < len(args):
        a = args[i]
        if a in ("-a", "--multiple"):
            every = True
        elif a == "-s" and i + 1 < len(args):
            every, suffix, i = True, args[i + 1], i + 1
        elif a.startswith("--suffix="):
            every, suffix = True, a.removeprefix("--suffix=")
        elif a.startswith("-") and a != "-":
            return None
        else:
            names.append(a)
        i += 1
    if not names:
        return None
    if not every:
        if len(names) > 2:
            return None  # ("extra operand": the model's)
        names, suffix = names[:1], (names[1] if len(names) == 2 else "")
    return "".join(base(n, suffix) + "\n" for n in names), 0


def _seq(args: list[str]) -> tuple[str, int] | None:
    try:
        numbers = [int(a) for a in args]
    except ValueError:
        return None  # (fractions, options: GNU's formatting, the model's)
    if not 1 <= len(numbers) <= 3 or any(not a.lstrip("-").isdigit() for a in args):
        return None
    first, step, last = (1, 1, numbers[0]) if len(numbers) == 1 else \
        (numbers[0], 1, numbers[1]) if len(numbers) == 2 else tuple(numbers)
    if step == 0:
        return None
    shown = range(first, last + (1 if step > 0 else -1), step)
    if len(shown) > MAX_SEQ:
        return None
    return "".join(f"{n}\n" for n in shown), 0


def _realpath(args: list[str], cwd: str, home: str, kind: Kind) -> tuple[str, int] | None:
    """Each path made absolute, without `.`, `..` or repeated slashes (no symbolic links where the
    state vouches for every folder on the way: in the home or /tmp); a folder on the way that is
    not there is refused."""
    if not args or any(a.startswith("-") for a in args):
        return None
    out, code = [], 0
    for a in args:
        path = posixpath.normpath(posixpath.join(cwd, a)) if a else ""
        if not path or path.startswith("//") or not (path in ("/", "/home", "/tmp") or _within(path, home) or
                                                     _within(path, "/tmp")):
            return None
        folders = _folders_on_the_way(a, cwd)
        kinds = [kind(f) for f in folders if _within(f, home) or _within(f, "/tmp") and f != "/tmp"]
        if any(k is None for k in kinds):
            return None
        if any(k != "dir" for k in kinds):
            if len(args) > 1 or any(k == "file" for k in kinds):
                return None  # (its error and the others' lines: in the order the buffers give; "Not a directory")
            return f"realpath: {a}: No such file or directory\n", 1
        if kind(path) is None and path not in ("/", "/home", "/tmp", home) or a.endswith("/") and kind(path) != "dir":
            return None
        out.append(path + "\n")
    return "".join(out), code


def _folders_on_the_way(name: str, cwd: str) -> list[str]:
    """Each folder the path passes through before its last part, as the kernel walks it."""
    here = "/" if name.startswith("/") else cwd
    parts = [p for p in name.split("/") if p]
    out = []
    for part in parts[:-1]:
        here = posixpath.dirname(here) if part == ".." else here if part == "." else posixpath.join(here, part)
        out.append(here)
    return out


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
