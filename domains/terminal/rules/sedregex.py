"""sed's and grep's regular expressions (POSIX basic, or extended with `-E`), as RE2 runs them.

GNU sed matches leftmost-longest, as POSIX says; RE2's `longest_match` does too, in time linear in
the text, so a hostile pattern costs what a plain one does. What is taken: `.`, `*`, anchors,
bracket expressions with the POSIX classes, groups, intervals, alternation, GNU's `\\+`, `\\?`,
`\\|`, `\\w`, `\\W`, `\\s`, `\\S`, `\\b`, `\\B`, `\\n`, `\\t`. What is not (None, the model's):
back-references, `\\<`, `\\>`, `\\``, `\\'`, a backslash inside brackets, collating and
equivalence classes, and any byte past ASCII (what `.` and the classes take there is the
locale's). Checked against the real sed on many generated patterns (tests/test_state.py).
"""

from __future__ import annotations

import functools
from typing import Any

CLASSES = ("alpha", "digit", "alnum", "upper", "lower", "space", "blank", "punct", "print", "graph", "cntrl", "xdigit")
MAX_PATTERN = 300  # characters of one regular expression (longer: not taken)
_PERL = {"w": r"\w", "W": r"\W", "s": r"\s", "S": r"\S", "b": r"\b", "B": r"\B", "n": r"\n", "t": r"\t"}


class NotTaken(Exception):
    """A pattern sed reads in a way not followed here."""


def translate(pattern: str, extended: bool, delim: str = "/", grep: bool = False) -> str:
    """The RE2 form of a sed pattern (`\\<delim>` is the delimiter itself); NotTaken otherwise.
    `grep`: as GNU grep reads it, which warns of a backslash before a character it gives no meaning
    ("stray \\ before -") and takes `\\n`, `\\t` as such: only the escapes of its special
    characters and its classes are taken."""
    if not pattern or len(pattern) > MAX_PATTERN or not pattern.isascii():
        raise NotTaken(pattern)
    out: list[str] = []
    i, n = 0, len(pattern)
    # where `*` is a literal and `^` an anchor in a basic expression: at the start, after `\(` and `\|`
    start = True
    depth = 0
    quantifiable = False  # (the last item is one a `*` may follow: not an anchor, a word boundary, `(`, `|`)
    while i < n:
        c = pattern[i]
        at_start, start = start, False
        after_atom, quantifiable = quantifiable, True
        if c in "*+?{" and extended or c == "*" and not at_start or \
                c == "\\" and not extended and pattern[i + 1:i + 2] in ("{", "+", "?"):
            if not after_atom and not (c == "*" and at_start and not extended):
                raise NotTaken(pattern)  # (`\b*`, `^*` in -E, `$?`, `a?{2}`: sed refuses, or reads its own way)
            quantifiable = not after_atom  # (a quantifier takes no other after it here; a literal `*` does)
        if c == "\\":
            if i + 1 >= n:
                raise NotTaken(pattern)  # (a trailing backslash: sed refuses it)
            e = pattern[i + 1]
            i += 2
            if grep and e not in ".*[]^$\\(){}|+?wWsSbB":
                raise NotTaken(pattern)  # (grep's warning first: the model's)
            if e == delim and delim not in "\n\\":
                out.append(_literal(e))
            elif not extended and e in "(|":
                depth += e == "("
                out.append("(" if e == "(" else "|")
                start, quantifiable = True, False
            elif not extended and e == ")":
                depth -= 1
                out.append(")")
            elif not extended and e == "{":
                i = _interval(pattern, i, "\\}", out)
            elif not extended and e in "+?":
                if at_start:
                    raise NotTaken(pattern)
                out.append(e)
            elif e in _PERL:
                out.append(_PERL[e])
                quantifiable = e not in "bB"
            elif e in ".*[]^$\\/+?(){}|&,;:=#%@!~-_\" ":
                out.append(_literal(e))
            else:
                raise NotTaken(pattern)  # (back-references, word starts and ends, other escapes)
            continue
        i += 1
        if c == "[":
            i = _bracket(pattern, i, out)
        elif c == "*":
            if at_start and extended:
                raise NotTaken(pattern)
            out.append(r"\*" if at_start else "*")
        elif c == "^":
            if extended or at_start and out[-1:] != ["^"]:  # (`^^`: the second is a literal)
                out.append("^")
                start, quantifiable = not extended, False
            else:
                out.append(r"\^")
        elif c == "$":
            ends = i == n or pattern.startswith("\\)", i) or pattern.startswith("\\|", i)
            out.append("$" if extended or ends else r"\$")
            quantifiable = not (extended or ends)
        elif c == ".":
            out.append(".")
        elif extended and c in "()|":
            depth += {"(": 1, ")": -1, "|": 0}[c]
            out.append(c)
            quantifiable, start = c == ")", c != ")"
        elif extended and c == "{":
            i = _interval(pattern, i, "}", out)
        elif extended and c in "+?":
            if at_start:
                raise NotTaken(pattern)
            out.append(c)
        else:
            out.append(_literal(c))
        if depth < 0:
            raise NotTaken(pattern)
    if depth:
        raise NotTaken(pattern)
    return "".join(out)


