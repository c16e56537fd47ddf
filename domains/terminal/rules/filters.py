"""Reading, counting and searching files the state knows, and short pipelines of text filters over
them, computed exactly as GNU coreutils and grep print them (C.UTF-8 locale, no terminal):

    cat -n F · head [-n N|-N] F · tail [-n N|-N] F · sed -n 'A,Bp' F · wc -l|-c|-w F
    grep [-n] [-c] [-v] [-i] WORD F · and any of them (or `cat F`, `ls`) piped into
    head, tail, wc, grep, sort [-r], uniq [-c], tr a-z A-Z / A-Z a-z

Anything else — a regular expression, an option not listed, a file whose contents the state does
not know, a glob, a variable — is left to the model (None). Every answer here is checked byte for
byte against the real sandbox over the recorded corpus (benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import re
from typing import Callable

from .output import shell_words

# A grep pattern read as a fixed string: letters, digits and punctuation that mean nothing to a
# basic regular expression (a leading ^ and a trailing $ are anchors, handled).
_WORD = re.compile(r"\^?[A-Za-z0-9_ :,=()'\"#@%/-]*\$?")  # (empty: every line)
_LINES = re.compile(r"-(\d+)")


def _lines(text: str) -> list[str]:
    """Lines with their newline; a last line without one stays as it is."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _count(args: list[str], default: int = 10) -> tuple[int, list[str]] | None:
    """`-n N`, `-nN`, `-N`: the count, and the other arguments (None: an option not understood)."""
    n, rest, i = default, [], 0
    while i < len(args):
        a = args[i]
        if a == "-n" and i + 1 < len(args) and args[i + 1].isdigit():
            n, i = int(args[i + 1]), i + 2
            continue
        if a.startswith("-n") and a[2:].isdigit():
            n = int(a[2:])
        elif _LINES.fullmatch(a):
            n = int(a[1:])
        elif a.startswith("-"):
            return None
        else:
            rest.append(a)
        i += 1
    return n, rest


def _grep(args: list[str]) -> tuple[Callable[[str], tuple[str, int]], list[str]] | None:
    flags, rest = set(), []
    for a in args:
        if a.startswith("-") and len(a) > 1 and not rest:
            if not set(a[1:]) <= set("ncvi"):
                return None
            flags |= set(a[1:])
        else:
            rest.append(a)
    if not rest or not _WORD.fullmatch(rest[0]):
        return None
    pattern, files = rest[0], rest[1:]
    start, end = pattern.startswith("^"), pattern.endswith("$")
    word = pattern[1 if start else 0:len(pattern) - (1 if end else 0)]
    if "i" in flags:
        word = word.lower()

    def run(text: str) -> tuple[str, int]:
        if "\0" in text or ("i" in flags and not text.isascii()):
            raise _Unknown
        hits = []
        for n, line in enumerate(_lines(text), 1):
            body = line.rstrip("\n")
            probe = body.lower() if "i" in flags else body
            if start and end:
                found = probe == word
            else:
                found = probe.startswith(word) if start else probe.endswith(word) if end else word in probe
            if found != ("v" in flags):
                hits.append((f"{n}:" if "n" in flags and "c" not in flags else "") + body + "\n")
        if "c" in flags:
            return f"{len(hits)}\n", 0 if hits else 1
        return "".join(hits), 0 if hits else 1

    return run, files


class _Unknown(Exception):
    pass


