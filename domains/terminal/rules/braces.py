"""Brace expansion, as bash does it before anything else: `mkdir -p src/{models,utils}`,
`cp app.py{,.bak}`, `touch test_{1..3}.py`, `for i in {01..10..3}`, `grep -r x --exclude-dir={.git,build}`.

Agents scaffold with braces. Before, any brace sent the line to the model, and a `mkdir -p` of them
made the state forget every listing below the folder. bash expands braces on the words as typed,
before tildes, variables and patterns, and keeps the quotes of each word for later: so the line is
written again here with each word's expansions in its place, as raw text, and the rules then read a
line with no braces, exactly as bash's later steps read those words.

The line is left as typed, for the rules to leave to the model, where it is not read so here: a
here-document, `[[ … ]]`, `(( … ))` or `case` (no brace expansion there); a word with a backslash,
a brace that closes none, or `..` of its own in braces that are no sequence; an assignment word
with braces (bash expands none) or a word made one; a word that would expand to nothing, start a
comment or end in a backslash; a sequence of other characters than same-case letters or integers;
more than `MAX_WORDS` words. `tests/test_braces.py` runs random lines through bash both ways.
"""

from __future__ import annotations

import functools
import re

from .substitution import closing

MAX_WORDS = 1_024  # words one line may expand to
_INT = re.compile(r"[-+]?[0-9]+")
_METAS = frozenset(" \t\n;&|()<>")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


class _NotRead(Exception):
    """The line holds braces not expanded here."""


@functools.lru_cache(maxsize=64)
def expanded(command: str) -> str:
    """The line with every word's braces expanded as bash expands them; the line as typed where it
    has none, or where they are not read here. (Read once per line: answering, following and applying
    it ask again.)"""
    if "{" not in command or command.rstrip().endswith("\\") or any(w in command for w in ("<<", "[[", "((")) or \
            re.search(r"(?:^|[\s;&|(])case\s", command):
        return command
    try:
        out, total = [], 0
        for text, is_word in _words(command):
            if not is_word or "{" not in text:
                out.append(text)
                continue
            if "\\" in text or not _balanced(text):
                raise _NotRead  # (bash's reading of lone or escaped braces: not followed here)
            words = _expand(text)
            if len(words) > 1 or words[0] != text:
                if any(not w or w[0] == "#" or _ASSIGNMENT.match(w) for w in [text, *words]):
                    raise _NotRead  # (nothing; a comment; an assignment, as typed or made)
            total += len(words)
            if total > MAX_WORDS:
                raise _NotRead
            out.append(" ".join(words))
        return "".join(out)
    except _NotRead:
        return command


def _balanced(word: str) -> bool:
    """Every brace of the word outside quotes and `${…}` closes one opened before it."""
    depth, i = 0, 0
    while i < len(word):
        depth += {"{": 1, "}": -1}.get(word[i], 0)
        if depth < 0:
            return False
        i = _skip(word, i)
    return depth == 0


def _skip(text: str, i: int) -> int:
    """The index past what starts at `i` and is one piece whatever it holds: a quote, an escape,
    `$(…)`, `${…}`, `$'…'`, a backquote; `i + 1` for any other character."""
    c = text[i]
    if c == "\\":
        return i + 2
    if c in "'\"`" or text.startswith("$'", i):
        start = i + 1 if c != "$" else i + 2
        close = "'" if c == "$" else c
        j = start
        while j < len(text) and text[j] != close:
            j += 2 if text[j] == "\\" and close != "'" else 1
        if j >= len(text):
            raise _NotRead  # (a quote not closed)
        return j + 1
    if text.startswith("$(", i) or text.startswith("${", i):
        end = closing(text, i + 2) if text[i + 1] == "(" else _brace_close(text, i + 2)
        if end is None:
            raise _NotRead
        return end + 1
    return i + 1


def _brace_close(text: str, i: int) -> int | None:
    """Where the `${` opened before `i` closes."""
    depth = 1
    while i < len(text):
        if text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        elif text[i] == "{":
            depth += 1
        i = _skip(text, i) - 1 if text[i] in "\\'\"`$" else i
        i += 1
    return None


