"""Where a command's two streams go: `2>&1`, `2>/dev/null`, `>/dev/null 2>&1`, `&>/dev/null`, `>&2`,
`2> err.log`, `&> log`, as agents end many of their commands with one.

The sandbox reads a command's standard output and its errors through one pipe, so the state's
answer to a command is what `CMD 2>&1` sends down a pipe. A redirection of the errors, or into
/dev/null, changes what is shown and where, never what the command does: the state answers the
command without it, then shows what reaches the terminal. Shown alone, the output and the errors
must be told apart (`split`): a command that printed nothing; one that succeeded and prints to its
standard output alone (echo, ls, grep, git log…); one that failed and printed only its complaints
(`ls: cannot access 'x': …`). Otherwise the line is the model's.

A redirection of the output into a file stays in the line for the rules (`> f`; `&> f` is written
so), a file the errors go into is opened before the command runs, and a descriptor not read here
(`>&3`, `2>&-`) leaves the line to the model (`unread`). Before, the words after the command were
read as its own: `mkdir d 2>/dev/null` made no folder in the state (and `ls` was answered without
it), `echo hi > f 2>&1` wrote `hi 2 >& 1` into f.
"""

from __future__ import annotations

import functools
import posixpath
import re
from typing import Callable, NamedTuple

from . import grepbytes, inturn
from .output import shell_words
from .state import TerminalState, _abs, _forget_writes, _kind, _writable, _write
from .substitution import closing

# Programs that print to their standard output alone where they succeed (git's: the commands that read)
TO_STDOUT = frozenset({"echo", "printf", "cat", "head", "tail", "wc", "grep", "ls", "basename", "dirname", "sort",
                       "uniq", "cut", "tr", "awk", "sed", "pwd", "seq", "nl", "rev", "tac", "realpath", "readlink",
                       "du", "find", "expr", "whoami", "hostname", "which", "printenv", "type", "true", "false",
                       "python3"})  # (python3 as the rules answer it: print's; a warning, print(file=): the model's)
GIT_TO_STDOUT = frozenset({"log", "show", "status", "diff", "branch", "rev-parse", "ls-files", "blame", "grep"})


class Redirection(NamedTuple):
    start: int
    end: int
    fd: int  # 1, 2, or 0 for both (`&>`)
    to: str  # "null", "&1", "&2", or a file's name
    append: bool


class Streams(NamedTuple):
    """A simple command's redirections read: the line the state answers (those into files kept for
    the rules, `> f`), where its output and its errors end ("cap": shown; "null"; a file's name)."""
    line: str
    out: str
    err: str
    err_append: bool = False  # (`2>> f`)


@functools.lru_cache(maxsize=64)
def masked(command: str) -> str | None:
    """The line with what quotes, escapes and substitutions hold written over (`_`), the same length;
    None where a quote or a parenthesis is not closed. (Read once per line: answering, following and
    applying it ask again.)"""
    out, i, quote = list(command), 0, ""
    while i < len(command):
        c = command[i]
        if quote:
            out[i] = "_"
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"' and i + 1 < len(command):
                i += 1
                out[i] = "_"
        elif c in "'\"":
            quote, out[i] = c, "_"
        elif c == "\\" and i + 1 < len(command):
            out[i] = out[i + 1] = "_"
            i += 1
        elif command.startswith("$(", i):
            end = closing(command, i + 2)
            if end is None:
                return None
            out[i:end + 1] = "_" * (end + 1 - i)
            i = end
        i += 1
    return None if quote else "".join(out)


_TARGET = re.compile(r"\s*([^\s|;&<>()]+)")


