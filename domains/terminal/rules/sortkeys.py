"""GNU sort as the sandbox runs it (LANG=C.UTF-8: lines compared as bytes), with its keys: `sort [-r]
[-n] [-h] [-u] [-f] [-b] [-s] [-t C] [-k F[.C][OPTS][,F[.C][OPTS]]]… [FILE]` — `sort -t, -k2 -n`,
`sort -k2,2nr -k1,1`, `du -sh * | sort -h`, `sort -nu`.

As coreutils' sort.c does it: a key is the text from `begfield` to `limfield` (fields split where
blanks begin, each keeping the blanks before it, or at each `-t` character); a key with no ordering
options of its own takes the global ones; keys are compared in turn (`-n` and `-h` as numbers of any
length, `-f` folding lowercase), and lines whose keys all compare equal by their whole bytes (the
"last resort", reversed by a global `-r`; not with `-s` or `-u`). `-u` keeps the first line of each
run of equal keys. With no key but a global ordering option, the whole line is the key. Checked
against this machine's sort on random lines and options (tests/test_sortkeys.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cmp_to_key
from typing import Callable

BLANKS = " \t"
ORDERING = set("nhf")  # (the ordering options followed here; b and r are not ordering ones)
_UNITS = {"K": 1, "k": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6, "Z": 7, "Y": 8}
_NUMBER = re.compile(r"(-?)(\d*)(?:\.(\d*))?")
MAX_LINES = 100_000  # (a longer text: the model's, as a sort of it takes a while here)
_KEY = re.compile(r"(\d+)(?:\.(\d+))?([bfhnr]*)(?:,(\d+)(?:\.(\d+))?([bfhnr]*))?")


@dataclass
class Key:
    sword: int  # the first field (from 0) and the character in it (from 0)
    schar: int = 0
    eword: int | None = None  # the last field (from 0), None: to the line's end; echar 0: the whole field
    echar: int = 0
    options: str = ""  # of n h f r
    skip_start: bool = False  # b: blanks at the key's start (and at its end's field start) not in it
    skip_end: bool = False


def sorter(args: list[str]) -> tuple[Callable[[str], tuple[str, int] | None], list[str]] | None:
    """(sort of a text, the files named) for `sort ARGS`; None for an option or a form not followed.
    The sort gives None for a text whose order is not worked out here."""
    parsed = _parse(args)
    if parsed is None:
        return None
    keys, glob, tab, files = parsed
    if len(files) > 1:
        return None
    stable, unique, reverse = "s" in glob, "u" in glob, "r" in glob
    gkey = Key(0, options="".join(c for c in glob if c in ORDERING | {"r"}), skip_start="b" in glob,
               skip_end="b" in glob)
    for key in keys:  # (a key with no options of its own takes the global ones)
        if not key.options and not key.skip_start and not key.skip_end:
            key.options, key.skip_start, key.skip_end = gkey.options, gkey.skip_start, gkey.skip_end
    if not keys and set(gkey.options) & ORDERING or not keys and gkey.skip_start:
        keys = [gkey]

    def compare(a: tuple[bytes, tuple], b: tuple[bytes, tuple]) -> int:
        if keys:
            diff = _keycompare(a[1], b[1], keys)
            if diff or unique or stable:
                return diff
        diff = (a[0] > b[0]) - (a[0] < b[0])
        return -diff if reverse else diff

    def run(text: str) -> tuple[str, int] | None:
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) > MAX_LINES or not text.isascii() and any(k.schar or k.echar for k in keys):
            return None  # (a character's place counted in bytes)
        keyed = [(line.encode(), _parts(line, keys, tab)) for line in lines]
        if any(parts is None for _, parts in keyed):
            return None  # (units sort learnt after 9.1)
        ordered = sorted(keyed, key=cmp_to_key(compare))
        if unique:
            kept: list[tuple[bytes, tuple]] = []
            for line in ordered:
                if not kept or compare(kept[-1], line):
                    kept.append(line)
            ordered = kept
        return "".join(line.decode() + "\n" for line, _ in ordered), 0

    return run, files


def _parse(args: list[str]) -> tuple[list[Key], str, str | None, list[str]] | None:
    keys: list[Key] = []
    glob, tab, files, i = "", None, [], 0
    while i < len(args):
        a = args[i]
        if a == "--" or not a.startswith("-") or a == "-":
            files += args[i + 1:] if a == "--" else [a]
            i += 1
            continue
        j = 1
        while j < len(a):
            c = a[j]
            if c in "kt":
                value = a[j + 1:] if j + 1 < len(a) else (args[i + 1] if i + 1 < len(args) else None)
                if value is None:
                    return None
                i += j + 1 >= len(a)
                if c == "t":
                    if len(value) != 1 or tab is not None and tab != value:
                        return None
                    tab = value
                else:
                    key = _key(value)
                    if key is None:
                        return None
                    keys.append(key)
                break
            if c not in "rnhufbs":
                return None
            glob += c
            j += 1
        i += 1
    if "n" in glob and "h" in glob or any("n" in k.options and "h" in k.options for k in keys):
        return None  # (sort refuses these together)
    return keys, glob, tab, files


def _key(spec: str) -> Key | None:
    m = _KEY.fullmatch(spec)
    if m is None or int(m.group(1)) == 0 or m.group(2) is not None and int(m.group(2)) == 0 or \
            m.group(4) is not None and int(m.group(4)) == 0:
        return None
    start_opts, end_opts = m.group(3), m.group(6) or ""
    key = Key(int(m.group(1)) - 1, int(m.group(2)) - 1 if m.group(2) else 0,
              int(m.group(4)) - 1 if m.group(4) else None, int(m.group(5) or 0),
              "".join(c for c in start_opts + end_opts if c in "nhfr"), "b" in start_opts, "b" in end_opts)
    return key


def _begfield(line: str, key: Key, tab: str | None) -> int:
    ptr, lim, sword = 0, len(line), key.sword
    while ptr < lim and sword:
        sword -= 1
        if tab is not None:
            while ptr < lim and line[ptr] != tab:
                ptr += 1
            ptr += ptr < lim
        else:
            while ptr < lim and line[ptr] in BLANKS:
                ptr += 1
            while ptr < lim and line[ptr] not in BLANKS:
                ptr += 1
    if key.skip_start:
        while ptr < lim and line[ptr] in BLANKS:
            ptr += 1
    return min(lim, ptr + key.schar)


def _limfield(line: str, key: Key, tab: str | None) -> int:
    if key.eword is None:
        return len(line)
    ptr, lim, eword, echar = 0, len(line), key.eword + (key.echar == 0), key.echar
    while ptr < lim and eword:
        eword -= 1
        if tab is not None:
            while ptr < lim and line[ptr] != tab:
                ptr += 1
            ptr += ptr < lim and bool(eword or echar)
        else:
            while ptr < lim and line[ptr] in BLANKS:
                ptr += 1
            while ptr < lim and line[ptr] not in BLANKS:
                ptr += 1
    if echar:
        if key.skip_end:
            while ptr < lim and line[ptr] in BLANKS:
                ptr += 1
        ptr = min(lim, ptr + echar)
    return ptr


def _parts(line: str, keys: list[Key], tab: str | None) -> tuple | None:
    """What each key compares of a line: a number (`-n`), a unit's order and a number (`-h`), or bytes;
    None where a unit is one this sort does not know but a newer one does."""
    parts = []
    for key in keys:
        text = _field(line, key, tab)
        if "f" in key.options:  # (folded first, numbers too: `1e3` is `1E3` to -h, an exa)
            text = _fold(text)
        if "h" in key.options:
            order = _unit(text)
            if order is None:
                return None
            parts.append((order, _number(text)))
        else:
            parts.append(_number(text) if "n" in key.options else text.encode())
    return tuple(parts)


def _keycompare(a: tuple, b: tuple, keys: list[Key]) -> int:
    for x, y, key in zip(a, b, keys):
        diff = (x > y) - (x < y)
        if diff:
            return -diff if "r" in key.options else diff
    return 0


def _field(line: str, key: Key, tab: str | None) -> str:
    start, end = _begfield(line, key, tab), _limfield(line, key, tab)
    return line[start:max(start, end)]


def _fold(text: str) -> str:
    return "".join(c.upper() if c.isascii() else c for c in text)


def _number(text: str) -> Decimal:
    """The number a text starts with (blanks skipped), as sort reads it in this locale; 0 for none."""
    m = _NUMBER.match(text.lstrip(BLANKS))
    assert m is not None
    digits, fraction = m.group(2), m.group(3) or ""
    if not digits and not fraction:
        return Decimal(0)
    value = Decimal(f"{digits or '0'}.{fraction or '0'}")
    return -value if m.group(1) else value


def _unit(text: str) -> int | None:
    """`-h`: the order of the unit after the number (K 1, M 2…), negative for a negative number; 0
    where the number has no digit above 0. None for R or Q (ronna, quetta): units newer sorts know,
    this machine's (coreutils 9.1) not."""
    text = text.lstrip(BLANKS)
    m = _NUMBER.match(text)
    assert m is not None
    if not re.search(r"[1-9]", m.group(2) + (m.group(3) or "")):
        return 0
    after = text[m.end():m.end() + 1]
    order = _UNITS.get(after, 0)
    return None if after in ("R", "Q") else -order if m.group(1) else order
