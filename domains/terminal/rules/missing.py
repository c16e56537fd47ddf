"""What GNU tools print when a path they are given is not there, is a folder where a file is
wanted, or has a file where a folder would be on its way (coreutils 9.1, grep 3.8 and sed 4.9, as
the sandbox has them): the mistakes agents make most, answered where the state knows why.

Each tool names the path its own way: rm, cp, mv, head, tail, touch, rmdir, chmod, stat and du
between ' ' (any name without a quote, backslash or control character), mkdir between ‘ ’, grep and
sort as it is, wc, uniq, nl and cat as it is but for a name the shell would read otherwise (`named`:
a pattern that matched nothing, `'*.py'`); the others are answered for plain names alone, which every
style prints the same. Only what fails before anything is done is answered (one path, or rm's
several, each refused or removed; touch, mkdir and rmdir of several, each in its turn, are
eachpath.py's); writes are answered only below the home and /tmp, where the file system is writable,
so that the refusal is the path's and not the read-only root's.

`refused` asks the state what is at each path (`what_is_at`); `nothing_done` tells a failed copy or
move that did nothing from one that may have done part of its work.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from . import eachpath, readonly
from .eachpath import NO_ENTRY, NOT_DIR
from .state import _PLAIN, _QUOTABLE, TerminalState, _abs, _kind, _writable

IS_DIR = "Is a directory"

# why(word) -> "file", "dir", NO_ENTRY, NOT_DIR, or None where the state does not know
Why = Callable[[str], str | None]

DIGESTS = ("md5sum", "sha1sum", "sha256sum", "sha512sum")
TOOLS = frozenset({"rm", "cp", "mv", "head", "tail", "wc", "grep", "sort", "uniq", "nl", "cat", "touch", "mkdir",
                   "rmdir", "chmod", "stat", "du", "tac", *DIGESTS})

_GREP_FLAGS = set("nivcwlohHExFsqr")
_SORT_FLAGS = set("rnubfdM")
_CHMOD_MODE = re.compile(r"[0-7]{3,4}|[ugoa]*[-+=][rwxXst]+")


def nothing_done(words: list[str], output: str) -> bool:
    """`cp SOURCE TARGET` or `mv SOURCE TARGET` refused before it began (the source not there, a
    folder without -r, the target's folder not there): nothing done."""
    plain = [w for w in words[1:] if not w.startswith("-")]
    return words[0] in ("cp", "mv") and len(plain) == 2 and output.count("\n") == 1 and \
        bool(_REFUSED_WHOLE.match(output.removeprefix(words[0] + ": ")))


_REFUSED_WHOLE = re.compile(r"cannot stat |-r not specified; omitting directory |cannot create regular file |"
                            r"cannot move .* to |.* and .* are the same file")


def refused(words: list[str], s: TerminalState) -> tuple[str, int] | None:
    """A tool's refusal of a path that is not as the state knows it, from the words the shell passed
    it (expanded); None where it would run, or the state does not know."""
    if words[0] not in TOOLS or words[0] in s.defined or {"PATH", "LANG", "LC_ALL", "LC_MESSAGES"} & set(s.env):
        return None
    if words[0] in ("touch", "mkdir", "rm") and (ro := readonly.refused(words[0], words[1:])) is not None:
        return ro
    if words[0] in eachpath.COMMANDS:
        done = eachpath.outcome(words[0], words[1:], s)  # (each path in its turn: `touch x nope/y`)
        return (done.output, done.status) if done is not None and done.status else None
    return refusal(words[0], words[1:], lambda word: what_is_at(word, s),
                   lambda word: _writable(_abs(word, s)) and "/.git" not in _abs(word, s) + "/")


def what_is_at(word: str, s: TerminalState) -> str | None:
    """What a tool finds at the path `word` names: "file", "dir", or why it finds nothing (a folder
    on the way not there, or a file: NO_ENTRY, NOT_DIR); None where the state does not know."""
    if word.startswith("//") or ".." in word.strip("/").split("/")[1:]:
        return None  # (`README.md/..`: the kernel walks through the file; the state's path does not)
    path = _abs(word, s)
    way = eachpath.Walk(s).on_the_way(path)
    if way != "":
        return way  # (a folder on the way not there, a file; None: not known)
    kind = _kind(path, s) if path != "/" else "dir"
    if kind == "file" and word.endswith("/"):
        return NOT_DIR
    return {"missing": NO_ENTRY}.get(kind or "", kind)


def refusal(cmd: str, args: list[str], why: Why, writable: Callable[[str], bool]) -> tuple[str, int] | None:
    """What `cmd args` prints and its exit code, where it refuses a path the state knows is not as
    it needs; None where it would run (or the state does not know)."""
    if any(a == "--" or a.startswith("--") for a in args):
        return None
    flags = "".join(a[1:] for a in args if a.startswith("-") and len(a) > 1)
    plain = [a for a in args if not a.startswith("-") or a == "-"]
    if "-" in plain:
        return None  # (standard input)
    if cmd == "rm":
        return _rm(flags, plain, why, writable)
    if cmd in ("cp", "mv") and len(plain) == 2 and set(flags) <= set("rRfvi" if cmd == "cp" else "fvi"):
        src, dst = plain
        reason = why(src)
        if reason in (NO_ENTRY, NOT_DIR) and _quoted(src):
            return f"{cmd}: cannot stat '{src}': {reason}\n", 1
        if cmd == "cp" and reason == "dir" and not set(flags) & set("rR") and _quoted(src):
            return f"cp: -r not specified; omitting directory '{src}'\n", 1
        if reason != "file" or not _quoted(src) or not _quoted(dst) or not writable(dst):
            return None
        if why(dst) == NOT_DIR:  # (a file on its way: the target cannot even be looked at)
            return f"{cmd}: cannot stat '{dst}': {NOT_DIR}\n", 1
        if dst.endswith("/"):  # (a folder named that is not there)
            target = NOT_DIR if why(dst) == NO_ENTRY and why(_parent(dst)) == "dir" else None
        else:
            target = _on_the_way(dst, why)
        if target is None:
            return None
        return (f"cp: cannot create regular file '{dst}': {target}\n" if cmd == "cp" else
                f"mv: cannot move '{src}' to '{dst}': {target}\n"), 1
    if cmd in ("head", "tail"):
        rest = _counted(args)
        if rest is None or len(rest) != 1 or not _quoted(rest[0]):
            return None
        reason = why(rest[0])
        if reason in (NO_ENTRY, NOT_DIR):
            return f"{cmd}: cannot open '{rest[0]}' for reading: {reason}\n", 1
        return (f"{cmd}: error reading '{rest[0]}': {IS_DIR}\n", 1) if reason == "dir" else None
    if cmd in ("wc", "uniq", "nl", "cat", *DIGESTS) and len(plain) == 1 and \
            set(flags) <= (set("lcwm") if cmd == "wc" else set()):
        reason = why(plain[0])
        return (f"{cmd}: {named(plain[0])}: {reason}\n", 1) if reason in (NO_ENTRY, NOT_DIR) and named(plain[0]) \
            else None
    if cmd == "tac" and len(plain) == 1 and not flags and _quoted(plain[0]):
        reason = why(plain[0])
        return (f"tac: failed to open '{plain[0]}' for reading: {reason}\n", 1) if reason in (NO_ENTRY, NOT_DIR) \
            else None
    if cmd == "grep" and len(plain) == 2 and set(flags) <= _GREP_FLAGS and "s" not in flags and \
            re.fullmatch(r"[A-Za-z0-9_ :,=#@%/-]+", plain[0]) and \
            (_PLAIN.fullmatch(plain[1]) or _PATTERN.fullmatch(plain[1])):
        reason = why(plain[1])
        if reason in (NO_ENTRY, NOT_DIR) or reason == "dir" and not set(flags) & set("rc"):  # (-c: and a count)
            return f"grep: {plain[1]}: {IS_DIR if reason == 'dir' else reason}\n", 2
        return None
    if cmd == "sort" and len(plain) == 1 and set(flags) <= _SORT_FLAGS and _PLAIN.fullmatch(plain[0]):
        reason = why(plain[0])
        if reason in (NO_ENTRY, NOT_DIR):
            return f"sort: cannot read: {plain[0]}: {reason}\n", 2
        return (f"sort: read failed: {plain[0]}: {IS_DIR}\n", 2) if reason == "dir" else None
    if cmd in ("chmod", "stat", "du"):
        if cmd == "chmod":
            if len(args) != 2 or not _CHMOD_MODE.fullmatch(args[0]):
                return None
            plain = args[1:]
        elif len(plain) != 1 or set(flags) - (set("sh") if cmd == "du" else set()):
            return None
        reason = why(plain[0])
        verb = {"chmod": "cannot access", "stat": "cannot statx", "du": "cannot access"}[cmd]
        return (f"{cmd}: {verb} '{plain[0]}': {reason}\n", 1) if reason in (NO_ENTRY, NOT_DIR) and _quoted(plain[0]) \
            else None
    return None


def _rm(flags: str, plain: list[str], why: Why, writable: Callable[[str], bool]) -> tuple[str, int] | None:
    """rm of paths each known: those not there (unless -f), and folders without -r, are refused in
    order; the others are removed. None where none is refused, or one is not known."""
    if not plain or not set(flags) <= set("rRfv") or "v" in flags:
        return None
    lines = []
    for word in plain:
        if word.rstrip("/") in (".", "..") and _quoted(word):  # (never removed, whatever is in it)
            lines.append(f"rm: refusing to remove '.' or '..' directory: skipping '{word}'\n" if set(flags) & set("rR")
                         else f"rm: cannot remove '{word}': {IS_DIR}\n")
            continue
        reason = why(word)
        if reason is None or not _quoted(word) or not writable(word) or word.rstrip("/") in ("", ".", ".."):
            return None
        if reason in (NO_ENTRY, NOT_DIR) and "f" not in flags:  # (-f: neither is an error)
            lines.append(f"rm: cannot remove '{word}': {reason}\n")
        elif reason == "dir" and not set(flags) & set("rR"):
            lines.append(f"rm: cannot remove '{word}': {IS_DIR}\n")
    normal = [posixpath.normpath(w) for w in plain]
    if any(a == b or b.startswith(a.rstrip("/") + "/") for i, a in enumerate(normal) for j, b in enumerate(normal) if i != j):
        return None  # (the same path twice, or one inside another: the second is refused after the first went)
    return ("".join(lines), 1) if lines else None


def _counted(args: list[str]) -> list[str] | None:
    """head's or tail's files past `-n N` or `-N`; None for any other option."""
    rest, i = [], 0
    while i < len(args):
        a = args[i]
        if a == "-n" and i + 1 < len(args) and re.fullmatch(r"\d+", args[i + 1]):
            i += 2
            continue
        if re.fullmatch(r"-n?\d+", a):
            i += 1
            continue
        if a.startswith("-"):
            return None
        rest.append(a)
        i += 1
    return rest


def _on_the_way(word: str, why: Why) -> str | None:
    """Why a new entry cannot be made at `word`: its folder is not there, or is a file."""
    if word.endswith("/") or "/" not in word.strip("/"):
        return None
    reason = why(_parent(word))
    return NOT_DIR if reason == "file" else reason if reason in (NO_ENTRY, NOT_DIR) else None


def _parent(word: str) -> str:
    """The folder a path names its entry in, as a path from the same place."""
    folder, slash, _ = word.rstrip("/").rpartition("/")
    return folder or ("/" if slash else ".")


# A pattern bash found no match for, which it hands on as it is (no nullglob): `cat *.py` where there is none
_PATTERN = re.compile(r"[A-Za-z0-9._/+-]*[*?][A-Za-z0-9._/+*?-]*")


def named(word: str) -> str | None:
    """How wc, cat, nl, uniq and the digests name a path in a complaint (coreutils' shell quoting): a
    plain name as it is, one with `*` or `?` between ' '; None for any other (not answered)."""
    return word if _PLAIN.fullmatch(word) else f"'{word}'" if _PATTERN.fullmatch(word) else None


def _quoted(word: str) -> bool:
    """A name the tools put between ' ' as it is."""
    return bool(_QUOTABLE.fullmatch(word)) and word.isascii() and word.isprintable()