@functools.lru_cache(maxsize=64)
def redirections(command: str) -> tuple[Redirection, ...] | None:
    """Every output redirection of the line, in order; None where the line is not read here (an open
    quote, `>|`, `<>`, a descriptor past 2, a target made of an expansion)."""
    bare = masked(command)
    if bare is None:
        return None
    found, i = [], 0
    while (i := bare.find(">", i)) >= 0:
        start, fd = i, 1
        if i > 0 and bare[i - 1] == "&" and (i < 2 or bare[i - 2] != ">"):
            start, fd = i - 1, 0
        elif i > 0 and bare[i - 1].isdigit() and (i < 2 or bare[i - 2] in " \t|;&("):
            start, fd = i - 1, int(bare[i - 1])
        elif i > 0 and bare[i - 1] in "<>|":
            return None
        append = bare.startswith(">>", i)
        i += 2 if append else 1
        if fd > 2 or bare[i:i + 1] in ("|", ">"):
            return None
        if bare[i:i + 1] == "&" and fd:
            dup = re.match(r"&([12])(?=$|[\s|;&)])", bare[i:])
            if dup is not None and not append:
                found.append(Redirection(start, i + 2, fd, dup.group(0), False))
                i += 2
                continue
            if fd != 1 or append or not re.match(r"&\s*[^\s\d-]", bare[i:]):
                return None  # (`>&3`, `2>&-`: not read here)
            i, fd = i + 1, 0  # (`>& f`: both streams, as `&> f`)
        target = _TARGET.match(bare, i)
        if target is None:
            return None
        name = command[target.start(1):target.end(1)]
        if fd != 1 and (name != target.group(1) or re.search(r"[$~*?\[{]", name)):
            return None  # (the errors into a name quoted, or made by an expansion or a pattern: not read here)
        found.append(Redirection(start, target.end(), fd, "null" if name == "/dev/null" else name, append))
        i = target.end()
    return tuple(found)


def simple(command: str, piped: bool = False) -> Streams | None:
    """A simple command (no pipe, list or group) with a redirection that is not the rules' own (`> f`,
    `>> f` of its output alone): the line without those, and where each stream ends ("cap": where the
    terminal shows it; `piped`: the command heads a pipe, and its output starts in it, "pipe"). None
    where the line holds none such, or is not one command."""
    bare = masked(command)
    found = redirections(command) if bare is not None else None
    if not found or re.search(r"[|;&()`\n]|<<", re.sub(r"[0-9]?>&[12]|&>>?|>&", "", bare or "")):
        return None
    ends = {1: "pipe" if piped else "cap", 2: "cap"}
    kept: list[Redirection] = []
    for r in found:
        for fd in ((1, 2) if r.fd == 0 else (r.fd,)):
            ends[fd] = ends[int(r.to[1])] if r.to in ("&1", "&2") else r.to
        if r.fd in (0, 1) and r.to not in ("null", "&1", "&2"):
            kept.append(r)  # (`> f`, and `&> f` written for the rules as `> f`, the errors then among it)
    if all(r.fd == 1 and r.to not in ("null", "&2") for r in found) or len(kept) > 1 or \
            kept and (piped or ends[1] != kept[0].to):
        return None  # (`> f` alone is the rules'; two files, or one left again: the model's)
    line, at = "", 0
    for r in found:
        if r not in kept or r.fd == 0:
            line += command[at:r.start] + ((">> " if r.append else "> ") + r.to if r in kept else "")
            at = r.end
    line = (line + command[at:]).strip()
    appended = any(r.append for r in found if r.fd == 2 and r.to == ends[2])
    return Streams(line, ends[1], ends[2], appended) if shell_words(line) else None


def headed(command: str) -> tuple[Streams, str] | None:
    """`CMD 2>&1 | REST`, `CMD 2>/dev/null | REST`: the first command's streams (`simple`, heading a
    pipe) and the pipeline after it, where no later stage redirects; None otherwise."""
    bare = masked(command)
    at = bare.find("|") if bare is not None else -1
    if at <= 0 or bare[at + 1:at + 2] in ("|", "&") or ">" in bare[at:] or re.search(r"[;&()`\n]|<<", bare[at:]):
        return None
    head = simple(command[:at], piped=True)
    return None if head is None or not command[at + 1:].strip() else (head, command[at + 1:].strip())


def quiet(command: str) -> str:
    """The line without the redirections that write no file (`2>&1`, `2>/dev/null`): what it changes
    is the same (the folder a `cd` leaves the shell in)."""
    found = redirections(command) or ()
    line, at = "", 0
    for r in found:
        if r.to in ("null", "&1", "&2"):
            line, at = line + command[at:r.start], r.end
    return (line + command[at:]).strip() if found else command


def unredirected(s: TerminalState, command: str) -> str:
    """The line with every redirection but the rules' own (`> f` of a command's output) taken out, for
    what its commands change; a file their errors went into (`2> err.txt`, `&> log`) written in `s`,
    with what is not known (or, in a folder the state does not know is there, every listing forgotten)."""
    found = redirections(command) or ()
    line, at = "", 0
    for r in found:
        if r.to in ("null", "&1", "&2") or r.fd != 1:
            line, at = line + command[at:r.start], r.end
        if r.fd != 1 and r.to not in ("null", "&1", "&2"):
            path = _abs(r.to, s)
            if posixpath.dirname(path) in s.dirs:
                _write(s, path, None, r.append)
            else:
                _forget_writes(s, None)
    return (line + command[at:]).strip() if found else command


