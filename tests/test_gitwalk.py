"""The walk find and grep -r make through a repository's .git (domains/terminal/rules/gitfiles.walk):
each folder's entries newest first, as the sandbox's tmpfs hands them out, .git made after the world's
files, its own entries in the order git 2.39 makes them. Checked against the real bubblewrap sandbox
(tests/sandboxed.py), on the shipped world and on generated repositories."""

from __future__ import annotations

import random

import pytest
import yaml

from mcp_world.executors.sandbox import bwrap_available
from mcp_world.world import load_world

from .sandboxed import RULES, side_by_side, st, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")
gitfiles = __import__(type(RULES).__module__ + ".gitfiles", fromlist=["x"])


def test_find_and_grep_r_of_a_repository_walk_its_git_folder_where_the_sandbox_does():
    """`find .` lists .git's entries in their place; `grep -rn WORD .` prints the sample hooks' lines,
    the commit's message in .git's logs, and `grep: ./.git/index: binary file matches` where a path
    holds the word, each where the walk reaches it; with the errors sent away, or into a pipe that
    waits for its end, the messages apart. `git status` may write the index anew (where a file was
    racily clean), which makes it the newest entry: after it, a walk that shows the index is the
    model's but where what follows does not depend on the order (`| wc -l`, `| sort`). Before, each
    was the model's: where .git came in the walk was not known."""
    lines = ["find .", "find . -maxdepth 2 -type f", "grep -rn notes .", "grep -rn import .", "grep -rni usage .",
             "grep -rli initial .", "grep -rnw test .", "grep -rn notes . | wc -l", "grep -rn notes . 2>/dev/null",
             "grep -rn notes . 2>&1 | wc -l", "grep -rn notes . | sort", "grep -rhn notes .", "grep -rnI notes .",
             "grep -rno sample .", "git status", "find . -type d", "grep -rn import .", "grep -rn notes . | wc -l",
             "grep -rl notes . | sort", "grep -rc import . | sort", "touch src/new.py",
             "mkdir -p build && echo notes > build/out.txt", "find . -maxdepth 1 -name '*.*'", "grep -rl sample ."]
    seen = side_by_side(lines + ["grep -rn notes .", "find . -maxdepth 2", "grep -rc import ."])
    assert unanswered(seen[:-3], set(lines)) == set()
    assert "binary file matches" in dict((c, r) for c, _, r in seen)["grep -rn notes ."]
    assert [said for _, said, _ in seen[-3:]] == [None] * 3  # (the index: where, after `git status`? -c shows it)


def test_git_status_run_any_way_leaves_the_index_s_place_unknown():
    """`$(git status)`, `(git status)`, `{ git status; }`, `env git status`: git run where the rules do
    not follow it as such may write the index anew too. Before, the walk after them put the index
    where the commit left it, and `find .` was answered wrong."""
    for line in ["s=$(git status --short)", "(git status)", "{ git status; }", "env git status > /dev/null"]:
        seen = side_by_side([line, "find . -maxdepth 2", "git log --oneline", "find . -type d"])
        assert seen[1][1] is None and seen[3][1] is not None, line  # (a read of git's leaves the rest placed)


def test_a_write_into_git_by_any_command_ends_the_walk():
    """`mkdir .git/x`, `cd .git/hooks && rm *.sample`: .git is no longer as the commit left it. Before,
    `find .` was answered without what they made or removed (and `find . | wc -l` counted wrong)."""
    for line in ["mkdir .git/x", "cd .git/hooks && rm *.sample; cd ../..", "touch .git/FOO"]:
        seen = side_by_side([line, "find . -maxdepth 3", "find . | wc -l"])
        assert [said for _, said, _ in seen[1:]] == [None, None], line
    seen = side_by_side(["ls .git", "cat .git/HEAD", "find . -maxdepth 3"])  # (reads of it leave it so)
    assert seen[2][1] is not None


