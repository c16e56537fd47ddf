"""A command's output written into a file: `ls > files.txt`, `grep -n def src/*.py > defs.txt`,
`git log --oneline > log.txt`, `seq 1 120 > data.txt`, `sort a.txt >> all.txt`. bash opens the file
first (made, or emptied; `>>`: as it was), so the command sees it (`ls` lists it, `cat f > f` reads
it empty); the command's output goes into it, its complaints to the terminal.

Where the state answers the command (on the state with the file opened) and can tell its two
streams apart (streams.split), the terminal shows the complaints and the file holds the output, byte
for byte. `echo` and `printf` into a file are the rules' own (silent.py, effects.py); any other line
with a redirection, or a command the state does not answer, is left to what handled it before.
"""

from __future__ import annotations

import re
from typing import Callable

from . import streams
from .output import shell_words
from .state import TerminalState, _abs, _write

Said = Callable[[dict, str], tuple[str, int] | None]  # (a state, a command): the state's answer
Apply = Callable[[dict, str, str, int, str], dict]
_OWN = frozenset({"echo", "printf"})  # (written by the rules themselves)


def read(command: str) -> tuple[str, str, bool] | None:
    """(the command without its redirection, the file's name, whether it appends) for a simple command
    or a pipeline whose output alone goes into one file; None for any other line."""
    bare = streams.masked(command)
    found = streams.redirections(command) if bare is not None and "<<" not in command else None
    if not found or len(found) != 1 or found[0].fd != 1 or found[0].to in ("null", "&1", "&2"):
        return None
    r = found[0]
    if r.end != len(command.rstrip()) or re.search(r"\|\||[;&()`\n<]", bare[:r.start]):  # type: ignore[index]
        return None  # (the redirection last, after one command or one pipeline)
    line = command[:r.start].strip()
    words = shell_words(line)
    name = command[r.start:r.end].lstrip("0123456789").lstrip(">").strip()
    if not words or words[0] in _OWN or name != r.to or not re.fullmatch(r"(?:~/)?[A-Za-z0-9._/+-]+", name):
        return None  # (`~foo` is user foo's home, or the name as typed: not followed)
    return line, name, r.append


def _stages(line: str) -> list[list[str]]:
    """The words of each command of a pipeline (split where the line's own `|` are, not a quoted one)."""
    bare = streams.masked(line) or ""
    cuts = [i for i, c in enumerate(bare) if c == "|"]
    return [shell_words(line[a + 1:b]) or [""] for a, b in zip([-1, *cuts], [*cuts, len(line)])]


def _reads_itself(line: str, path: str, s: TerminalState) -> bool:
    """The command may read the file it writes: named among its words (`sort f > f`), or below a
    folder grep -r walks (`grep -rn x . > out.txt`: grep says "input file is also the output")."""
    for words in _stages(line):
        named = [_abs(w, s) for w in words[1:] if not w.startswith("-")]
        if path in named:
            return True
        recursive = words[0] == "rgrep" or words[0] == "grep" and \
            any(w in ("--recursive", "--dereference-recursive") or re.fullmatch(r"-[A-Za-z]*[rR][A-Za-z]*", w)
                for w in words[1:])
        if recursive and any(p == "/" or path.startswith(p.rstrip("/") + "/") for p in named[1:] or [s.cwd]):
            return True
    return False


def _opened(state: dict, line: str, name: str, append: bool) -> dict | None:
    """The state once bash opened `name` to write (made or emptied; appended to: as it was); None where
    bash may not open it (a folder, a folder not there, outside where files are written), or where
    the command may read what it writes."""
    if not streams._opens(name, state):
        return None
    s = TerminalState.model_validate(state)
    path = _abs(name, s)
    if "/.git/" in path + "/" or _reads_itself(line, path, s):
        return None
    _write(s, path, "", append)
    return s.model_dump()


def _told(line: str, said: tuple[str, int], state: dict) -> tuple[str, str] | None:
    """(what went into the file, what reached the terminal) of the state's answer to `line`."""
    text, code = said
    stages = _stages(line)
    if len(stages) == 1:
        return streams.split(line, text, code, state)
    if code == 0 and "binary file matches" not in text and \
            all(stage[0] in streams.TO_STDOUT for stage in stages if stage):
        return text, ""  # (a pipeline of programs that print to their output alone)
    return None


def answer(state: dict, command: str, said: Said) -> tuple[str, int] | None:
    """What the terminal shows of `command` (its complaints) and its exit code; None: not answered here."""
    parsed = read(command)
    staged = _opened(state, *parsed) if parsed else None
    if parsed is None or staged is None or (answered := said(staged, parsed[0])) is None:
        return None
    told = _told(parsed[0], answered, staged)
    return None if told is None else (told[1], answered[1])


def applied(state: dict, command: str, output: str, code: int, cwd: str, said: Said, apply: Apply) -> dict | None:
    """The state after `command` showed `output`: as after the command alone, its file holding what it
    printed; None where the state's answer is not reality's (the line is then followed as before)."""
    parsed = read(command)
    staged = _opened(state, *parsed) if parsed else None
    if parsed is None or staged is None or (answered := said(staged, parsed[0])) is None or answered[1] != code:
        return None
    told = _told(parsed[0], answered, staged)
    if told is None or told[1] != output:
        return None
    after = apply(staged, parsed[0], answered[0], code, cwd)
    s = TerminalState.model_validate(after)
    path = _abs(parsed[1], TerminalState.model_validate(state))  # (opened where the shell was: `cd x > f`)
    _write(s, path, told[0], True)  # (onto the file as bash opened it)
    if path not in state.get("files", {}):
        s.seen = {}  # (a new file: what ls showed has changed)
    return s.model_dump()
