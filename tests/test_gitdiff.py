"""`git diff`'s hunks as the terminal's state writes them (domains/terminal/rules/gitdiff.py and
xdiff.py, git's diff in Python), beside the real git of this machine (the sandbox's) on generated
edits: every patch written here is git's, byte for byte."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from domains.terminal.rules import gitdiff, gitobjects

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="no git on this machine")

LINES = ["def f():", "    return 1", "", "", "x = 1", "import os", "class A:", "    pass", "# c", "}", "{", "print(x)",
         "$v", "_p = 2", "\tif x:", "\t\ty()", "    def g(self):", "        return self", "  ", "\x0cpage", "a\rb", "é = 1"]


def _edited(rng: random.Random) -> tuple[str, str]:
    """A file of code-like lines (many repeated: blank lines, `return`, braces) or numbered ones, and
    up to eight edits: a line rewritten, lines inserted, taken out or moved, close together or
    apart; now and then a last line without its newline."""
    sparse = rng.random() < 0.4  # (half the lines blank or a brace: many equal lines to slide over)

    def line() -> str:
        if sparse and rng.random() < 0.5:
            return rng.choice(["", "}", "    }"]) + "\n"
        return (rng.choice(LINES) if rng.random() < 0.7 else f"line {rng.randint(0, 30)}") + "\n"

    old = [line() for _ in range(rng.randint(0, rng.choice([12, 40, 90])))]
    new = list(old)
    for _ in range(rng.randint(1, rng.choice([2, 8]))):
        op, at = rng.random(), rng.randint(0, len(new))
        if op < 0.25 and new:
            new[min(at, len(new) - 1)] = line()
        elif op < 0.55:
            new[at:at] = [line() for _ in range(rng.randint(1, 4))]
        elif op < 0.8 and new:
            del new[min(at, len(new) - 1):min(at, len(new) - 1) + rng.randint(1, 4)]
        elif len(new) > 3:  # a block moved
            i, k = rng.randint(0, len(new) - 2), rng.randint(1, 3)
            block = new[i:i + k]
            del new[i:i + k]
            j = rng.randint(0, len(new))
            new[j:j] = block
    old_text, new_text = "".join(old), "".join(new)
    return (old_text[:-1] if old_text and rng.random() < 0.1 else old_text,
            new_text[:-1] if new_text and rng.random() < 0.1 else new_text)


def _git(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tmp_path, capture_output=True, check=True, env=env).stdout.decode()

    git("init", "-q")
    git("config", "user.name", "a")
    git("config", "user.email", "a@b.c")
    return git


def test_generated_edits_are_diffed_as_git_diffs_them(tmp_path):
    """Every patch and count is git's, byte for byte: where the changes go (lines moved, inserted
    beside equal ones: git's Myers diff, its discarding of lines, its sliding and indent
    heuristic), the hunks, the function line, "\\ No newline at end of file"."""
    git = _git(tmp_path)
    rng = random.Random(20261205)
    taken, differ = 0, []
    for _ in range(400):
        old, new = _edited(rng)
        if old == new:
            continue
        ours = gitdiff.patch("f.txt", old, new, gitobjects.blob_id(old), gitobjects.blob_id(new))
        assert ours is not None, (old, new)  # (files this small are never cut short)
        (tmp_path / "f.txt").write_bytes(old.encode())
        git("add", "f.txt")
        git("commit", "-qm", "x", "--allow-empty")
        (tmp_path / "f.txt").write_bytes(new.encode())
        taken += 1
        real, numbers = git("diff"), git("diff", "--numstat").split()[:2]
        if ours[0] != real or [str(n) for n in gitdiff.counts(old, new)] != numbers:
            differ.append((old, new, real, ours[0]))
    assert not differ, differ[:3]
    assert taken > 350


def test_a_line_found_many_times_amid_new_lines_is_taken_as_new_as_git_takes_it(tmp_path):
    """Blocks of new lines holding a blank line or a brace, which the old file has many times: git
    drops such a line from its search where the lines around it are new (its "multiple match"
    rule), so it shows as added even where a shorter diff could keep it."""
    git = _git(tmp_path)
    rng, made, differ = random.Random(7), 0, []
    for _ in range(150):
        old = [line for i in range(rng.randint(8, 30)) for line in (f"l{i}\n", rng.choice(["}\n", "\n"]))]
        new = list(old)
        for _ in range(rng.randint(1, 3)):
            block = []
            for _ in range(rng.randint(3, 12)):
                made += 1
                block.append(f"n{made}\n" if rng.random() < 0.8 else rng.choice(["}\n", "\n"]))
            at = rng.randint(0, len(new))
            new[at:at + (rng.randint(1, 6) if rng.random() < 0.5 else 0)] = block
        old_text, new_text = "".join(old), "".join(new)
        ours = gitdiff.patch("f.txt", old_text, new_text, gitobjects.blob_id(old_text), gitobjects.blob_id(new_text))
        (tmp_path / "f.txt").write_text(old_text)
        git("add", "f.txt")
        git("commit", "-qm", "x", "--allow-empty")
        (tmp_path / "f.txt").write_text(new_text)
        if ours is None or ours[0] != git("diff"):
            differ.append((old_text, new_text))
    assert not differ, differ[:2]


def test_git_places_a_change_that_could_go_more_than_one_way():
    """A function added after another: git slides the block so that it starts at its `def` and
    ends on a blank line (the indent heuristic); a line added beside an equal one; lines moved."""
    old = "def a():\n    return 1\n\ndef c():\n    return 3\n"
    new = "def a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n"
    assert gitdiff.hunks(old, new) == ("@@ -1,5 +1,8 @@\n def a():\n     return 1\n \n+def b():\n+    return 2\n+\n"
                                       " def c():\n     return 3\n", 3, 0)
    assert gitdiff.hunks("a\nb\nc\n", "a\nb\nb\nc\n") == ("@@ -1,3 +1,4 @@\n a\n b\n+b\n c\n", 1, 0)
    assert gitdiff.hunks("a\nb\nc\nd\n", "a\nc\nb\nd\n") == ("@@ -1,4 +1,4 @@\n a\n-b\n c\n+b\n d\n", 1, 1)
    assert gitdiff.hunks("a\nb", "a\nb\n") == ("@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", 1, 1)


def test_a_change_past_gits_exact_search_is_left_to_the_model():
    """Lines reordered throughout: past an edit cost of 256 git's diff takes a heuristic's path,
    not followed here; nor a binary file."""
    lines = [f"line {i}\n" for i in range(300)]
    assert gitdiff.hunks("".join(lines), "".join(reversed(lines))) is None
    assert gitdiff.counts("".join(lines), "".join(reversed(lines))) is None
    assert gitdiff.hunks("a\0\n", "b\n") is None


def test_changes_far_apart_are_two_hunks_and_near_ones_one():
    found = gitdiff.hunks("def f():\n    a\n    b\n    c\n    d\n    e\n", "def f():\n    a\n    b\n    c\n    D\n    e\n")
    assert found == ("@@ -2,5 +2,5 @@ def f():\n     a\n     b\n     c\n-    d\n+    D\n     e\n", 1, 1)
    lines = [f"line {i}\n" for i in range(20)]
    apart = lines[:2] + ["two\n"] + lines[3:17] + lines[18:]
    found = gitdiff.hunks("".join(lines), "".join(apart))
    assert found is not None and found[0].count("@@ -") == 2 and found[1:] == (1, 2)
    near = lines[:2] + ["two\n"] + lines[3:7] + lines[8:]
    assert gitdiff.hunks("".join(lines), "".join(near))[0].count("@@ -") == 1
