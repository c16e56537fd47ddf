"""A repository's .gitignore files (domains/terminal/rules/gitignore.py): what `git status` leaves out,
what `git add` does not stage or refuses, and the commit after it, each beside the real bubblewrap
sandbox (tests/sandboxed.py). Every real project has a .gitignore; before, any one in the repository
made `git status` after a new file, `git add PATH` and every commit the model's, and `git add -A`
staged ignored files in the state (`git status -s` then listed them: confidently wrong)."""

from __future__ import annotations

import pytest
import yaml

from mcp_world.executors.sandbox import bwrap_available

from .sandboxed import side_by_side, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")

COMMIT = "git -c user.name=a -c user.email=a@b.c commit -qm"


def test_status_add_and_commit_leave_out_what_the_gitignore_ignores():
    lines = ["printf '*.log\\nbuild/\\n__pycache__/\\n' > .gitignore", "echo x > app.log", "git status -s",
             "mkdir -p build/sub && touch build/sub/o.txt", "touch new.py", "git status -s", "git status",
             "mkdir pkg && touch pkg/m.py && mkdir pkg/__pycache__ && touch pkg/__pycache__/m.pyc", "git status -s",
             "git add -A", "git status -s", f"{COMMIT} 'Ignore logs'", "git status", "git ls-files", "git show --stat",
             "mkdir logs && touch logs/a.log", "git status --porcelain", "git add logs", "git status -s"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    said = {c: s for c, s, _ in seen}
    assert seen[5][1] == ("?? .gitignore\n?? new.py\n", 0)
    assert seen[8][1] == ("?? .gitignore\n?? new.py\n?? pkg/\n", 0)  # (a folder of ignored files alone: not shown)
    assert seen[10][1] == ("A  .gitignore\nA  new.py\nA  pkg/m.py\n", 0)
    assert said["git status"] == ("On branch main\nnothing to commit, working tree clean\n", 0)
    assert "app.log" not in said["git ls-files"][0]


def test_a_path_git_add_is_given_that_is_ignored_is_refused_and_the_others_added():
    """git names the outermost ignored folder on the path's way (relative to the repository, wherever
    the shell is), sorted, on stderr, exit 1; the other paths are staged all the same."""
    lines = ["printf 'dist/\\n*.egg-info/\\n' > .gitignore", "mkdir -p dist/x n.egg-info && touch dist/x/a n.egg-info/P",
             "echo y > new.txt", "git add dist/x/a n.egg-info new.txt", "git status -s", "cd dist && git add x",
             "git add ../n.egg-info/", "git status", "cd .. && git add dist .gitignore", "git status -s"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    hint = ("hint: Use -f if you really want to add them.\nhint: Turn this message off by running\n"
            "hint: \"git config advice.addIgnoredFile false\"\n")
    assert seen[3][1] == ("The following paths are ignored by one of your .gitignore files:\ndist\nn.egg-info\n"
                          + hint, 1)
    assert seen[4][1] == ("A  new.txt\n?? .gitignore\n", 0)
    assert seen[-1][1] == ("A  .gitignore\nA  new.txt\n", 0)


def test_a_folders_own_gitignore_and_re_included_paths():
    """A deeper .gitignore wins over the top one; `!` re-includes a file, but not inside an ignored
    folder (git does not look there); a pattern with a slash is anchored where its file is."""
    lines = ["printf '*.o\\n!keep.o\\nout/\\n' > .gitignore", "printf '!x.o\\n/gen\\n' > src/.gitignore",
             "touch a.o keep.o src/x.o src/y.o && mkdir -p out src/gen gen && touch out/keep.o src/gen/g gen/g",
             "git status -s", "git add -A", "git status -s", "git add src/y.o"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[3][1] == ("?? .gitignore\n?? gen/\n?? keep.o\n?? src/.gitignore\n?? src/x.o\n", 0)


def test_a_world_file_git_would_ignore_leaves_status_to_the_model(tmp_path):
    """A world may declare a file its .gitignore matches: the sandbox's `git add -A` leaves it out of the
    first commit, so the state's picture (every file of the world tracked) is off. Nothing about what is
    tracked or ignored is answered there."""
    world = {"name": "ign", "description": "A project.", "domains": ["terminal"],
             "seed": {"terminal": {"user": "user", "hostname": "box", "cwd": "/home/user/p",
                                   "files": {"/home/user/p/.gitignore": "*.log\n", "/home/user/p/run.log": "x\n",
                                             "/home/user/p/a.py": "print(1)\n"},
                                   "git": [{"path": "/home/user/p", "branch": "main", "message": "Start",
                                            "author": "Ann <ann@ex.org>"}]}}}
    path = tmp_path / "ign.yaml"
    path.write_text(yaml.safe_dump(world))
    lines = ["touch b.py", "git status -s", "git ls-files", "git add -A", f"{COMMIT} x"]
    seen = side_by_side(lines, world=str(path))
    assert unanswered(seen, set(lines)) == {"git status -s", "git ls-files", f"{COMMIT} x"}


def test_git_add_given_nothing_stages_nothing():
    """`git add #x` is `git add` (the rest is a comment): "Nothing specified, nothing added.", and nothing
    is staged. The state took it for `git add -A` and listed x.o as added (the ignores fuzz set, seed 1008,
    found it)."""
    lines = ["touch x.o", "git add #x", "git status -s", "git add", "cd src && git add; cd .."]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[2][1] == ("?? x.o\n", 0)


def test_git_add_dot_in_an_ignored_folder_is_refused_and_a_dot_with_all_is_followed():
    """`cd build && git add .` where build/ is ignored: git refuses `.`, naming build; the state said
    nothing (a probe found it). `git add -A .` in a folder stages what is there, removals too."""
    lines = ["printf 'build/\\n' > .gitignore", "mkdir -p build && touch build/x", "cd build && git add .",
             "git status -s", "git add -A .", "cd .. && git add .", "git status -s",
             "echo y > src/n.py && cd src && git add -A . && cd ..", "git status -s",
             "rm src/notes.py && cd src && git add --all . ; cd ..", "git status -s"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[2][1][0].startswith("The following paths are ignored by one of your .gitignore files:\nbuild\n")
    assert seen[-1][1] == ("A  .gitignore\nA  src/n.py\nD  src/notes.py\n", 0)


def test_git_clean_removes_what_is_untracked_and_not_ignored_as_git_walks_the_tree():
    """Without -d the untracked files in folders that hold a tracked one; with -d an untracked folder
    whole where nothing in it is ignored (an empty one too), one holding something ignored walked
    instead (newdir/sub/, newdir kept for its z.log); an ignored folder not entered; below the shell's
    folder, relative to it; refused without -n or -f. Each was the model's, and the state forgot every
    file below the repository after it."""
    lines = ["printf '*.log\\nbuild/\\n' > .gitignore", "mkdir -p build newdir/sub empty src/new onlyign",
             "touch a.log b.txt build/x newdir/sub/f newdir/z.log src/new/m.py src/c.py onlyign/q.log",
             "git clean", "git clean -n", "git clean -nd", "cd src && git clean -nd; cd ..", "git clean -ndq",
             "git clean -fd", "git status -s", "ls -a", "mkdir -p a/b a-b && touch a-b/x a/b/y && git clean -nd"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    said = {c: s for c, s, _ in seen}
    assert said["git clean -nd"] == ("Would remove .gitignore\nWould remove b.txt\nWould remove empty/\n"
                                     "Would remove newdir/sub/\nWould remove src/c.py\nWould remove src/new/\n", 0)
    assert said["git status -s"] == ("?? a.log\n?? build/\n?? newdir/\n?? onlyign/\n", 0)
    assert seen[-1][1] == ("Would remove a-b/\nWould remove a.log\nWould remove a/\nWould remove build/\n"
                           "Would remove newdir/\nWould remove onlyign/\n", 0)  # (.gitignore removed: nothing ignored)


def test_git_clean_x_removes_what_is_ignored_too():
    """`git clean -fdx`, a project back to what git tracks: what is ignored goes too, the .gitignore not
    read at all; without -d, the files alone (an untracked folder stays)."""
    lines = ["printf '*.log\\nbuild/\\n__pycache__/\\n' > .gitignore",
             "mkdir -p build/sub src/__pycache__ && touch build/sub/o.txt a.log src/x.log src/__pycache__/n.pyc new.txt",
             "git clean -nx", "git clean -ndx", "git clean -fdxq", "git status -s", "ls -a", "ls src",
             "touch b.log && mkdir -p logs && touch logs/c.log", "git clean -fx", "ls", "git clean -nxd"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[3][1] == ("Would remove .gitignore\nWould remove a.log\nWould remove build/\nWould remove new.txt\n"
                          "Would remove src/__pycache__/\nWould remove src/x.log\n", 0)
    assert seen[9][1] == ("Removing b.log\n", 0)
