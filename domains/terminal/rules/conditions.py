"""`test EXPR`, `[ EXPR ]` and `[[ EXPR ]]` answered on the state: nothing printed, and 0 where the
expression holds (1 where not). test's arguments are read by their number, as POSIX reads up to four;
`[[`'s as bash reads them (doubletest.py); a file test where the state knows what is at the path."""

from __future__ import annotations

import re

from . import doubletest
from .line import _expansions
from .output import shell_words
from .state import _PLAIN, TerminalState, _abs, _kind


_TESTS = {"-f": "file", "-d": "dir", "-e": "any", "-s": "nonempty"}
_NUMBERS = {"-eq": int.__eq__, "-ne": int.__ne__, "-lt": int.__lt__, "-le": int.__le__, "-gt": int.__gt__,
            "-ge": int.__ge__}


def condition(s: TerminalState, command: str, run: doubletest.Run | None = None) -> tuple[str, int] | None:
    """`test EXPR`, `[ EXPR ]` and `[[ EXPR ]]`: nothing printed, and 0 where it holds (1 where not);
    test's arguments read by their number (`_holds`), `[[`'s as bash reads them (doubletest.py, on the
    line before its variables are written in: `[[` neither splits them nor drops an empty one; `run`:
    what a `$(…)` in it prints); None where the state cannot tell."""
    if command.lstrip().startswith("[["):
        held = doubletest.holds(command, s, lambda op, path: _file_test(op, path, s), run)
        return None if held is None else ("", 0 if held else 1)
    words = shell_words(command)
    if not words or words[0] not in ("test", "[") or "$" in command or "`" in command:
        return None
    if words[0] == "[":
        if words[-1] != "]":
            return None
        words = words[:-1]
    kinds = _expansions(command.lstrip()[1:] if words[0] == "[" else command, s)
    if kinds is None or "glob" in kinds:
        return None  # (`[ $F == */* ]`: the pattern is matched against the files first, "too many arguments")
    holds = _holds(words[1:], s)
    return None if holds is None else ("", 0 if holds else 1)


def _holds(args: list[str], s: TerminalState) -> bool | None:
    """Whether test's expression holds, as POSIX reads one of up to four arguments: `!` negates; a
    file test (`-f|-d|-e|-s PATH`) where the state knows what is at PATH; one word (true where not
    empty), `-z`/`-n`, `=`/`==`/`!=` and numbers compared (`-eq`, `-lt`…). None for anything else."""
    if len(args) == 3 and args[1] in ("=", "==", "!="):
        return (args[0] == args[2]) == (args[1] != "!=")
    if len(args) == 3 and args[1] in _NUMBERS:
        if not all(re.fullmatch(r"[-+]?\d{1,18}", a) for a in (args[0], args[2])):
            return None  # ("integer expression expected": the model's)
        return bool(_NUMBERS[args[1]](int(args[0]), int(args[2])))
    if 2 <= len(args) <= 4 and args[0] == "!":
        inner = _holds(args[1:], s)
        return None if inner is None else not inner
    if len(args) == 2 and args[0] in ("-z", "-n"):
        return (args[1] == "") == (args[0] == "-z")
    if len(args) == 2 and args[0] in _TESTS:
        return _file_test(args[0], args[1], s)
    if len(args) == 1:
        return args[0] != ""
    return None


def _file_test(op: str, name: str, s: TerminalState) -> bool | None:
    """`-f|-d|-e|-s NAME` where the state knows what is at NAME; None for another test or not known."""
    if op not in _TESTS or not _PLAIN.fullmatch(name):
        return None
    path, test = _abs(name, s), _TESTS[op]
    kind = _kind(path, s)
    if kind is None or kind == "file" and test == "nonempty" and s.files.get(path) is None:
        return None
    return kind == "dir" and test in ("dir", "any", "nonempty") or \
        kind == "file" and (test in ("file", "any") or test == "nonempty" and bool(s.files[path]))