def split(line: str, text: str, code: int, state: dict | None = None) -> tuple[str, str] | None:
    """(what `line` printed to its standard output, and to its errors), from what it printed to both
    (the state's answer; on `state`, where given); None where they cannot be told apart."""
    if not text:
        return "", ""
    words = shell_words(line) or [""]
    program = words[0]
    if program in inturn.TOOLS and code == 1 and state is not None and \
            (pieces := inturn.pieces(words, TerminalState.model_validate(state))) is not None and \
            "".join(t for t, _ in pieces) == text:  # (`cat a nope`: which part is which, from what is at each)
        return "".join(t for t, err in pieces if not err), "".join(t for t, err in pieces if err)
    if program == "grep" and code == 0 and "binary file matches" in text:
        return grepbytes.binary_told(words, text)  # (grep -r of a repository's .git: its messages, to the errors)
    if code == 0 and (program in TO_STDOUT or program == "git" and words[1:2] and words[1] in GIT_TO_STDOUT or
                      words[:2] == ["command", "-v"]):
        return text, ""
    if code != 0 and text.endswith("\n") and all(_complaint(program, ln) for ln in text.splitlines()):
        return "", text
    if program == "ls" and code == 2:  # (`ls src nope`: ls complains of each name not there before it lists)
        lines = text.splitlines(keepends=True)
        absent = 0
        while absent < len(lines) and _NOT_THERE.fullmatch(lines[absent]):
            absent += 1
        if absent and not any(ln.startswith("ls: ") for ln in lines[absent:]):
            return "".join(lines[absent:]), "".join(lines[:absent])
    return None


_NOT_THERE = re.compile(r"ls: cannot access '[^'\n]*': No such file or directory\n")


def _parts(streams: Streams, text: str, code: int, state: dict | None = None) -> tuple[str, str] | None:
    """`split`, where what the command shows with its output into a file of the rules' (`> f`) is all
    its errors."""
    return ("", text) if streams.out not in ("cap", "null", "pipe") else split(streams.line, text, code, state)


def _complaint(program: str, line: str) -> bool:
    """A line a program writes to its errors: its name first (`ls: cannot access …`), bash's for a
    builtin, git's `fatal:`/`error:`/`hint:`, or the pointer to `--help`."""
    if program == "git":
        return line.startswith(("fatal: ", "error: ", "hint: ", "usage: "))
    return line.startswith((f"{program}: ", f"/bin/bash: line 1: {program}: ", f"Try '{program} --help'"))


def reaching(streams: Streams, said: tuple[str, int] | None, where: str, state: dict | None = None) -> str | None:
    """What of the state's answer to `streams.line` (both streams, in the order written, on `state`)
    reaches `where` ("cap", "pipe", a file); None where the two cannot be told apart."""
    if said is None:
        return None
    text, code = said
    if streams.out == where and streams.err == where:
        return text
    if where not in (streams.out, streams.err):
        return ""
    parts = _parts(streams, text, code, state)
    if parts is None:
        return None
    return (parts[0] if streams.out == where else "") + (parts[1] if streams.err == where else "")


Said = Callable[[dict, str], tuple[str, int] | None]  # (a state, a command): the state's answer (shell._said)


def tailed(command: str) -> Streams | None:
    """`A | B 2>/dev/null`, `A | B 2>&1`: the errors of a later command of a pipe sent away or along,
    which changes nothing the state answers (it answers a pipe only where its later commands print
    no errors): the pipe without them."""
    bare, found = masked(command), redirections(command)
    first = bare.find("|") if bare is not None else -1
    if not found or first <= 0 or any(r.start < first or r.fd != 2 or r.to not in ("null", "&1") for r in found) or \
            re.search(r"\|\||[;&()`\n]|<<", re.sub(r"2>&1", "", bare or "")):
        return None
    line, at = "", 0
    for r in found:
        line, at = line + command[at:r.start], r.end
    return Streams((line + command[at:]).strip(), "cap", "cap")


