"""`du -s [-h|-k] [PATH…]`: the space each path takes, as the sandbox's home (a tmpfs) takes it. A
file takes its size in whole pages of 4 KiB (an empty one none), a folder nothing of its own; below
a repository's top, .git takes what the world's seed commit wrote there (gitfiles.py). Answered
where the state knows every file's size below each path; a home is not (its dot files are not in
the state). Checked against du in the sandbox (benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import math
import posixpath
import re

from . import gitfiles
from .folders import _tree
from .state import _PLAIN, TerminalState, _abs, _within

PAGE = 4096
FLAGS = re.compile(r"-(?=[shk]*s)[shk]+")  # summarize, in kibibytes or for people (`-sh`, `-s -h`, `-sk`)


def human(kib: int) -> str:
    """A size as `du -h` prints it: 1024-based, rounded up, one decimal below 10 (`4.0K`, `980K`, `1.1M`)."""
    if kib == 0:
        return "0"
    value, unit = float(kib), "K"
    for bigger in "MGTPE":
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    if value < 10 and math.ceil(value * 10) < 100:
        return f"{math.ceil(value * 10) / 10:.1f}{unit}"
    if math.ceil(value) < 1024 or unit == "E":
        return f"{math.ceil(value)}{unit}"
    return f"1.0{'KMGTPE'['KMGTPE'.index(unit) + 1]}"  # (1023.5K rounds up to 1.0M)


def _pages(size: int) -> int:
    return math.ceil(size / PAGE) * PAGE // 1024


def _kib(path: str, s: TerminalState) -> int | None:
    """What is below `path` takes, in KiB; None where a size is not known."""
    if path in s.files and path not in s.dirs:
        text = s.files[path]
        return None if text is None else _pages(len(text.encode()))
    tree = _tree(path, s)
    if tree is None or tree.git_inside and tree.git_entries is None:
        return None
    total = 0
    for rel, is_dir in tree.entries:
        if not is_dir:
            text = s.files.get(posixpath.join(path, rel))
            if text is None:
                return None
            total += _pages(len(text.encode()))
    if tree.git_inside:
        laid = gitfiles.of_repository(s)
        if laid is None:
            return None
        total += sum(_pages(entry.size) for entry in laid.values() if entry.size is not None)
    return total


def du(args: list[str], s: TerminalState) -> tuple[str, int] | None:
    """`du -s[h|k] [PATH…]` (`.` where none is given): one line a path, its size, a tab, the path as
    given; None where not answered here."""
    flags = [a for a in args if a.startswith("-")]
    names = [a for a in args if not a.startswith("-")] or ["."]
    letters = "".join(f[1:] for f in flags)
    if not flags or not all(FLAGS.fullmatch(f) or f in ("-h", "-k") for f in flags) or "s" not in letters or \
            any(not _PLAIN.fullmatch(n) or n.endswith("/") and n != "/" for n in names) or len(set(names)) < len(names) \
            or {"BLOCK_SIZE", "DU_BLOCK_SIZE", "BLOCKSIZE", "POSIXLY_CORRECT"} & set(s.env):
        return None
    lines = []
    for name in names:
        path = _abs(name, s)
        if _within(s.home, path) or any(_within(path, _abs(n, s)) for n in names if n != name):
            return None  # (a home's dot files; a path inside another given: du counts it once)
        kib = _kib(path, s)
        if kib is None:
            return None
        shown = human(kib) if "h" in letters and letters.rindex("h") > letters.rfind("k") else str(kib)
        lines.append(f"{shown}\t{name}\n")
    return "".join(lines), 0
