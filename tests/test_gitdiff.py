"""`git diff`'s hunks as the terminal's state writes them (domains/terminal/rules/gitdiff.py), beside
the real git of this machine (the sandbox's) on generated edits: every patch written here is git's,
byte for byte; one git could place in more than one way is not written."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from domains.terminal.rules import gitdiff, gitobjects

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="no git on this machine")

LINES = ["def f():", "    return 1", "", "x = 1", "import os", "class A:", "    pass", "# c", "}", "print(x)", "$v", "_p = 2"]


def _edited(rng: random.Random) -> tuple[str, str]:
    """A file of code-like lines (many repeated), or of up to 40 numbered ones, and one to four
    edits: a line rewritten, some inserted, some taken out, close together or apart."""
    numbered = rng.random() < 0.5
    old = [(f"line {rng.randint(0, 60)}" if numbered else rng.choice(LINES)) + "\n"
           for _ in range(rng.randint(0, 40 if numbered else 14))]
    new = list(old)
    for _ in range(rng.randint(1, 4)):
        op, at = rng.random(), rng.randint(0, len(new))
        line = (f"new {rng.randint(0, 9)}" if numbered else rng.choice(LINES) + str(rng.randint(0, 3))) + "\n"
        if op < 0.4 and new:
            new[min(at, len(new) - 1)] = line
        elif op < 0.7:
            new[at:at] = [line if numbered else rng.choice(LINES) + "\n" for _ in range(rng.randint(1, 3))]
        elif new:
            del new[min(at, len(new) - 1):min(at, len(new) - 1) + rng.randint(1, 3)]
    return "".join(old), "".join(new)


def test_generated_edits_are_diffed_as_git_diffs_them(tmp_path):
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tmp_path, capture_output=True, text=True, check=True,
                              env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}).stdout

    git("init", "-q")
    git("config", "user.name", "a")
    git("config", "user.email", "a@b.c")
    rng = random.Random(20261205)
    taken, differ = 0, []
    for _ in range(500):
        old, new = _edited(rng)
        if old == new:
            continue
        ours = gitdiff.patch("f.txt", old, new, gitobjects.blob_id(old), gitobjects.blob_id(new))
        if ours is None:
            continue
        (tmp_path / "f.txt").write_text(old)
        git("add", "f.txt")
        git("commit", "-qm", "x", "--allow-empty")
        (tmp_path / "f.txt").write_text(new)
        taken += 1
        real = git("diff")
        if ours[0] != real:
            differ.append((old, new, real, ours[0]))
    assert not differ, differ[:3]
    assert taken > 300  # (most edits are ones git makes one way: the check is not vacuous)


def test_a_change_git_could_make_two_ways_is_not_written():
    """Lines added after an equal line (git's heuristics choose which is new), or lines moved (two
    matchings as long): the model's. Two changes far apart are two hunks, near ones one."""
    assert gitdiff.hunks("}\n\nx = 1\n", "}\n\nx = 1\n    return 1\nx = 1\nx = 1\n") is None
    assert gitdiff.hunks("a\nb\nc\n", "a\nb\nb\nc\n") is None
    assert gitdiff.hunks("a\nb\nc\nd\n", "a\nc\nb\nd\n") is None
    found = gitdiff.hunks("def f():\n    a\n    b\n    c\n    d\n    e\n", "def f():\n    a\n    b\n    c\n    D\n    e\n")
    assert found == ("@@ -2,5 +2,5 @@ def f():\n     a\n     b\n     c\n-    d\n+    D\n     e\n", 1, 1)
    lines = [f"line {i}\n" for i in range(20)]
    apart = lines[:2] + ["two\n"] + lines[3:17] + lines[18:]
    found = gitdiff.hunks("".join(lines), "".join(apart))
    assert found is not None and found[0].count("@@ -") == 2 and found[1:] == (1, 2)
    near = lines[:2] + ["two\n"] + lines[3:7] + lines[8:]
    assert gitdiff.hunks("".join(lines), "".join(near))[0].count("@@ -") == 1