def _words(command: str) -> list[tuple[str, bool]]:
    """The line cut into its words and what lies between them (blanks, operators, comments)."""
    pieces: list[tuple[str, bool]] = []
    i, at, in_word = 0, 0, False
    while i < len(command):
        c = command[i]
        if c in _METAS:
            if in_word:
                pieces.append((command[at:i], True))
                at, in_word = i, False
            i += 1
            continue
        if not in_word:
            if c == "#":  # (a comment, to the line's end)
                end = command.find("\n", i)
                i = len(command) if end < 0 else end
                continue
            pieces.append((command[at:i], False))
            at, in_word = i, True
        i = _skip(command, i)
    pieces.append((command[at:], in_word))
    return [p for p in pieces if p[0]]


def _expand(word: str) -> list[str]:
    """One word's expansions, in bash's order: the first brace expression that reads as one, each of
    its parts with what precedes it and each expansion of what follows."""
    i = 0
    while i < len(word):
        if word[i] == "{":
            found = _expression(word, i)
            if found is not None and found[1] is not None:
                end, parts = found
                head, tails, middles = word[:i], _expand(word[end + 1:]), []
                for part in parts:
                    middles += _expand(part)
                    if len(middles) * len(tails) > MAX_WORDS:
                        raise _NotRead  # (counted before it is written: `{1..999}{1..999}{1..999}` is 10**9 words)
                return [head + m + t for m in middles for t in tails]
            if found is not None:
                raise _NotRead  # (`{#..{1..3}}`: whether bash reads the braces inside, not followed here)
            i += 1
            continue
        i = _skip(word, i)
    return [word]


def _expression(word: str, start: int) -> tuple[int, list[str] | None] | None:
    """The brace expression opened at `start`: where it closes, and its parts (`a,b{c,d}` split at
    its own commas; a sequence written out); None where it is not one (`{}`, `{a}`, not closed);
    parts None where it is not one and holds `..` of its own (bash may then read no brace inside it)."""
    depth, commas, dots, i = 0, [], False, start + 1
    while i < len(word):
        c = word[i]
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                inside = word[start + 1:i]
                if commas:
                    cuts = [start, *commas, i]
                    return i, [word[a + 1:b] for a, b in zip(cuts, cuts[1:])]
                sequence = _sequence(inside)
                return (i, None) if sequence is None and dots else None if sequence is None else (i, sequence)
            depth -= 1
        elif c == "," and depth == 0:
            commas.append(i)
        elif depth == 0 and word.startswith("..", i):
            dots = True
        i = _skip(word, i)
    return None


def _sequence(inside: str) -> list[str] | None:
    """`1..5`, `05..1..2`, `a..e`: the words of a sequence expression; None where it is not one."""
    ends = inside.split("..")
    if len(ends) not in (2, 3) or len(ends) == 3 and not _INT.fullmatch(ends[2]):
        return None
    step = abs(int(ends[2])) if len(ends) == 3 else 1
    first, last = ends[0], ends[1]
    if _INT.fullmatch(first) and _INT.fullmatch(last):
        a, b = int(first), int(last)
        if step == 0 or abs(b - a) // step >= MAX_WORDS:
            raise _NotRead
        padded = any(re.fullmatch(r"[-+]?0[0-9]+", e) for e in (first, last))
        if padded and (first[0] in "+-" or last[0] in "+-"):
            raise _NotRead  # (a sign beside bash's padding: not written here)
        width = max(len(first), len(last)) if padded else 0
        numbers = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [str(n).zfill(width) for n in numbers]
    if len(first) == 1 == len(last) and first.isascii() and last.isascii() and first.isalpha() and \
            last.isalpha() and first.islower() == last.islower():
        if step == 0:
            raise _NotRead
        a, b = ord(first), ord(last)
        return [chr(n) for n in (range(a, b + 1, step) if a <= b else range(a, b - 1, -step))]
    return None  # (`{a..}`, `{1..b}`: not a sequence; the braces stay as typed)
