"""grep of one text (a file, or a pipe's input) as GNU grep prints it, for fixed strings and for
regular expressions, basic and extended (sedregex.py: RE2, leftmost-longest, as GNU grep matches;
not with -w, whose retries are grep's own): what the line selects, numbered (`-n`), counted (`-c`), inverted (`-v`), without
case (`-i`), as whole words (`-w`) or lines (`-x`), up to a number of lines (`-m N`), only the
matched parts (`-o`), and with lines of context (`-A N`, `-B N`, `-C N`, `-N`: a context line is
numbered `N-`, groups that do not touch are parted by `--`). Checked byte for byte against GNU
grep (benchmarks/state_vs_real.py and tests/test_state.py's random texts).

Several files (grep_files) are grepped in the order named, each line after its file's name, and
`-l` lists the files with a line selected. Anything else — a back-reference, a backslash grep warns
of, an option not listed, a file not known — is None: the model's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from . import sedregex

# A basic regular expression that is a fixed string: letters, digits and punctuation that mean
# nothing there (a leading ^ and a trailing $ are anchors, handled). Empty: every line.
FIXED = re.compile(r"\^?[A-Za-z0-9_ :,=()'\"#@%/-]*\$?")
EXTENDED_SPECIAL = set("(){}|+?")  # what -E gives a meaning to beside a basic expression's
MAX_CONTEXT = 10_000
_WORDY = re.compile(r"\w", re.A)  # grep's word characters: letters, digits, underscore (C locale)


class Unknown(Exception):
    """The text is not one this grep answers for (binary, or not ASCII under -i)."""


@dataclass
class Options:
    letters: set[str] = field(default_factory=set)  # n c v i w x o l h H q
    after: int = -1  # -A, -B: given, they win over -C and -N, whatever the order
    before: int = -1
    context: int = 0  # -C N, -N
    most: int | None = None  # -m
    pattern: str | None = None  # -e
    matcher: str = ""  # F (fixed strings), E (extended), G (basic: the default)


def _number(text: str) -> int | None:
    return int(text) if text.isdigit() and int(text) <= MAX_CONTEXT else None


def options(args: list[str]) -> tuple[Options, list[str]] | None:
    """grep's options (before the pattern, as agents write them), and the pattern and files left."""
    o, rest, i = Options(), [], 0
    valued = {"A": "after", "B": "before", "C": "both", "m": "most", "e": "pattern"}
    while i < len(args):
        a = args[i]
        if rest or not a.startswith("-") or a == "-":
            rest.append(a)
        elif a == "--":
            rest += args[i + 1:]
            break
        elif re.fullmatch(r"-\d+", a):
            n = _number(a[1:])
            if n is None:
                return None
            o.context = n
        else:
            j = 1
            while j < len(a):
                c = a[j]
                if c in valued:
                    value = a[j + 1:] or (args[i + 1] if i + 1 < len(args) else None)
                    if value is None:
                        return None
                    if not a[j + 1:]:
                        i += 1
                    if c == "e":
                        if o.pattern is not None:
                            return None  # (several patterns: any of them)
                        o.pattern = value
                    else:
                        n = _number(value)
                        if n is None:
                            return None
                        if c == "A":
                            o.after = n
                        elif c == "B":
                            o.before = n
                        elif c == "C":
                            o.context = n
                        else:
                            o.most = n
                    break
                if c in "FEG":
                    if o.matcher not in ("", c):
                        return None  # ("grep: conflicting matchers specified")
                    o.matcher = c
                elif c in "hH":
                    o.letters -= {"h", "H"}  # (the last one says)
                    o.letters.add(c)
                elif c in "ncviwxolq":
                    o.letters.add(c)
                else:
                    return None
                j += 1
        i += 1
    o.after = o.context if o.after < 0 else o.after
    o.before = o.context if o.before < 0 else o.before
    if o.pattern is None:
        if not rest:
            return None
        o.pattern, rest = rest[0], rest[1:]
    return o, rest


def grep(args: list[str]) -> tuple[Callable[[str], tuple[str, int]], list[str]] | None:
    """The function that greps a text as `grep ARGS` does, and the file ARGS names (none: a pipe's
    input); None where the pattern is not a fixed string, an option is not one of those above, or
    ARGS name several files (grep_files)."""
    made = _grep(args)
    if made is None or len(made[1]) > 1:
        return None
    over, files = made
    return (lambda text: over([text])), files


def grep_files(args: list[str], read: Callable[[str], str | None]) -> tuple[str, int] | None:
    """`grep ARGS` over the several files ARGS name, in the order named (`read(name)`: a file's
    contents, None where not known): each line after its file's name (`-h`: without), a count (`-c`)
    or the name (`-l`) for each; the exit code 0 where any file has a line selected."""
    made = _grep(args)
    if made is None or len(made[1]) < 2:
        return None
    over, files = made
    texts = [read(name) for name in files]
    if any(text is None for text in texts):
        return None  # (a file not known, not there, or a folder: grep's message, the model's)
    return over([text for text in texts if text is not None])


def search(args: list[str], texts: list[str]) -> tuple[str, int] | None:
    """`grep ARGS` over `texts`, one for each file ARGS names, in that order (`git grep`'s files);
    None where it is not answered here."""
    made = _grep(args)
    if made is None or len(made[1]) != len(texts):
        return None
    try:
        return made[0](texts)
    except Unknown:
        return None