def _filter(words: list[str]) -> tuple[Callable[[str], tuple[str, int]], list[str]] | None:
    """A stage that reads text: its function, and the files it names (empty: it reads its input)."""
    cmd, args = words[0], words[1:]
    if cmd in ("head", "tail"):
        parsed = _count(args)
        if parsed is None:
            return None
        n, files = parsed

        def cut(text: str) -> tuple[str, int]:
            lines = _lines(text)
            return "".join(lines[:n] if cmd == "head" else (lines[-n:] if n else [])), 0

        return cut, files
    if cmd == "wc":
        opts = [a for a in args if a.startswith("-")]
        files = [a for a in args if not a.startswith("-")]
        if len(opts) != 1 or opts[0] not in ("-l", "-c", "-w"):
            return None
        which = opts[0]

        def wc(text: str) -> tuple[str, int]:
            n = text.count("\n") if which == "-l" else len(text.encode()) if which == "-c" else len(text.split())
            return f"{n}{' ' + files[0] if files else ''}\n", 0

        return wc, files
    if cmd == "grep":
        return _grep(args)
    if cmd == "cat" and args[:1] == ["-n"] and len(args) == 2:
        def numbered(text: str) -> tuple[str, int]:
            return "".join(f"{n:6d}\t{line}" for n, line in enumerate(_lines(text), 1)), 0

        return numbered, args[1:]
    if cmd == "cat" and len(args) <= 1 and not any(a.startswith("-") for a in args):
        return (lambda text: (text, 0)), args
    if cmd == "sed" and len(args) == 3 and args[0] == "-n":
        m = re.fullmatch(r"(\d+)(?:,(\d+))?p", args[1])
        if not m:
            return None
        first, last = int(m.group(1)), int(m.group(2) or m.group(1))

        def lines(text: str) -> tuple[str, int]:
            return "".join(_lines(text)[max(first, 1) - 1:last]), 0

        return lines, args[2:]
    if cmd == "sort" and all(a == "-r" for a in args):
        def sort(text: str) -> tuple[str, int]:
            lines = [line.rstrip("\n") for line in _lines(text)]
            return "".join(line + "\n" for line in sorted(lines, key=lambda s: s.encode(), reverse=bool(args))), 0

        return sort, []
    if cmd == "uniq" and args in ([], ["-c"]):
        def uniq(text: str) -> tuple[str, int]:
            runs: list[list] = []
            for line in (x.rstrip("\n") for x in _lines(text)):
                if runs and runs[-1][0] == line:
                    runs[-1][1] += 1
                else:
                    runs.append([line, 1])
            return "".join((f"{c:7d} {line}\n" if args else line + "\n") for line, c in runs), 0

        return uniq, []
    if cmd == "tr" and args in (["a-z", "A-Z"], ["A-Z", "a-z"]):
        def tr(text: str) -> tuple[str, int]:
            table = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
            if args[0] == "A-Z":
                table = {v: k for k, v in table.items()}
            return text.translate(table), 0

        return tr, []
    return None


def answer(command: str, read: Callable[[str], str | None],
           listing: Callable[[list[str]], str | None]) -> tuple[str, int] | None:
    """The output and exit code of `command` when every file it reads is known (`read(name)`: the
    file's contents or None) and what `ls ARGS` prints is known (`listing(args)`); None: the model
    answers."""
    if any(c in command for c in "$`\\*?[]{}~<>;&") or "||" in command:
        return None
    words = shell_words(command)
    if not words:
        return None
    stages: list[list[str]] = [[]]
    for w in words:
        if w == "|":
            stages.append([])
        else:
            stages[-1].append(w)
    if any(not st for st in stages) or len(stages) > 4:
        return None
    text: str | None = None
    code = 0
    try:
        for n, stage in enumerate(stages):
            if n == 0 and stage[0] == "ls" and len(stages) > 1:
                text = listing(stage[1:])
                if text is None:
                    return None
                continue
            found = _filter(stage)
            if found is None:
                return None
            run, files = found
            if n == 0:
                if len(files) != 1:
                    return None
                text = read(files[0])
                if text is None:
                    return None
            elif files:
                return None  # a later stage reading a file of its own: not a filter of the pipe
            assert text is not None
            text, code = run(text)
    except _Unknown:
        return None
    if len(stages) == 1 and stages[0][0] == "cat" and stages[0][1:2] != ["-n"]:
        return None  # plain cat is the shell's own rule
    return text, code
