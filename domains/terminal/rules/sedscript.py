"""sed, for the scripts agents write: what `sed SCRIPT FILE` prints and what `sed -i` leaves.

A script of `s` (any delimiter; flags `g`, a number, `p`, `I`), `d`, `p`, `q`, `=` and one-line `a`,
`i`, `c TEXT` (or GNU's `a\\TEXT`, its blanks kept), each after no address, a line number, `$` or a
/regex/, a range of two and `!`, over one stream (`-n`, `-E`, `-e`, `-i`) is run here as GNU sed
runs it (sedregex.py has the patterns). Commands that write or run elsewhere (`w`, `e`, `r`, the `s`
flags `w` and `e`), and the rest of sed's language, are not taken: the line is then any program's. A
script that parses here can still be one sed refuses (a reference to a group the pattern lacks):
such a script is taken as editing its files (`in_place`) but not run (`run` gives None), and its
words are the model's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .sedregex import NotTaken, compiled

MAX_SCRIPT = 500  # characters of a script read (longer: not taken)
MAX_OUTPUT = 4_000_000  # characters sed may print here (more: the model's)
MAX_TEXT = 2_000_000  # characters of input run here (more: the model's)


@dataclass
class Address:
    line: int | None = None  # a line number; None with neither: the last line (`$`)
    regex: Any = None


@dataclass
class Command:
    name: str  # s d p q = a i c
    first: Address | None = None
    last: Address | None = None
    negated: bool = False
    regex: Any = None  # s: the compiled pattern, its replacement, every match from the nth, p
    replacement: list[tuple[str, Any]] = field(default_factory=list)
    nth: int = 1
    every: bool = False
    prints: bool = False
    text: str = ""  # a, i, c
    active: bool = False  # (inside its range)
    closed: bool = False  # (a range from a line number that has ended: it starts no more)


@dataclass
class InPlace:
    files: list[str]  # as given
    edit: Any  # the new contents from the old (None where sed would refuse, or the file is not ASCII)


class _Refused(Exception):
    """A script sed takes apart but refuses to run (its message is the model's)."""


class _Unfollowed(Exception):
    """A script of the commands taken here whose pattern or replacement is not followed (a
    back-reference, `\\U`): it edits only its files, in a way not worked out here."""


def options(args: list[str]) -> tuple[list[str], list[str], bool, bool, bool] | None:
    """(scripts, files, -n, -E, -i) of sed's arguments; None for other options (`-i.bak`, `-s`, `-z`…)."""
    scripts: list[str] = []
    files: list[str] = []
    quiet = extended = in_place = False
    # (with a script given by -e, every other word is a file, the first too)
    given = any(a == "--expression" or a.startswith("-") and not a.startswith("--") and a.endswith("e") for a in args)
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and len(a) > 1 and a != "--":  # (options anywhere, as getopt takes them)
            flags = a[1:]
            if flags.endswith("e") or a == "--expression":  # (`-e SCRIPT`, `-ne SCRIPT`)
                if i + 1 >= len(args):
                    return None
                scripts.append(args[i + 1])
                flags = "" if a == "--expression" else flags[:-1]
                i += 1
            if set(flags) - set("nEri"):
                return None
            quiet |= "n" in flags
            extended |= "E" in flags or "r" in flags
            in_place |= "i" in flags
        elif not scripts and not given and a != "--":
            scripts.append(a)
        elif a != "--":
            files.append(a)
        i += 1
    return (scripts, files, quiet, extended, in_place) if scripts else None


def parse(scripts: list[str], extended: bool) -> list[Command] | None:
    """The commands of sed's scripts; None where one is not taken here."""
    if sum(len(x) for x in scripts) > MAX_SCRIPT or not all(x.isascii() for x in scripts):
        return None
    out: list[Command] = []
    try:
        for script in scripts:
            out += _script(script, extended)
    except (NotTaken, IndexError, ValueError):
        return None
    return out or None


def program(args: list[str]) -> tuple[list[Command], list[str], bool] | None:
    """(commands, files, -n) of a sed that only prints (no `-i`) and runs as given; None otherwise."""
    found = options(args)
    if found is None or found[4]:
        return None
    scripts, files, quiet, extended, _ = found
    try:
        commands = parse(scripts, extended)
    except (_Refused, _Unfollowed):
        return None
    return (commands, files, quiet) if commands else None


def _script(script: str, extended: bool) -> list[Command]:
    out: list[Command] = []
    i, n = 0, len(script)
    while True:
        while i < n and script[i] in " \t;\n":
            i += 1
        if i >= n:
            return out
        first, i = _address(script, i, extended)
        last = None
        if first and i < n and script[i] == ",":
            last, i = _address(script, i + 1, extended)
            if last is None:
                raise NotTaken(script)
        while i < n and script[i] in " \t":
            i += 1
        negated = i < n and script[i] == "!"
        i += negated
        while i < n and script[i] in " \t":
            i += 1
        c = script[i]
        command = Command(c, first, last, negated)
        i += 1
        if c in "dp=" or c == "q" and last is None:
            pass
        elif c == "s":
            i = _substitution(script, i, extended, command)
        elif c in "aic" and (c == "c" or last is None):
            # its text runs to the end of the script: `a TEXT` (leading blanks dropped) or GNU's
            # `a\TEXT` on the same line (kept: how an indented line is put in)
            text = script[i:]
            command.text = text[1:] if text.startswith("\\") else text.lstrip(" \t")
            if not command.text.strip() or "\\" in command.text or "\n" in command.text:
                raise NotTaken(script)
            out.append(command)
            return out
        else:
            raise NotTaken(script)
        while i < n and script[i] in " \t":
            i += 1
        if i < n and script[i] not in ";\n":
            raise NotTaken(script)
        out.append(command)


def _address(script: str, i: int, extended: bool) -> tuple[Address | None, int]:
    n = len(script)
    if i < n and script[i].isdigit():
        m = re.match(r"\d+", script[i:])
        if int(m.group()) == 0:
            raise NotTaken(script)  # (sed refuses line 0 but in `0,/re/`, not taken here)
        return Address(line=int(m.group())), i + m.end()
    if i < n and script[i] == "$":
        return Address(), i + 1
    if i < n and script[i] == "/":
        pattern, i = _delimited(script, i + 1, "/")
        if script[i:i + 1] in ("I", "M"):
            raise NotTaken(script)
        return Address(regex=compiled(pattern, extended, "/", False)), i
    return None, i


def _delimited(script: str, i: int, delim: str) -> tuple[str, int]:
    """The text up to the next unescaped `delim` from `i`, and the index past it."""
    start, n = i, len(script)
    while i < n and script[i] != delim:
        if script[i] == "\n":
            raise NotTaken(script)
        i += 2 if script[i] == "\\" else 1
    if i >= n:
        raise NotTaken(script)  # (unterminated: sed's message is the model's)
    return script[start:i], i + 1


def _substitution(script: str, i: int, extended: bool, command: Command) -> int:
    delim = script[i]
    if delim in "\\\n":
        raise NotTaken(script)
    pattern, i = _delimited(script, i + 1, delim)
    replacement, i = _delimited(script, i, delim)
    flags, number = "", ""
    while i < len(script) and (script[i] in "gpIi" or script[i].isdigit()):
        if script[i].isdigit():
            if number and not script[i - 1].isdigit() or script[i] == "0" and not number:
                raise NotTaken(script)  # (a number of two parts, or 0: sed's message)
            number += script[i]
        elif script[i] in flags:
            raise NotTaken(script)  # (a flag twice: sed's message)
        else:
            flags += script[i]
        i += 1
    try:
        command.regex = compiled(pattern, extended, delim, "I" in flags or "i" in flags)
        command.replacement = _replacement(replacement, delim, command.regex.groups)
    except NotTaken as err:
        raise _Unfollowed(pattern) from err
    command.nth, command.every, command.prints = int(number or 1), "g" in flags, "p" in flags
    return i


def _replacement(text: str, delim: str, groups: int) -> list[tuple[str, Any]]:
    """The replacement as literal text, `&` (group 0) and `\\1`…`\\9`."""
    parts: list[tuple[str, Any]] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "&":
            parts.append(("group", 0))
        elif c == "\\":
            e = text[i + 1]
            i += 1
            if e.isdigit() and e != "0":
                if int(e) > groups:
                    raise _Refused(text)  # ("invalid reference \\2 on `s' command's RHS")
                parts.append(("group", int(e)))
            elif e == "n":
                parts.append(("text", "\n"))
            elif e in "&\\/" or e == delim or not e.isalnum() and e != "\n":
                parts.append(("text", e))
            else:
                raise NotTaken(text)  # (\L, \U, \t, \0 and the other escapes sed reads its way)
        else:
            parts.append(("text", c))
        i += 1
    return parts


def may_write(args: list[str]) -> bool:
    """Whether this sed may change a file: `-i` (any spelling), or a script not taken here that
    may hold `w`, `W` or `e` (a file written, a command run)."""
    found = options(args)
    if found is None:
        return any(a.startswith("--in-place") or a.startswith("-") and not a.startswith("--") and "i" in a
                   for a in args) or any(c in a for a in args for c in "wWe")
    scripts, _, _, extended, inplace = found
    if inplace:
        return True
    try:
        return parse(scripts, extended) is None and any(c in x for x in scripts for c in "wWe")
    except _Refused:
        return False  # (sed refuses it: nothing runs)
    except _Unfollowed:
        return False  # (it prints; it writes nothing)


def in_place(args: list[str]) -> InPlace | None:
    """`sed -i SCRIPT FILE…` with a script that edits only the files given; None for anything else."""
    found = options(args)
    if found is None:
        return None
    scripts, files, quiet, extended, inplace = found
    if not inplace or not files or any(f.startswith("-") or not f for f in files):
        return None
    try:
        commands = parse(scripts, extended)
    except (_Refused, _Unfollowed):
        return InPlace(files, None)  # (it edits these files alone, or sed refuses it: their contents not known)
    if commands is None:
        return None
    return InPlace(files, lambda text: run(commands, text, quiet))


def run(commands: list[Command], text: str, quiet: bool) -> str | None:
    """What sed prints for `text` (one stream; with `-i`, what the file becomes); None where the
    text is not ASCII, or past MAX_TEXT, or sed would print more than MAX_OUTPUT. The time it takes
    grows with the text, not faster (a long line of empty matches included)."""
    if len(text) > MAX_TEXT or not text.isascii():
        return None
    for command in commands:
        command.active = command.closed = False
    lines = text.split("\n")
    missing_newline = not text.endswith("\n") and text != ""
    if text.endswith("\n") or not text:
        lines.pop()
    out: list[str] = []
    size = 0
    held_newline = False  # (the last thing written was a last line without its newline)

    def write(chunk: str, newline: bool = True) -> None:
        nonlocal held_newline, size
        if held_newline:
            out.append("\n")
        out.append(chunk + ("\n" if newline else ""))
        held_newline = not newline
        size += len(chunk) + 1
        if size > MAX_OUTPUT:
            raise OverflowError

    try:
        for number, line in enumerate(lines, 1):
            last = number == len(lines)
            appended: list[str] = []
            space, deleted, stop = line, False, False
            chomped = not (last and missing_newline)  # (that line is printed without its newline, each time)
            for command in commands:
                if not _selected(command, number, last, space):
                    continue
                name = command.name
                if name == "s":
                    space, done = _substitute(command, space)
                    if done and command.prints:
                        write(space, chomped)
                elif name == "p":
                    write(space, chomped)
                elif name == "=":
                    write(str(number))
                elif name == "i":
                    write(command.text)
                elif name == "a":
                    appended.append(command.text)
                elif name in "dc":
                    if name == "c" and (command.negated or command.last is None or not command.active):
                        write(command.text)
                    deleted = True
                    break
                elif name == "q":
                    stop = True
                    break
            if not deleted and not quiet:
                write(space, chomped)
            for extra in appended:
                write(extra)
            if stop:
                if held_newline:
                    out.append("\n")  # (sed ends what it printed before it quits)
                break
    except OverflowError:
        return None
    return "".join(out)


def _selected(command: Command, number: int, last: bool, space: str) -> bool:
    """Whether the command runs on this line (its address or range, then `!`)."""
    first, end = command.first, command.last
    if first is None:
        chosen = True
    elif end is None:
        chosen = _matches(first, number, last, space)
    elif command.active:
        chosen = True
        if end.regex is not None and end.regex.search(space) is not None or \
                end.regex is None and (last if end.line is None else number >= end.line):
            command.active = False
    elif first.line is not None and not command.closed and number >= first.line and \
            not (number > first.line and end.line is not None and number > end.line) or \
            first.line is None and _matches(first, number, last, space):
        # (a range from a line number starts on the first line it sees from there, an earlier `d`
        # having kept it from that very line, unless that is past its end's line number)
        chosen = True
        # it ends on the line it starts when its end is a number not past it (or `$` there)
        command.active = not (end.regex is None and (last if end.line is None else end.line <= number))
    else:
        chosen = False
    if first is not None and end is not None and first.line is not None and chosen and not command.active:
        command.closed = True
    return chosen != command.negated


def _matches(address: Address, number: int, last: bool, space: str) -> bool:
    if address.regex is not None:
        return address.regex.search(space) is not None
    return last if address.line is None else number == address.line


def _substitute(command: Command, space: str) -> tuple[str, bool]:
    """`s` on the pattern space as GNU sed does it: an empty match right after a match is skipped."""
    out: list[str] = []
    start, count, done, previous_end = 0, 0, False, -1
    data = space.encode()  # (searched as bytes: RE2's wrapper encodes a str again at each search;
    # the text is ASCII, so its offsets are the same)
    while start <= len(space):
        m = command.regex.search(data, start)
        if m is None:
            break
        begin, end = m.span()
        if begin == end and begin == previous_end:
            if begin >= len(space):
                break
            out.append(space[start:begin + 1])
            start = begin + 1
            continue
        out.append(space[start:begin])
        count += 1
        previous_end = end
        if count < command.nth:
            out.append(space[begin:end])
        else:
            out.append("".join(v if kind == "text" else space[slice(*m.span(v))] if m.start(v) >= 0 else ""
                               for kind, v in command.replacement))
            done = True
        if begin == end:
            if begin < len(space):
                out.append(space[begin])
            start = end + 1
        else:
            start = end
        if done and not command.every:
            break
    if start < len(space):
        out.append(space[start:])
    return ("".join(out), True) if done else (space, False)
