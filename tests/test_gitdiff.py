"""`git diff`'s hunks as the terminal's state writes them (domains/terminal/rules/gitdiff.py and
xdiff.py, git's diff in Python), beside the real git of this machine (the sandbox's) on generated
edits: every patch written here is git's, byte for byte."""

from __future__ import annotations

import shutil

import pytest

from benchmarks import gnudiff_vs_diff
from benchmarks.gitdiff_vs_git import compare, compare_stats
from domains.terminal.rules import gitdiff, gnudiff

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="no git on this machine")


def test_generated_edits_are_diffed_as_git_diffs_them():
    """Every patch and count is git's, byte for byte: where the changes go (lines moved, inserted
    beside equal ones: git's Myers diff, its discarding of lines, its sliding and indent
    heuristic), the hunks, the function line, "\\ No newline at end of file" — on the edits
    benchmarks/gitdiff_vs_git.py generates: text with many equal lines, Python-like blocks, and
    blocks of new lines holding a line the old file has many times (git's "multiple match" rule,
    which can make its diff longer than the shortest)."""
    for kind, seed, count in (("text", 20261205, 400), ("code", 3, 100), ("many", 7, 150)):
        taken, declined, differ = compare(kind, seed, count)
        assert differ == 0 and declined == 0 and taken > 0.9 * count, (kind, taken, declined, differ)


def test_diffstats_wider_than_80_columns_are_scaled_and_cut_as_git_does():
    """A real project's `git show --stat` rarely fits 80 columns: git gives its graph at most 3/8 of
    them and scales it, and cuts long names to "..." and their last folders. On 120 generated
    repositories every diffstat is written, and each is git's byte for byte."""
    taken, declined, differ = compare_stats(20261206, 120)
    assert (taken, declined, differ) == (120, 0, 0)
    long = "src/a/very/long/package/name/and/then/some/more/folders/module_with_a_long_name.py"
    assert gitdiff.stat([("b.py", 0, 698), (long, 500, 3)]) == (  # (`seq 700 > b.py` to `seq 2`; git's own)
        " b.py                                               | 698 ---------------------\n"
        " .../some/more/folders/module_with_a_long_name.py   | 503 ++++++++++++++-\n"
        " 2 files changed, 500 insertions(+), 701 deletions(-)\n")


@pytest.mark.skipif(shutil.which("diff") is None, reason="no GNU diff on this machine")
def test_diff_in_its_normal_form_is_gnu_diffs_where_the_lines_it_shows_are_certain():
    """`diff a b` (`3c3`, `5a6`, `< old`, `---`, `> new`, "\\ No newline at end of file"): written
    where the files have one longest common subsequence and GNU diff's confusing-lines heuristic does
    not apply, and each is GNU diff's byte for byte; elsewhere (lines moved among many equal ones)
    the model's. Before, every `diff` of two different files was the model's."""
    for kind, seed, least in (("text", 20261207, 0.45), ("code", 20261207, 0.3)):
        taken, declined, differ = gnudiff_vs_diff.compare(kind, seed, 300)
        assert differ == 0 and taken > least * (taken + declined), (kind, taken, declined, differ)
    assert gnudiff.normal("a\nb\nc\n", "a\nB\nc\nd") == "2c2\n< b\n---\n> B\n3a4\n> d\n\\ No newline at end of file\n"
    assert gnudiff.normal("x\nx\n", "x\n") is None  # (which x went: either)


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
