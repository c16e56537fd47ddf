"""A command's output written into a file (domains/terminal/rules/intofile.py): `ls > files.txt`,
`seq 1 120 > data.txt`, `git log --oneline > log.txt`, each beside the real bubblewrap sandbox
(tests/sandboxed.py), and the file read back byte for byte."""

from __future__ import annotations

import pytest

from mcp_world.executors.sandbox import bwrap_available

from .sandboxed import side_by_side, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")


def test_output_into_a_file_is_written_as_bash_opens_it_first():
    """bash opens the file before the command runs: `ls` lists it, `ls -l` at size 0, `find .`
    walks it; the command's complaints reach the terminal, its output the file (`>>` onto what it
    held). Before, each such line was the model's, and the file's content was not known after it."""
    lines = ["ls > out.txt", "cat out.txt", "seq 1 5 > n.txt", "cat n.txt", "grep -n def src/notes.py > defs.txt",
             "cat defs.txt", "sort README.md > s.txt", "wc -l s.txt", "git log --oneline > log.txt", "cat log.txt",
             "head -2 README.md > h.txt && cat h.txt", "ls -la", "find . > all.txt", "wc -l all.txt",
             "git status --short", "cat nope > x.txt",
             "cat x.txt", "ls src tests >> out.txt", "cat out.txt", "grep -c x README.md | sort > c.txt", "cat c.txt",
             "ls nope > e.txt", "git show --stat > show.txt", "find . -name '*.py' > py.txt", "cat py.txt",
             "ls -l > l.txt", "cat l.txt", "pwd > p.txt",
             "grep -rn notes src > g.txt", "cat g.txt", "cd src > c2.txt", "pwd", "cd ..", "git status --short"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    said = {c: s for c, s, _ in seen}
    assert seen[1][1] == ("README.md\nout.txt\nrequirements.txt\nsrc\ntests\n", 0)  # (out.txt: opened first)
    assert said["ls nope > e.txt"] == ("ls: cannot access 'nope': No such file or directory\n", 2)


def test_a_command_that_reads_the_file_it_writes_is_the_model_s():
    """`grep -rn notes . > g.txt` walks g.txt too (grep: "input file is also the output", exit 2);
    `sort f > f` reads f emptied. Answered as the command alone, the first was confidently wrong
    when this rule was written (found in a probe). `ls > ~nobody` writes a file of that name where
    the shell is (no such user); `~/listed.txt` is in the home."""
    seen = side_by_side(["grep -rn notes . > g.txt", "sort README.md > README.md",
                         "grep -n def src/notes.py > src/notes.py", "grep -rn add src tests > src/x.txt",
                         "ls > ~nobody", "ls > ~/listed.txt", "cat ~/listed.txt"])
    assert [said for _, said, _ in seen[:5]] == [None] * 5  # (`~nobody`: no such user, so a name as typed)
    assert seen[-1][1] is not None and "README.md" in seen[-1][1][0]


def test_a_list_followed_command_by_command_keeps_each_commands_redirections():
    """`cat nope > out.txt 2>&1; cat out.txt`: the complaint went into the file. Followed a command at a
    time, the first was answered without its `2>&1` (as `cat nope > out.txt`, whose complaint reaches
    the terminal), and out.txt was taken to be empty: found by the streams fuzz set, seed 506, once
    output into files was answered."""
    seen = side_by_side(["cat nope > out.txt 2>&1; cat out.txt", "cat out.txt", "ls nope > o2.txt; cat o2.txt",
                         "cat o2.txt"])
    assert seen[1][1] is None and seen[3][1] == ("", 0)
