"""grep -r of what it reads as bytes: a repository's .git walked in its place (search.Tree.walk),
where the index and the objects are binary (`grep: NAME: binary file matches`, computed from what is
known of their bytes) and a text file may hold lines that are not UTF-8; and one file's lines of a
word (search.grep_r). GNU grep 3.8 in a UTF-8 locale, as the sandbox runs it."""

from __future__ import annotations

import re

from . import grepfile


_BINARY_MATCH = re.compile(r"grep: [^\n]+: binary file matches\n")


def binary_told(words: list[str], text: str) -> tuple[str, str] | None:
    """What `grep -r` (its words) printed, told apart: (its lines, its `binary file matches`
    messages, which go to its errors); None where a line of a file could read as one (-h)."""
    lines = text.splitlines(keepends=True)
    told = [ln for ln in lines if _BINARY_MATCH.fullmatch(ln)]
    if told and any(w.startswith("-") and not w.startswith("--") and "h" in w for w in words[1:]):
        return None
    return "".join(ln for ln in lines if not _BINARY_MATCH.fullmatch(ln)), "".join(told)


HEAD_HOLDS = 4096  # (head's output into a pipe or the terminal's capture: held until it ends, up to a buffer)


def ahead_of_head(text: str, lines: int) -> bool:
    """Whether every `binary file matches` message of grep -r's output reaches the terminal before a
    `head -LINES` reading its lines prints: grep puts out the lines it holds before each message, so
    a message with fewer than LINES lines before it is written while head still waits, and head
    prints at its end. A message after LINES lines is printed or not as grep and head race (head's
    end sends grep SIGPIPE); and head printing more than a buffer may print before one."""
    seen, shown = 0, 0
    for line in text.splitlines(keepends=True):
        if _BINARY_MATCH.fullmatch(line):
            if seen >= lines:
                return False
        elif seen < lines:
            seen, shown = seen + 1, shown + len(line.encode())
    return shown < HEAD_HOLDS


BINARY_PROBE = 32_768  # (grep looks for a NUL in what it reads first: a file's first buffer)


def in_git_file(name: str, data: bytes | None, probe: re.Pattern[str], flags: set[str],
                 skip_binary: bool) -> tuple[list[str], bool] | None:
    """What `grep -r WORD` prints of a file in .git (`data`: its bytes), and whether it matched, as
    grep 3.8 in a UTF-8 locale does: a file with a NUL is binary (`grep: NAME: binary file matches`,
    where it matches; -l: its name; -I: skipped); in another, a line that is not UTF-8 is one nothing
    is printed of where it does not match (where it does: the message; not written here). None: not
    answered here."""
    fold = "i" in flags
    if data is None or b"\0" in data[BINARY_PROBE:] and b"\0" not in data[:BINARY_PROBE]:
        return None
    found = re.compile(probe.pattern.encode())
    if b"\0" in data:
        matches = list(found.finditer(data.lower() if fold else data))
        if not matches or skip_binary:
            return [], False
        if "w" in flags and any(max(data[m.start() - 1:m.start()] + data[m.end():m.end() + 1], default=0) >= 0x80
                                for m in matches):
            return None  # (a letter of another script beside it: grep's word boundaries are the locale's)
        return ([name + "\n"] if "l" in flags else [f"grep: {name}: binary file matches\n"]), True
    text = lines_holding(data, lambda line: found.search(line.lower() if fold else line) is not None)
    return None if text is None else words_in(name, text, probe, flags)


def words_in(name: str, text: str | None, probe: re.Pattern[str], flags: set[str]) -> tuple[list[str], bool] | None:
    """What `grep -r WORD` prints of one file's text, and whether it matched; None: not known."""
    fold = "i" in flags
    if text is None or (fold or "w" in flags) and not text.isascii():
        return None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    out: list[str] = []
    hit = False
    for n, line in enumerate(lines, 1):
        matches = list(probe.finditer(line.lower() if fold else line))
        if not matches:
            continue
        hit = True
        if "l" in flags:
            return [name + "\n"], True
        head = ("" if "h" in flags else name + ":") + (f"{n}:" if "n" in flags else "")
        out += [head + line[m.start():m.end()] + "\n" for m in matches] if "o" in flags else [head + line + "\n"]
    return out, hit


_ERE_SPECIAL = frozenset(".[]()*+?{}|^$\\")
_BRE_SPECIAL = frozenset(".[]*^$\\")


def required(pattern: str, letters: str) -> str | None:
    """A string every match of `pattern` holds (grep's `-E`/`-F` in `letters`): the letters it
    starts with, up to its first character a regular expression reads as its own (less the last,
    where a repetition follows it); None where there is none (an alternation: a match may hold
    either side), or it is not ASCII."""
    if "F" in letters:
        return pattern if pattern.isascii() and "\n" not in pattern else None
    special = _ERE_SPECIAL if "E" in letters else _BRE_SPECIAL
    if ("|" in pattern if "E" in letters else "\\|" in pattern):
        return None
    body = pattern[1:] if pattern.startswith("^") else pattern
    run = ""
    for i, c in enumerate(body):
        if c in special:
            after = body[i:i + 2]
            if c in "*+?{" or after in ("\\{", "\\+", "\\?"):
                run = run[:-1]  # (the letter before it may be repeated, or left out)
            break
        run += c
    return run if run.isascii() else None


def lines_holding(data: bytes, may_match) -> str | None:
    """A file without a NUL as text, each line that is not UTF-8 left empty where `may_match(line)`
    says no match can be on it (grep says nothing of such a line); None where one may be."""
    lines = data.split(b"\n")
    for i, line in enumerate(lines):
        try:
            line.decode()
        except UnicodeDecodeError:
            if may_match(line):
                return None
            lines[i] = b""
    return b"\n".join(lines).decode()


def binary_matches(data: bytes, pattern: str, letters: str, needed: str) -> bool | None:
    """Whether grep finds `pattern` in a binary file (`data`: what is known of it), which it reads as
    lines between NULs and newlines: each line holding `needed` (what every match holds) must be
    ASCII, and the pattern is tried on it (grepfile). Of the index only parts are known
    (gitfiles._index); `needed`, four letters or more, is taken as not lying in the rest, nor in the
    ids and sizes a part's first line may run on from (as `_not_in_git`). None: not known."""
    fold = "i" in letters
    probe = (needed.lower() if fold else needed).encode()
    flags = "".join(c for c in letters if c in "iwxEF")
    found = False
    for line in re.split(rb"[\0\n]", data):
        if probe not in (line.lower() if fold else line):
            continue
        if not line.isascii():
            return None
        said = grepfile.search(([f"-{flags}"] if flags else []) + ["--", pattern, "x"], [line.decode() + "\n"])
        if said is None:
            return None
        found = found or said[1] == 0
    return found
