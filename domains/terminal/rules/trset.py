"""`tr` as GNU coreutils runs it over text the state knows: SET1 translated to SET2, the characters
of a set deleted (`-d`) or their runs squeezed to one (`-s`). A set is characters, ranges (`a-z`),
backslash escapes (`\\n`, `\\t`…) and the character classes agents use (`[:lower:]`, `[:upper:]`,
`[:digit:]`, `[:space:]`, `[:blank:]`, `[:alpha:]`, `[:alnum:]`, `[:punct:]`). ASCII alone: tr
reads bytes, so a set beyond ASCII, like a form this does not read (`[c*n]`, `[=c=]`, octal),
is left to the model. `-cd SET` keeps only the set's characters.
"""

from __future__ import annotations

import string
from typing import Callable

# each class's characters in the order tr lists them: by their codes
_CLASSES = {name: "".join(sorted(chars)) for name, chars in {
    "lower": string.ascii_lowercase, "upper": string.ascii_uppercase, "digit": string.digits,
    "space": " \t\n\v\f\r", "blank": " \t", "alpha": string.ascii_letters,
    "alnum": string.ascii_letters + string.digits, "punct": string.punctuation}.items()}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def _set(spec: str) -> tuple[str, list[str]] | None:
    """The characters of a set, in order, and the classes it names; None for a form not read here."""
    out, classes, i = [], [], 0
    while i < len(spec):
        if spec.startswith("[:", i):
            end = spec.find(":]", i + 2)
            name = spec[i + 2:end] if end > 0 else ""
            if name not in _CLASSES:
                return None
            out.append(_CLASSES[name])
            classes.append(name)
            i = end + 2
            continue
        c = spec[i]
        if c == "[" or not c.isascii():
            return None  # (`[c*n]`, `[=c=]`: tr's own; bytes beyond ASCII)
        if c == "\\":
            if i + 1 >= len(spec) or spec[i + 1] not in _ESCAPES:
                return None  # (octal, or a backslash at the end: tr's own ways)
            c, i = _ESCAPES[spec[i + 1]], i + 1
        if spec[i + 1:i + 2] == "-" and i + 2 < len(spec) and (spec[i + 2] in "\\[" or not spec[i + 2].isascii()):
            return None  # (a range to an escape or a bracket: tr's own reading)
        if spec[i + 1:i + 2] == "-" and i + 2 < len(spec):
            if spec[i + 2] < c:
                return None  # ("range-endpoints … are in reverse collating sequence order")
            out.append("".join(chr(o) for o in range(ord(c), ord(spec[i + 2]) + 1)))
            i += 3
            continue
        out.append(c)
        i += 1
    return "".join(out), classes


def _squeezed(text: str, chars: set[str]) -> str:
    """Each run of one of `chars` made one."""
    return "".join(c for i, c in enumerate(text) if not (c in chars and i and text[i - 1] == c))


def tr(args: list[str]) -> Callable[[str], tuple[str, int]] | None:
    """The function `tr ARGS` is over its input; None for a form not followed here."""
    options = [a for a in args if a.startswith("-") and len(a) > 1]
    sets = [a for a in args if a not in options]
    kept = options in (["-cd"], ["-dc"], ["-c", "-d"], ["-d", "-c"])  # (-c -d: all but the set deleted)
    squeezing = options in (["-s"], ["--squeeze-repeats"])
    if options not in ([], ["-d"], ["--delete"]) and not kept and not squeezing or \
            len(sets) != (2 if not options else 1) + (squeezing and len(sets) == 2) or args[:len(options)] != options:
        return None
    first = _set(sets[0])
    if first is None or not first[0]:
        return None
    chars = set(first[0])
    if kept:
        return lambda text: ("".join(c for c in text if c in chars), 0)
    if options in (["-d"], ["--delete"]):
        return lambda text: ("".join(c for c in text if c not in chars), 0)
    if squeezing and len(sets) == 1:
        return lambda text: (_squeezed(text, chars), 0)
    second = _set(sets[1])
    if second is None or not second[0]:
        return None
    paired = first[1] in (["lower"], ["upper"]) and second[1] == [{"lower": "upper", "upper": "lower"}[first[1][0]]]
    if second[1] and not (paired and sets[0].startswith("[:") and sets[1].startswith("[:") and
                          len(first[0]) == len(second[0])):
        return None  # (a class in SET2 other than case paired with case: tr refuses or aligns it its own way)
    target = second[0] + second[0][-1] * max(0, len(first[0]) - len(second[0]))  # (SET2 padded with its last)
    table = {}
    for a, b in zip(first[0], target):
        table[ord(a)] = b  # (a character named twice: the last says where it goes)
    squeezed = set(second[0]) if squeezing else set()  # (`-s SET1 SET2`: translated, then SET2's runs made one)
    return lambda text: (_squeezed(text.translate(table), squeezed), 0)
