"""What `sed -i SCRIPT FILE…` does to the files it edits.

A script of the commands agents use to edit (`d`, `p`, `s` with any delimiter, and one `a`, `i` or
`c`, each after a line number, `$` or a /regex/) rewrites the files it is given and nothing else: sed
writes each to a new file and renames it over the old one. Commands that write or run elsewhere
(`w`, `W`, `e`, `r`, `R`, the `s` flags `w` and `e`) are not accepted, so the state treats such a
line as any program's. Where the new contents follow from the old without a regular expression
(a literal substitution, lines deleted by number), they are worked out here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .state import _PLAIN

MAX_SCRIPT = 500  # characters of a script read (longer: not accepted)

# `s/OLD/NEW/[g]` with OLD and NEW plain text: no character a basic regular expression or a
# replacement gives a meaning to (`.`, `*`, `[`, `^`, `$`, `\`, `&`), no `/`
_SED_OLD = re.compile(r"[A-Za-z0-9_ :,=#@%-]+")
_SED_NEW = re.compile(r"[A-Za-z0-9_ :,=#@%.-]*")


@dataclass
class InPlace:
    files: list[str]  # as given
    edit: Callable[[str], str | None] | None  # the new contents from the old, where worked out here


def literal(args: list[str]) -> tuple[str, str, bool, str] | None:
    """(old, new, every occurrence, file) of a literal in-place substitution; None: anything else."""
    if len(args) != 3 or args[0] != "-i":
        return None
    m = re.fullmatch(r"s/([^/]*)/([^/]*)/(g?)", args[1])
    if not m or not _SED_OLD.fullmatch(m.group(1)) or not _SED_NEW.fullmatch(m.group(2)) or \
            not _PLAIN.fullmatch(args[2]) or args[2].startswith("-"):
        return None
    return m.group(1), m.group(2), m.group(3) == "g", args[2]


def substituted(text: str, old: str, new: str, every: bool) -> str:
    """sed's `s/old/new/[g]` on each line (the first occurrence, or every one); a last line without
    its newline stays without one."""
    return "\n".join(line.replace(old, new, -1 if every else 1) for line in text.split("\n"))


def in_place(args: list[str]) -> InPlace | None:
    """`sed -i SCRIPT FILE…` (also `-i -e SCRIPT`) with a script that edits only the files given;
    None for anything else."""
    if args[:1] != ["-i"]:
        return None
    rest = args[2:] if args[1:2] == ["-e"] else args[1:]
    if len(rest) < 2 or any(f.startswith("-") or not f for f in rest[1:]):
        return None
    script, files = rest[0], rest[1:]
    if len(script) > MAX_SCRIPT or _commands(script) is None:
        return None
    found = literal(["-i", script, files[0]]) if len(files) == 1 else None
    if found:
        old, new, every, _ = found
        return InPlace(files, lambda text: substituted(text, old, new, every))
    deleted = re.fullmatch(r"(\d+|\$)(?:,(\d+|\$))?d", script)
    if deleted and deleted.group(1) != "0":
        return InPlace(files, lambda text: _delete(text, deleted.group(1), deleted.group(2)))
    added = re.fullmatch(r"(\d+)([ai])\s*([^\\\n\s][^\\\n]*)", script)
    if added and added.group(1) != "0":
        return InPlace(files, lambda text: _added(text, int(added.group(1)), added.group(2) == "a", added.group(3)))
    return InPlace(files, None)


def _added(text: str, at: int, after: bool, line: str) -> str | None:
    """sed's one-line `Ni TEXT` (before line N) or `Na TEXT` (after it); None where the file's last
    line has no newline (what sed adds there is not worked out here)."""
    if text and not text.endswith("\n"):
        return None
    lines = re.findall(r"[^\n]*\n", text)
    if at <= len(lines):
        lines.insert(at if after else at - 1, line + "\n")
    return "".join(lines)


def _delete(text: str, first: str, last: str | None) -> str:
    """sed's `A[,B]d`: the lines from A to B (or A alone; B before A: A alone) left out."""
    lines = re.findall(r"[^\n]*\n|[^\n]+$", text)
    a = len(lines) if first == "$" else int(first)
    b = a if last is None else len(lines) if last == "$" else max(int(last), a)
    return "".join(line for n, line in enumerate(lines, 1) if not a <= n <= b)


def _commands(script: str) -> list[str] | None:
    """The script's commands (`;` or a new line apart), each one sed accepts here; None where one is not."""
    out: list[str] = []
    i, n = 0, len(script)
    while i < n:
        while i < n and script[i] in " \t;\n":
            i += 1
        if i >= n:
            break
        start = i
        i = _address(script, i)
        if i is None:
            return None
        if i < n and script[i] == ",":
            i = _address(script, i + 1)
            if i is None:
                return None
        while i < n and script[i] in " \t!":
            i += 1
        if i >= n:
            return None
        c = script[i]
        if c in "dp":
            i += 1
        elif c == "s" and i + 1 < n and script[i + 1] not in "\\\n ":
            delim, i = script[i + 1], i + 2
            for _ in range(2):  # the pattern, then the replacement
                while i < n and script[i] != delim:
                    i += 2 if script[i] == "\\" else 1
                if i >= n:
                    return None
                i += 1
            while i < n and script[i] in "gIi0123456789p":
                i += 1
        elif c in "aic" and not out and script[i + 1:].strip():  # (its text runs to the end of the script)
            out.append(script[start:])
            return out
        else:
            return None
        if i < n and script[i] not in " \t;\n":
            return None
        out.append(script[start:i])
    return out or None


def _address(script: str, i: int) -> int | None:
    """Past a line number, `$` or /regex/ at `i` (or nothing there); None where one is not closed."""
    n = len(script)
    if i < n and script[i].isdigit():
        while i < n and script[i].isdigit():
            i += 1
    elif i < n and script[i] == "$":
        i += 1
    elif i < n and script[i] == "/":
        i += 1
        while i < n and script[i] != "/":
            i += 2 if script[i] == "\\" else 1
        if i >= n:
            return None
        i += 1
    return i