def _literal(c: str) -> str:
    return c if c.isalnum() or c in " _" else "\\" + c if c.isprintable() else f"\\x{ord(c):02x}"


def _interval(pattern: str, i: int, close: str, out: list[str]) -> int:
    end = pattern.find(close, i)
    body = pattern[i:end] if end >= 0 else ""
    low, comma, high = body.partition(",")
    if end < 0 or not low.isdigit() or not (high.isdigit() or not high) or not out or out[-1] in ("(", "|", "^") or \
            int(low) > 255 or (high and int(high) > 255) or (high and int(high) < int(low)):
        raise NotTaken(pattern)
    out.append("{" + body + "}")
    return end + len(close)


def _bracket(pattern: str, i: int, out: list[str]) -> int:
    """A bracket expression from just past its `[`: RE2's own, each character spelled out."""
    n = len(pattern)
    negated = i < n and pattern[i] == "^"
    i += negated
    items: list[str] = []
    first = True
    while True:
        if i >= n:
            raise NotTaken(pattern)
        c = pattern[i]
        if c == "]" and not first:
            break
        first = False
        if c == "\\":
            raise NotTaken(pattern)  # (a backslash there: POSIX takes it as itself, GNU sed not always)
        if c == "[" and pattern.startswith(("[.", "[="), i):
            raise NotTaken(pattern)
        if c == "[" and pattern.startswith("[:", i):
            end = pattern.find(":]", i + 2)
            if end < 0 or pattern[i + 2:end] not in CLASSES:
                raise NotTaken(pattern)
            items.append(pattern[i:end + 2])
            i = end + 2
            continue
        if i + 2 < n and pattern[i + 1] == "-" and pattern[i + 2] != "]":
            low, high = c, pattern[i + 2]
            if high in "\\[" or ord(high) < ord(low):
                raise NotTaken(pattern)
            items.append(f"{_literal(low)}-{_literal(high)}")
            i += 3
            continue
        items.append(_literal(c))
        i += 1
    out.append("[" + ("^" if negated else "") + "".join(items) + "]")
    return i + 1


@functools.lru_cache(maxsize=256)
def compiled(pattern: str, extended: bool, delim: str, ignore_case: bool, grep: bool = False) -> Any:
    """The compiled RE2 of a sed (or `grep`) pattern, leftmost-longest; NotTaken where RE2 refuses it."""
    import re2

    options = re2.Options()
    options.longest_match = True
    options.posix_syntax = True
    options.one_line = True  # (`^` and `$` at the pattern space's ends only, as sed without `M`)
    options.dot_nl = True  # (`.` takes a newline `s/x/\n/` put there, as sed's does)
    options.perl_classes = True
    options.word_boundary = True
    options.case_sensitive = not ignore_case
    options.max_mem = 8 << 20
    try:
        return re2.compile(translate(pattern, extended, delim, grep), options)
    except re2.error as err:
        raise NotTaken(pattern) from err

