"""touch, mkdir and rmdir of several paths, each in its turn (rules/eachpath.py); the shell in a folder
that was removed; git and a file with the x bit it does not track. Against the real bubblewrap
sandbox: every answer the state gives must be the sandbox's byte for byte, and the lines named here
must be answered."""

from __future__ import annotations

import pytest

from mcp_world.executors.sandbox import bwrap_available

from .sandboxed import side_by_side, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")


def test_each_path_is_made_or_refused_in_its_turn():
    """`touch x nope/y` makes x and refuses nope/y; `mkdir c c` makes c once; `rmdir a/b a` removes
    both; a folder with something in it is "not empty"; `mkdir -p` names the file on its way as typed.
    Before, each was the model's, and `ls` after it too (the state forgot what the line made)."""
    lines = ["touch x nope/y", "ls", "mkdir c nope/d", "ls", "mkdir e; rmdir c e", "ls", "mkdir c c",
             "rmdir c x", "mkdir -p README.md", "mkdir -p nope/a README.md/b", "ls nope", "rmdir src",
             "rmdir nope/a nope", "ls", "touch src README.md/x", "touch new/ README.md/", "touch src/ x",
             "mkdir -p ./README.md/x/y", "mkdir -p a/b/c && rmdir a/b/c a/b a", "mkdir -p k/l && touch k/f",
             "rmdir k/l k", "ls k"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_in_a_removed_folder_nothing_is_made_and_nothing_is_listed():
    """After the shell's folder was removed from under it, `touch`, `mkdir -p` and `cp` into it fail,
    and `ls -a` lists nothing (not even `.` and `..`). The state said `mkdir -p` and `cp` succeeded,
    and `ls -a` printed `.` and `..`."""
    lines = ["mkdir q; cd q; rmdir ../q", "touch x", "mkdir y", "cp ../README.md .", "mkdir -p a/b", "ls -a",
             "ls -A .", "ls", "pwd", "cd ..", "ls"]
    seen = side_by_side(lines)
    assert unanswered(seen, {"touch x", "mkdir y", "ls -a", "ls -A .", "ls", "pwd", "cd .."}) == set()


def test_git_lists_an_executable_file_it_does_not_track_by_its_name():
    """`chmod +x build.sh` of a new file: `git status` lists it as untracked, whatever its mode (git
    records 100755 for a file it tracks, so that is the model's once it is staged). Before, every git
    answer was the model's while any file of the repository had the x bit."""
    lines = ["printf '#!/bin/bash\\necho hi\\n' > build.sh", "chmod +x build.sh", "git status --short", "git status",
             "./build.sh", "git diff --stat", "git add build.sh", "git status -s"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines[:6])) == set()


def test_a_folder_made_through_a_path_the_rules_do_not_read_is_not_forgotten():
    """`mkdir -p nope/.` (a path that stays where it is, past a name the state does not hold): the rules
    failed while forgetting what the line may have written, so the state stayed as it was and `ls` after
    it was answered without `nope` (the fuzz's modes set found it, seed 701). Now what it may have made
    is forgotten, and `ls` is the model's until the listing is known again."""
    seen = side_by_side(["rm -rf src", "mkdir -p nope/.", "ls", "ls nope"])
    assert "nope" in seen[2][2]
