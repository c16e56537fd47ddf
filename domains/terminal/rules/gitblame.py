"""`git blame [-L A,B] [--] FILE` in the terminal's state, where the repository's first commit (the
world's, or the first the episode made) is the last that changed the file (the only one, or a second
that did not touch it) and the file is as that commit has it: every line is the first commit's, which
git shows as the history's boundary (`^` and seven digits of its id), with its author, the author's
time (UTC: the sandbox's, and the seed's), and the line's number as wide as the last one shown. Where
a later commit or a change not committed touched the file, which lines are whose is git's diff over
the history: the model's.

As builtin/blame.c prints it (find_alignment, emit_other); checked byte for byte against git in the
sandbox (tests/test_git_restore.py, benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import posixpath
import re
import time

from .state import TerminalState, _abs, _absent, _within

_RANGE = re.compile(r"(\d+),(\d+)")
NO_PATH = "fatal: no such path '{}' in HEAD\n"


def answer(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    """`args` after `git`: `blame [-L A,B] [--] FILE`; None where the state cannot say each line's."""
    g = s.git
    if g is None or args[:1] != ["blame"] or not 1 <= len(g.commits) <= 2 or g.unknown or not g.follows or \
            len(g.made) != len(g.commits) or g.made[0] is None or len(g.commits) == 2 and g.last_change is None:
        return None
    rest, lines = args[1:], None
    if rest[:1] == ["-L"] and len(rest) > 1 and _RANGE.fullmatch(rest[1]):
        first, last = (int(n) for n in rest[1].split(","))
        lines, rest = (first, last), rest[2:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    if len(rest) != 1 or rest[0].startswith("-") or not re.fullmatch(r"[A-Za-z0-9._/+@=,~-]+", rest[0]):
        return None
    path = _abs(rest[0], s)
    rel = posixpath.relpath(path, g.repo)
    if not _within(path, g.repo) or path == g.repo or rel.split("/")[0] == ".git" or \
            g.last_change is not None and len(g.commits) == 2 and rel in g.last_change:
        return None  # (outside; git's own folder; a file the second commit changed)
    if g.base.get(rel) == "" and rel not in g.index or rel not in g.base and _absent(path, s):
        return NO_PATH.format(rel), 128  # (not in the last commit, nor staged)
    if rel in g.base or path not in s.files or path in s.dirs:
        return None  # (a change since the commit)
    text = s.files[path]
    if text is None or "\0" in text:
        return None
    numbered = text.splitlines(keepends=True)
    first, last = lines or (1, len(numbered))
    if not 1 <= first <= last or first > len(numbered):
        return None  # (git's refusals of a range: the model's)
    last = min(last, len(numbered))  # (a range past the end: up to the last line)
    made = g.made[0]
    author = re.sub(r"\s*<[^>]*>\s*$", "", made.who)
    stamp = time.strftime("%Y-%m-%d %H:%M:%S +0000", time.gmtime(made.when))
    width = len(str(last))
    prefix = f"^{made.id[:7]} ({author} {stamp} "
    return "".join(f"{prefix}{n:>{width}}) {line if line.endswith(chr(10)) else line + chr(10)}"
                   for n, line in enumerate(numbered[first - 1:last], first)), 0
