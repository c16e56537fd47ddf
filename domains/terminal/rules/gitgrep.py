"""`git grep` as git prints it: the files git tracks under the shell's folder, in the index's order
(named relative to that folder), their working-tree text searched line by line as grep searches it
(grepfile.py: fixed strings and regular expressions, basic or extended), each line after its file's
name. `-c` names only the files with a line counted, unlike grep. Options taken: -n -i -v -l -c -o
-h -E -F -G -e, and pathspecs after `--` (`pathspecs`, which `git ls-files` reads too); anything else
(a path without `--`, -w, -p, --and, a file git would call binary) is the model's, and so is a
pattern an empty line matches (`^$`, `x*`: git counts one more at the end of each file). Checked in
the sandbox (benchmarks/state_vs_real.py) and beside git (tests/test_gitgrep.py).
"""

from __future__ import annotations

import fnmatch
import posixpath
import re

from . import grepfile
from .state import GitState, TerminalState, _within

OPTIONS = frozenset("nivlcohEFG")


_SPEC = re.compile(r"[A-Za-z0-9._/*?+@=,-]+")


def pathspecs(specs: list[str], repo: str, cwd: str):
    """git's pathspecs given in `cwd` as a test of a path relative to the repository `repo`: one with
    `*` or `?` matches a path whole, `*` across slashes too (`'*.py'`: every Python file below);
    another names a file, or a folder and all below it. None where one is not read here (magic
    `:(…)`, a class `[…]`, outside the repository)."""
    made = []
    for spec in specs:
        if not _SPEC.fullmatch(spec):
            return None
        full = posixpath.normpath(posixpath.join(posixpath.relpath(cwd, repo), spec))
        if full == ".." or full.startswith("../"):
            return None
        made.append(("" if full == "." else full, "*" in spec or "?" in spec))

    def hit(rel: str) -> bool:
        return any(fnmatch.fnmatchcase(rel, full) if glob else not full or rel == full or rel.startswith(full + "/")
                   for full, glob in made)
    return hit


def answer(s: TerminalState, g: GitState, args: list[str], tracked: list[str]) -> tuple[str, int] | None:
    """`git grep ARGS` over the tracked files (`tracked`: relative to the repository, in the index's
    order); None where it is not answered here."""
    flags: list[str] = []
    pattern: str | None = None
    specs: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-e" and i + 1 < len(args) and pattern is None:
            pattern, i = args[i + 1], i + 2
            continue
        if a.startswith("-") and len(a) > 1 and pattern is None:
            if a.startswith("--") or not set(a[1:]) <= OPTIONS:
                return None
            flags.append(a)
        elif pattern is None:
            pattern = a
        elif a == "--":
            specs = args[i + 1:]
            break
        else:
            return None  # (a path or a revision after the pattern, without `--`: which, git's call)
        i += 1
    letters = set("".join(f[1:] for f in flags))
    if pattern is None or not pattern or "\n" in pattern or "l" in letters and {"c", "o"} & letters or \
            {"c", "h"} <= letters:
        return None
    matcher = ["-" + "".join(sorted(letters & set("EFGi")))] if letters & set("EFGi") else []
    if grepfile.search(["-c", *matcher, "-e", pattern, "x"], ["\n"]) != ("0\n", 1):
        return None  # (a pattern an empty line matches: git's also matches after a file's last newline)
    chosen = pathspecs(specs, g.repo, s.cwd) if specs else lambda rel: _within(posixpath.join(g.repo, rel), s.cwd)
    if chosen is None:
        return None
    files = [rel for rel in tracked if chosen(rel)]
    texts = [s.files.get(posixpath.join(g.repo, rel)) for rel in files]
    if any(text is None or "\0" in text for text in texts):
        return None  # (a file not known, gone from the working tree, or binary: "Binary file … matches")
    names = [posixpath.relpath(posixpath.join(g.repo, rel), s.cwd) for rel in files]
    if not names:
        return "", 1
    found = grepfile.search(["-H", *flags, "-e", pattern, *names], texts)
    if found is None:
        return None
    said, code = found
    if "c" in letters:  # (git counts only the files with a line counted)
        said = "".join(line + "\n" for line in said.splitlines() if not line.endswith(":0"))
    return said, code