def unread(command: str) -> bool:
    """A line with a redirection not read here (`>&3`, `3>&1`, `2>&-`, `>|`): the state answers none of it."""
    return ">" in command and "<<" not in command and masked(command) is not None and redirections(command) is None


def read(command: str) -> tuple[Streams, str | None] | None:
    """A simple command's streams (`simple`), or a pipe's first command's and the pipeline after it
    (`headed`); None: the line redirects no stream, or not as read here."""
    if ">" not in command or "<<" in command:
        return None  # (a here-document's text is not the line's: its own rules')
    alone = simple(command) or tailed(command)
    return (alone, None) if alone is not None else headed(command)


def shown(state: dict, redirected: tuple[Streams, str | None], said: Said,
          pipe: Callable[[str, str], tuple[str, int] | None]) -> tuple[str, int] | None:
    """What the terminal shows of a line `read` read, from the state's answer to its command without
    the redirections (`said`, on the state with a file the errors go into opened), and for a pipe,
    what the pipeline makes of what reaches it (`pipe`)."""
    streams, rest = redirected
    if _own(streams) and not _opens(streams.err, state):
        return None  # (the complaints into a file of their own that bash may not open)
    staged = _opened(state, streams)
    answered = said(staged, streams.line)
    if answered is None:
        return None
    shows = reaching(streams, answered, "cap", staged)
    if rest is None:
        return None if shows is None else (shows, answered[1])
    fed = reaching(streams, answered, "pipe", staged)
    if shows != "" or fed is None:
        return None  # (a complaint on the terminal while the pipe runs: in which order, not known here)
    return pipe(fed, rest)


def _own(streams: Streams) -> bool:
    """The errors go into a file of their own (`2> err.txt`)."""
    return streams.err not in ("cap", "null", "pipe", streams.out)


def _opens(name: str, state: dict) -> bool:
    """bash can open `name` to write: a file or nothing, in a folder the state knows is there, where
    files can be written."""
    s = TerminalState.model_validate(state)
    path = _abs(name, s)
    return _writable(path) and posixpath.dirname(path) in s.dirs and _kind(path, s) in ("file", "missing")


def _opened(state: dict, streams: Streams) -> dict:
    """The state once bash opened the file the errors go into, before the command runs (made, or
    emptied; `2>>`: as it was): `git status` then lists it."""
    if not _own(streams) or not _opens(streams.err, state):
        return state
    s = TerminalState.model_validate(state)
    _write(s, _abs(streams.err, s), "", streams.err_append)
    return s.model_dump()


_SUBSHELL_ONLY = frozenset({"cd", "export", "unset", "alias", "source", ".", "set", "shopt", "pushd", "popd"})


def applied(state: dict, streams: Streams, output: str | None, code: int, cwd: str, said: Said,
            apply: Callable[[dict, str, str, int, str], dict]) -> dict | None:
    """The state after a simple command whose streams were redirected: as after the command alone
    (given all it printed, where the state knows it), and a file its errors went into written with
    them (not known, where the state cannot tell them). `output` None: the command heads a pipe, and
    what it printed is not what the terminal showed; the state after it, where the state knows what
    it did (None: not known; a `cd` there moves no shell)."""
    staged = _opened(state, streams)
    answered = said(staged, streams.line)
    if output is None:
        words = shell_words(streams.line) or [""]
        if answered is None or words[0] in _SUBSHELL_ONLY or "=" in words[0]:
            return None
        return apply(staged, streams.line, answered[0], answered[1], cwd)
    known = answered is not None and answered[1] == code and reaching(streams, answered, "cap", staged) == output
    after = apply(staged, streams.line, answered[0] if known and answered else output, code, cwd)
    if streams.err in ("cap", "null", "pipe"):
        return after
    path = _abs(streams.err, TerminalState.model_validate(state))  # (opened where the shell was: `cd x 2> f`)
    s = TerminalState.model_validate(after)
    if streams.err == streams.out:  # (`> f 2>&1`: the complaints too, among what the rules wrote)
        if not known or answered is None or answered[0]:
            if path in s.files:
                s.files[path] = None
    elif posixpath.dirname(path) in s.dirs:
        parts = _parts(streams, *answered, staged) if known and answered else None
        _write(s, path, parts[1] if parts else None, True)  # (onto the file as bash opened it)
    else:
        _forget_writes(s, None)
    return s.model_dump()