def _grep(args: list[str]) -> tuple[Callable[[list[str]], tuple[str, int]], list[str]] | None:
    """The function that greps the texts of the files ARGS name (or a pipe's input) as grep does."""
    parsed = options(args)
    if parsed is None:
        return None
    o, files = parsed
    pattern = o.pattern or ""
    if "\n" in pattern or o.most == 0 or "l" in o.letters and (not files or {"c", "o"} & o.letters or
                                                                 o.after or o.before):
        return None  # (-l of a pipe says "(standard input)"; with -c, -o or context: GNU grep's own ways)
    regex = None
    if o.matcher == "F":
        start = end = False
        word = pattern
    elif not FIXED.fullmatch(pattern) or o.matcher == "E" and EXTENDED_SPECIAL & set(pattern):
        if "w" in o.letters:
            return None  # (-w of a regular expression: GNU grep tries shorter matches its own way)
        try:
            regex = sedregex.compiled(pattern, o.matcher == "E", "", "i" in o.letters, grep=True)
        except sedregex.NotTaken:
            return None  # (back-references, `\<`, a stray backslash grep warns of: the model's)
        start = end = False
        word = pattern
    else:
        start = pattern.startswith("^")
        word = pattern[1:] if start else pattern
        end = word.endswith("$")
        word = word[:-1] if end else word
    if "x" in o.letters:
        start = end = True
    if "i" in o.letters:
        word = word.lower()
    if "o" in o.letters and ("v" in o.letters or not word or o.after or o.before):
        return None  # (-o with -v, an empty pattern or context: GNU grep's own ways, not written here)
    if "c" in o.letters and "o" in o.letters or "w" in o.letters and (not word or "x" in o.letters) or \
            "o" in o.letters and "x" in o.letters or "v" in o.letters and not word and not (start and end):
        return None  # (GNU grep's own ways with these: -v of what every line matches prints nothing, even -c)
    # the file's name before each line: -H, or several files (but -h)
    shown = "h" not in o.letters and ("H" in o.letters or len(files) > 1)
    if shown and not files:
        return None  # ("(standard input)")

    def spans(line: str) -> list[tuple[int, int]]:
        """Where the pattern matches in the line, left to right, not overlapping."""
        if regex is not None:
            return regex_spans(line)
        found, i = [], 0
        while i <= len(line):
            at = line.find(word, i)
            if at < 0 or start and at > 0:
                break
            stop = at + len(word)
            if (not end or stop == len(line)) and ("w" not in o.letters or _whole(line, at, stop)):
                found.append((at, stop))
                i = stop if stop > at else at + 1
                if start:
                    break
            else:
                i = at + 1
        return found

    def regex_spans(line: str) -> list[tuple[int, int]]:
        """The leftmost-longest matches, as GNU grep finds them: each from where the last ended (an
        empty one a character on); with -x, the line's own whole or none."""
        data, found, i = line.encode(), [], 0  # (ASCII: searched as bytes, encoded once)
        while i <= len(line):
            m = regex.search(data, i)
            if m is None:
                break
            a, b = m.span()
            if "x" in o.letters:
                return [(a, b)] if (a, b) == (0, len(line)) else []
            found.append((a, b))
            i = b if b > a else a + 1
        return found

    def over(texts: list[str]) -> tuple[str, int]:
        """Each text as its file (files, in order), one after the other."""
        out, hit = "", False
        for n, text in enumerate(texts):
            said, code = run(text, files[n] if files else "")
            if out and said and (o.after or o.before) and "c" not in o.letters and "o" not in o.letters:
                out += "--\n"  # (context: a group of another file is parted from the last one too)
            out, hit = out + said, hit or code == 0
        return out, 0 if hit else 1

    def run(text: str, name: str) -> tuple[str, int]:
        if "\0" in text or ({"i", "w"} & o.letters or regex is not None) and not text.isascii():
            raise Unknown  # (what `.`, -i, -w do past ASCII is the locale's)
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        selected: list[int] = []
        for n, line in enumerate(lines):
            probe = line.lower() if "i" in o.letters else line
            if bool(spans(probe)) != ("v" in o.letters):
                selected.append(n)
                if o.most is not None and len(selected) == o.most:
                    break
        prefix = f"{name}:" if shown else ""
        if "l" in o.letters:
            return (f"{name}\n", 0) if selected else ("", 1)
        if "c" in o.letters:
            return f"{prefix}{len(selected)}\n", 0 if selected else 1
        out: list[str] = []
        if "o" in o.letters:
            for n in selected:
                probe = lines[n].lower() if "i" in o.letters else lines[n]
                for a, b in spans(probe):
                    if b > a:
                        out.append(prefix + (f"{n + 1}:" if "n" in o.letters else "") + lines[n][a:b] + "\n")
            return "".join(out), 0 if selected else 1
        last = -1  # the last line printed
        chosen = set(selected)
        for n in selected:
            first = max(n - o.before, last + 1, 0)
            if out and first > last + 1 and (o.before or o.after):
                out.append("--\n")
            for k in range(first, n + 1):
                mark = ":" if k in chosen else "-"
                out.append((prefix[:-1] + mark if prefix else "") + (f"{k + 1}{mark}" if "n" in o.letters else "") + lines[k] + "\n")
            last = max(last, n)
            for k in range(n + 1, min(n + o.after, len(lines) - 1) + 1):
                if k in chosen or k <= last:
                    break
                mark = "-"
                out.append((prefix[:-1] + mark if prefix else "") + (f"{k + 1}{mark}" if "n" in o.letters else "") + lines[k] + "\n")
                last = k
        return "".join(out), 0 if selected else 1

    if "q" in o.letters:  # (quiet: the status alone)
        return (lambda texts: ("", over(texts)[1])), files
    return over, files


def _whole(line: str, a: int, b: int) -> bool:
    """The match at a..b stands as a word: no word character touches it on either side."""
    return (a == 0 or not _WORDY.match(line[a - 1])) and (b == len(line) or not _WORDY.match(line[b]))