def test_words_between_bars_are_looked_for_as_any_of_them():
    """`grep -rn 'TODO\\|FIXME' .`, `-E 'a|b'`, `-e a -e b`: any of several words, each as grep -r looks
    for one (the longest first where two start at a place: `-o`). Before, each was the model's in a
    repository, and anywhere as `-e`."""
    lines = ["grep -rn 'notes\\|import' .", "grep -rnE 'notes|return' .", "grep -rl -e pytest -e sample .",
             "grep -rnoi 'usage\\|sage' .", "grep -rnw 'test\\|notes' src tests", "grep -rn -e add -e def src"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    seen = side_by_side(["grep -r -e -in tests", "grep -rn -e notes -e -x src"])  # (patterns that look like options)
    assert [said for _, said, _ in seen] == [None, None]


def test_regular_expressions_are_looked_for_in_git_s_files_too():
    """`grep -rn 'class .*:' .`, `-E 'def [a-z_]+'`, `-c`: .git's text files grepped as the others;
    the index and the objects (binary) where the pattern's leading letters say whether it can match
    there: `grep: ./.git/index: binary file matches` (-l: its name) where a path does, nothing (-c: 0)
    where none can. Before, a regular expression in a repository was the model's."""
    lines = ["grep -rn 'def .*(' .", "grep -rnE 'notes[a-z_]*' .", "grep -rc import .", "grep -rl 'notes.*py' .",
             "grep -rno 'test_[a-z]*' . 2>/dev/null", "grep -rn 'pytest.*' . | wc -l", "grep -rni 'initial.*' ."]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert "./.git/index\n" in dict((c, r) for c, _, r in seen)["grep -rl 'notes.*py' ."]


def test_a_top_given_from_the_home_or_with_a_slash_is_walked_as_the_others():
    """`find ~/notes-app`, `grep -rn notes ~/notes-app` (bash hands find the home's path), `find ./`,
    `find src/` (each path after the top as find joins it); `grep -rn WORD FILE` (a file named alone:
    its lines without its name, as without -r). Before, each was the model's."""
    lines = ["find ~/notes-app -maxdepth 2", "grep -rn notes ~/notes-app", "find ./ -maxdepth 2 -type f",
             "find src/ -name '*.py'", "grep -rn notes ~/notes-app/src | wc -l", "find src/ -name src",
             "grep -rn def src/notes.py", "grep -rc import tests/test_notes.py", "grep -rnE 'def|return' src/notes.py"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def _world(tmp_path, rng: random.Random) -> str:
    """A repository of nested folders, files that share their contents, an empty one, on a branch
    of its own: the objects git writes (and the folders they go in) in an order of their own."""
    names = ["a.py", "b.txt", "pkg/__init__.py", "pkg/core.py", "pkg/sub/deep.py", "pkg/sub/x.md", "pkg-x.txt",
             "docs/guide.md", "docs/api/ref.md", "z/y/x/w.txt", "Makefile", "setup.cfg"]
    texts = ["", "import os\n", "def main():\n    return 1\n", "# Guide\n\nRun main.\n", "x = 1\n"]
    files = {f"/home/user/proj/{n}": rng.choice(texts) + rng.choice(["", f"# {n}\n"])
             for n in rng.sample(names, rng.randint(4, len(names)))}
    world = {"name": "walk", "description": "A project.", "domains": ["terminal"],
             "seed": {"terminal": {"user": "user", "hostname": "devbox", "cwd": "/home/user/proj", "files": files,
                                   "git": [{"path": "/home/user/proj", "branch": rng.choice(["main", "feat/x"]),
                                            "message": rng.choice(["Initial commit", "Start the project"])}]}}}
    path = tmp_path / f"walk{rng.random():.6f}.yaml"
    path.write_text(yaml.safe_dump(world))
    return str(path)


def test_generated_repositories_are_walked_as_the_sandbox_walks_them(tmp_path):
    rng = random.Random(20261206)
    for _ in range(4):
        world = _world(tmp_path, rng)
        lines = ["find .", "grep -rn main .", "grep -rl import .", "find . -type d", "git status", "find .git",
                 "grep -rn Guide . 2>/dev/null"]
        seen = side_by_side(lines, world)
        assert unanswered(seen, set(lines) - {"find .git", "git status"}) == set(), world


def test_the_walk_is_not_claimed_once_git_may_have_written_in_git():
    """A commit, a branch, `git add`: .git then holds what the rules do not lay out, and the walk is
    the model's again."""
    seen = side_by_side(["echo hi > new.txt", "git add new.txt", "grep -rn notes .", "find ."])
    assert unanswered(seen, {"grep -rn notes .", "find ."}) == {"grep -rn notes .", "find ."}
    s = st.TerminalState.model_validate(RULES.initial(load_world("devbox")))
    assert gitfiles.walk(s) is not None
    s.git.pristine = False
    assert gitfiles.walk(s) is None


def test_grep_r_into_head_prints_the_messages_grep_writes_while_head_still_reads():
    """`grep -rn WORD . | head -N`, as agents cut a search short: grep writes out what it holds before
    each `binary file matches` message, so a message with fewer than N lines before it reaches the
    terminal while head still waits, ahead of head's lines. One after N lines races with head's end
    (its SIGPIPE, and the two streams mixed mid-line): the model's. Before, each was the model's."""
    lines = ["grep -rn notes . | head -3", "grep -rn import . | head", "grep -rl notes . | head -2",
             "echo notes > a.txt", "grep -rn notes . | head -2", "grep -rn notes . | head -n 3 | cut -c1-12"]
    seen = side_by_side(lines + ["grep -rn notes . | head -1"])
    assert unanswered(seen, set(lines)) == set()
    assert seen[0][2].startswith("grep: ./.git/index: binary file matches\n") and seen[-1][1] is None
