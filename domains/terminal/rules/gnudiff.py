"""`diff A B` in GNU diff's normal form (`3c3`, `5a6`, `< old`, `---`, `> new`), where which lines it
shows is certain: the two files have one longest common subsequence of lines, so every diff that
finds the fewest changes shows the same ones, and GNU diff (3.8, as the sandbox has it) finds the
fewest on such files: none of its "confusing lines" heuristic applies (a line matching many lines of
the other file, discarded where it runs into lines matching none), and the files are small enough
for it to search exhaustively. Elsewhere the model answers. Checked against GNU diff on generated
edits (benchmarks/gnudiff_vs_diff.py, tests/test_gitdiff.py). And `cmp`: where two files first differ.
"""

from __future__ import annotations

from collections import Counter

from . import xdiff
from .state import _PLAIN, TerminalState, _abs, _absent, _contents

MAX_CELLS = 90_000  # (lines of one file times lines of the other: the uniqueness check's table)


def normal(old: str, new: str) -> str | None:
    """What `diff` prints of two differing texts, or None where it is not certain."""
    a, b = xdiff.lines(old), xdiff.lines(new)
    if "\0" in old + new or len(a) * len(b) > MAX_CELLS or _confusing(a, b) or _confusing(b, a) or \
            not _one_alignment(a, b):
        return None
    script = xdiff.changes(a, b)
    return None if script is None else "".join(_hunk(a, b, *change) for change in script)


def _span(start: int, count: int) -> str:
    return f"{start + 1}" if count == 1 else f"{start + 1},{start + count}"


def _hunk(a: list[str], b: list[str], i: int, removed: int, j: int, added: int) -> str:
    if removed and added:
        head = f"{_span(i, removed)}c{_span(j, added)}\n"
    elif removed:
        head = f"{_span(i, removed)}d{j}\n"
    else:
        head = f"{i}a{_span(j, added)}\n"
    old = "".join(_shown("<", line) for line in a[i:i + removed])
    new = "".join(_shown(">", line) for line in b[j:j + added])
    return head + old + ("---\n" if removed and added else "") + new


def _shown(mark: str, line: str) -> str:
    return f"{mark} {line}" if line.endswith("\n") else f"{mark} {line}\n\\ No newline at end of file\n"


def _confusing(a: list[str], b: list[str]) -> bool:
    """Whether GNU diff's discard_confusing_lines may set aside a line of `a` that matches: one that
    matches more lines of `b` than its threshold (5, doubled per 4x beyond 64 lines), in a run of
    such lines with one that matches none (which diff discards outright)."""
    counts = Counter(b)
    many, tem = 5, len(a) // 64
    while (tem := tem >> 2) > 0:
        many *= 2
    kinds = [0 if 0 < counts[line] <= many else 1 if counts[line] == 0 else 2 for line in a]
    i = 0
    while i < len(kinds):
        j = i
        while j < len(kinds) and kinds[j]:
            j += 1
        if {1, 2} <= set(kinds[i:j]):
            return True
        i = j + 1
    return False


def _one_alignment(a: list[str], b: list[str]) -> bool:
    """Whether the lines of `a` and `b` have exactly one longest common subsequence (as sets of
    matched line pairs, counted by inclusion and exclusion, capped at 2)."""
    width = len(b) + 1
    lengths, counts = [0] * width, [1] * width
    for line in a:
        row_lengths, row_counts = [0] * width, [1] * width
        for j in range(1, width):
            same = line == b[j - 1]
            best = lengths[j - 1] + 1 if same else max(lengths[j], row_lengths[j - 1])
            row_lengths[j] = best
            count = counts[j - 1] if same else 0
            if lengths[j] == best:
                count += counts[j]
            if row_lengths[j - 1] == best:
                count += row_counts[j - 1]
            if lengths[j - 1] == best:
                count -= counts[j - 1]
            row_counts[j] = min(count, 2)
        lengths, counts = row_lengths, row_counts
    return counts[-1] == 1


def diff_files(args: list[str], s: TerminalState) -> tuple[str, int] | None:
    """`diff [-q] A B` of files the state knows: the same says nothing; `-q` says they differ; a
    missing one is refused. Where they differ, the lines diff shows, where they are certain (gnudiff.py);
    `-u` prints the files' times to the nanosecond: the model's."""
    opts, names = [a for a in args if a.startswith("-")], [a for a in args if not a.startswith("-")]
    if opts not in ([], ["-q"], ["--brief"], ["-u"]) or len(names) != 2 or not all(_PLAIN.fullmatch(n) for n in names):
        return None
    gone = [n for n in names if _absent(_abs(n, s), s)]
    if len(gone) == 1 and all(_abs(n, s) in s.files for n in names if n not in gone):
        return f"diff: {gone[0]}: No such file or directory\n", 2
    old, new = (_contents(n, s) for n in names)
    if old is None or new is None or "\0" in old + new:
        return None
    if old == new:
        return "", 0
    if opts in (["-q"], ["--brief"]):
        return f"Files {names[0]} and {names[1]} differ\n", 1
    shown = normal(old, new) if not opts else None
    return None if shown is None else (shown, 1)


def cmp_files(args: list[str], s: TerminalState) -> tuple[str, int] | None:
    """`cmp [-s] A B` of files the state knows (diffutils 3.8): the first byte and line where they
    differ; where one is the other's start, `EOF on` the shorter (to the errors); `-s` says nothing.
    A name not there, or a folder, is refused."""
    opts, names = [a for a in args if a.startswith("-")], [a for a in args if not a.startswith("-")]
    if opts not in ([], ["-s"], ["--quiet"], ["--silent"]) or len(names) != 2 or \
            not all(_PLAIN.fullmatch(n) for n in names):
        return None
    for name in names:
        path = _abs(name, s)
        if _absent(path, s) or path in s.dirs:
            why = "No such file or directory" if _absent(path, s) else "Is a directory"
            return ("" if opts else f"cmp: {name}: {why}\n"), 2
    texts = [_contents(n, s) for n in names]
    if texts[0] is None or texts[1] is None:
        return None
    a, b = (t.encode() for t in texts)  # type: ignore[union-attr]
    if a == b:
        return "", 0
    if opts:
        return "", 1
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
    if at is not None:
        line = a[:at].count(b"\n") + 1
        return f"{names[0]} {names[1]} differ: byte {at + 1}, line {line}\n", 1
    short, name = (a, names[0]) if len(a) < len(b) else (b, names[1])
    if not short:
        return f"cmp: EOF on {name} which is empty\n", 1
    lines = short.count(b"\n")
    where = f"line {lines}" if short.endswith(b"\n") else f"in line {lines + 1}"
    return f"cmp: EOF on {name} after byte {len(short)}, {where}\n", 1
