"""Undoing an edit with git (`git checkout -- f`, `git restore`, `git reset`, `git reset --hard`) in
the terminal's state, against git in the real bubblewrap sandbox (tests/sandboxed.py): every answer
byte for byte, the files and index after it too, so the lines after it (`cat`, `git status`, `git
diff`, `find`) stay answered. Before, each of these ended what the state followed of the repository:
every later `ls`, `cat` and `git status` there was the model's."""

from __future__ import annotations

import pytest

from mcp_world.executors.sandbox import bwrap_available
from mcp_world.world import load_world

from .sandboxed import RULES, shell, side_by_side, silent, st, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")


def test_an_edit_undone_with_checkout_or_restore_is_put_back_as_the_index_has_it():
    """The working file as the index has it; without `--` git counts what it wrote; a folder removed
    comes back (and is listed where git made it); `checkout HEAD --` and `restore -SW` take the last
    commit's, the index too."""
    lines = ["sed -i 's/notes/items/g' src/notes.py", "git checkout -- src/notes.py", "cat src/notes.py",
             "git status --short", "echo x >> README.md", "git restore README.md", "git diff",
             "rm requirements.txt", "echo z > README.md", "git checkout README.md requirements.txt", "ls",
             "git checkout .", "rm -r src", "git checkout -- src", "find . -not -path './.git*'", "ls -la src",
             "echo y > README.md", "git add README.md", "echo w > README.md", "git checkout -- README.md",
             "cat README.md", "git checkout HEAD -- README.md", "git status", "echo v > README.md",
             "git add -A", "git restore -SW README.md", "git status --short", "cat README.md"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_reset_unstages_and_lists_what_is_left_and_reset_hard_puts_everything_back():
    """`git reset [PATHS]` sets the index back and lists every tracked file still changed, from the
    repository's top; without `--` the first name must be in the working tree. `--hard` removes a
    file staged as new, and the folders it leaves empty."""
    lines = ["echo x >> src/notes.py", "git add src/notes.py", "echo y >> src/notes.py", "cd src", "git reset",
             "git status --short", "git add notes.py", "git reset -- notes.py", "git add notes.py",
             "git reset HEAD notes.py", "cd ..", "rm README.md", "git reset README.md", "git reset -- README.md",
             "git reset nope new.txt", "git restore --staged src/notes.py", "git add -A", "git reset -q",
             "git status", "mkdir -p d/e && echo q > d/e/f && git add d", "git reset --hard", "ls", "git status",
             "cat src/notes.py README.md", "echo n > new.txt", "git add new.txt", "git reset --hard -q", "ls"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines) - {"mkdir -p d/e && echo q > d/e/f && git add d"}) == set()


def test_a_path_git_does_not_know_is_refused_and_nothing_changes():
    """A name git does not track is refused before anything is put back, each named once; `restore`
    needs a path."""
    lines = ["echo z > README.md", "echo n > new.txt", "git checkout -- nope other", "git checkout new.txt",
             "git checkout -- new.txt README.md", "cat README.md", "git restore nope", "git restore --staged nope",
             "git restore", "git reset nope", "git status --short"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_appending_to_a_file_the_state_does_not_know_is_there_leaves_it_not_known():
    """`>>` onto a file a program may have made: what it holds now is not known either. Before, the
    state took a file it did not hold for empty, and answered `cat` with the appended line alone."""
    seen = side_by_side(["python3 -c \"open('made.txt', 'w').write('a\\n')\"", "echo x >> made.txt", "cat made.txt",
                         "mkdir fresh", "echo y >> fresh/new.txt", "cat fresh/new.txt"])
    answers = {command: said for command, said, _ in seen}
    assert answers["cat fresh/new.txt"] == ("y\n", 0)  # (a folder made now holds only what is made in it)


def test_a_stash_saves_the_changes_puts_the_files_back_and_pop_brings_them_back():
    """`git stash` (also `push -m`): saved as `git stash list` shows it, the files as the last commit
    has them; `apply` and `pop` bring them back onto that commit and print `git status` (a file
    staged as new is staged again, other staged changes are not); `pop` and `drop` take the entry
    off (the id they print is the model's). With nothing changed, or nothing stashed, git says so."""
    lines = ["git stash", "git stash -q", "git stash list", "git stash pop", "echo x >> README.md", "echo n > new.txt",
             "git add new.txt", "echo y > src/notes.py", "git add src/notes.py", "echo z >> src/notes.py", "git stash",
             "git stash list", "git status", "ls", "git stash apply", "git status --short", "git reset --hard -q",
             "git stash pop -q", "git status --short", "cat src/notes.py new.txt", "git stash list", "git stash -q",
             "git stash drop", "git stash list", "git stash pop", "echo q > README.md", 'git stash push -m "try this"',
             "git stash list", "rm src/notes.py", "git stash", "ls src", "git stash pop", "ls src", "git stash pop",
             "cat README.md", "git status", "git stash drop -q"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == {"git stash drop", "git stash pop"}  # (each prints the stash's id)
    assert [said for command, said, _ in seen if command == "git stash pop"][0] == ("No stash entries found.\n", 1)


def test_a_test_run_piped_or_followed_by_its_status_leaves_what_git_tracks_followed():
    """`python3 -m pytest 2>&1 | tail -1` and `python3 x.py; echo $?` run a program that runs no git:
    what git tracks stays followed, as for the program run alone (`git diff` after it is answered;
    what it may have made beside, `git status`, is not). Before, the pipe, or the `$?` read by
    another command of the line, ended what the state followed of the repository."""
    lines = ["sed -i 's/append/insert/' src/notes.py", "git stash", "python3 -m pytest -q tests 2>&1 | tail -1",
             "git stash pop", "git diff",
             "python3 -c \"open('o.txt', 'w').write('x')\"; echo $?", "git diff --stat", "git stash list"]
    seen = side_by_side(lines)
    assert unanswered(seen, {"git diff", "git diff --stat", "git stash list"}) == set()


def test_a_file_moved_and_staged_is_the_rename_git_shows():
    """`mv a b && git add -A`: git shows the removal and the addition of the same content as one
    rename (`R  a -> b`, `renamed:`), also of an empty file; a rename whose content changed too, git
    finds by similarity, which is not worked out here: left to the model, as are the diffs of a rename.
    Before, the state answered a removal and a new file: confidently wrong, three ways."""
    lines = ["git config --global user.email a@b.c && git config --global user.name 'A B'",
             "touch e1 && cp README.md copy.md && git add -A && git commit -qm e", "mv e1 e2", "mv copy.md c2.md",
             "git add -A", "git status --short", "git status", "echo q >> c2.md", "cd src", "git status", "cd ..",
             "git status -s", "git diff --cached --stat", "git diff --stat", "git commit -qm r", "git show --stat",
             "mv README.md R.md && echo extra >> R.md && git add -A", "git status --short"]
    seen = side_by_side(lines)
    assert unanswered(seen, {"git status --short", "git status", "git status -s", "git diff --stat"}) == \
        {"git status --short"}  # (the last: a rename with its content changed)
    answers = {command: said for command, said, _ in seen}
    assert answers["git status -s"] == ("RM copy.md -> c2.md\nR  e1 -> e2\n", 0)  # (as git printed it: checked above)
    assert answers["git diff --cached --stat"] is None and answers["git show --stat"] is None


def test_git_rm_takes_files_out_of_the_index_and_the_tree_as_git_does():
    """`git rm` prints each file it takes out, from the repository's top, and removes it and the
    folders it leaves empty, but not the shell's own; `--cached` keeps the file; `-r` for a folder;
    a name git does not track is refused, the first one. A change git would refuse to lose (its
    message lists the files) is left to the model. `git reset --hard` then writes the files back in
    the index's order (where `find` lists them)."""
    lines = ["cd src", "git rm notes.py", "ls", "cd ..", "ls", "git rm tests", "git rm -r tests", "ls",
             "git rm nope README.md", "git rm README.md nope", "echo x >> README.md", "git rm README.md",
             "git rm --cached README.md", "git status --short", "git add README.md", "git rm -f README.md", "ls",
             "git rm -q -r .", "ls -a", "git status", "git reset -q --hard", "find . -not -path './.git*'",
             "mkdir -p d/e && echo q > d/e/f && git add d", "git rm -rf d", "ls"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == {"git rm README.md"}  # (it has local modifications)


def test_git_mv_moves_the_file_and_its_index_entry_and_status_shows_the_rename():
    """`git mv` moves a file or folder as mv does and its index entries with it (`git status`: the
    renames); what git refuses is answered as git words it, from the repository's top, the first
    reason in git's order (a fuzz seed found two in the wrong order: a folder onto a file, a missing
    file onto itself)."""
    lines = ["cd src", "git mv nope x", "git mv notes.py ../README.md", "touch u.txt", "git mv u.txt v.txt",
             "git mv notes.py ../tests", "git status --short", "cd ..", "git mv tests spec", "git status --short",
             "git mv README.md README.md", "git status", "git mv README.md GUIDE.md", "ls", "echo x >> GUIDE.md",
             "git status -s", "git diff", "git reset -q --hard", "ls", "mv tests spec", "git status --short",
             "git add -A", "git status", "git mv spec src/notes.py", "git mv nope nope", "git mv src src",
             "mkdir empty && git mv empty e2"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_a_commit_message_of_paragraphs_is_committed_as_git_commits_it():
    """`git commit -m first -m second` makes one message of two paragraphs, and so does a message
    written out in a here-document inside `$(…)` — the way Claude Code commits. The state took the
    first `-m` alone, and answered `git log`, `git show` and the commit's id wrong; the here-document
    was read as the line's own, and the commit was not followed at all (`git log --oneline` left it
    out). Now each is committed with git's id: `--oneline` and the commit's own line show the first
    paragraph; the whole message in `git log` and `git show` is the model's. `git log --oneline
    --graph` of the state's one line of history marks each commit `* `."""
    lines = ["git config --global user.email a@b.c && git config --global user.name 'A B'",
             "git log --oneline --graph", "echo x > f.txt && git add f.txt",
             "git commit -m \"$(cat <<'EOF'\nFix the thing\n\nCo-Authored-By: A <a@b.c>\nEOF\n)\"",
             "git log --oneline", "git status", "echo y >> f.txt",
             "git add -A && git commit -q -m \"$(cat <<'EOF'\nSecond\n\nBody line\nEOF\n)\"", "git status --short",
             "echo z >> f.txt", "git commit -qam third -m 'more about it'", "git log --oneline --graph",
             "git rev-parse HEAD", "git log -1", "git show --stat"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == {"git log -1", "git show --stat"}


def test_a_file_removed_and_another_added_is_no_rename_where_their_sizes_rule_it_out():
    """git never weighs two files as a rename where one is more than twice the other's size: such a
    commit, its `git show` (and `--name-only`, `--name-status`) are answered; a true rename's commit
    line and show (`rename new.txt => n2.txt (100%)`) are the model's."""
    lines = ["git config --global user.email a@b.c && git config --global user.name 'A B'", "git show --name-only",
             "echo x >> README.md && rm requirements.txt && echo n > new.txt && git add -A && git commit -qm two",
             "git show --name-only", "git show --name-status", "git show --stat", "git show", "git log --oneline",
             "mv new.txt n2.txt && git add -A", "git commit -m mv", "git log --oneline", "git show --stat",
             "echo 'pytest==8.3.3' > r2.txt && git rm -q README.md && git add r2.txt && git commit -m swap",
             "git show --name-status"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == {"git commit -m mv", "git show --stat"}  # (the second: of the rename)


def test_a_commit_the_state_could_not_follow_leaves_the_history_to_the_model():
    """A commit made by a line the model answered and the state could not follow (`git commit -F
    msg.txt`; before this round also `git add -A && git commit -m "$(cat <<'EOF'…"`, now followed)
    leaves the history unknown: `git log --oneline` was answered without the commit."""
    state = RULES.initial(load_world("devbox"))
    for command, output in [("echo x >> README.md && git add -A", ""), ("echo msg > /tmp/msg.txt", ""),
                            ("git -c user.name=a -c user.email=a@b.c commit -q -F /tmp/msg.txt", "")]:
        state = shell.apply(state, command, output, 0, state["cwd"])
    assert shell.answer(state, "git log --oneline") is None
    state = RULES.initial(load_world("devbox"))
    for command in ["git mv README.md GUIDE.md", "git config --global user.email a@b.c && git config --global "
                    "user.name 'A B'", "git add -A && git commit -m \"$(cat <<'EOF'\nRename\n\nBody\nEOF\n)\""]:
        state = shell.apply(state, command, "", 0, state["cwd"])  # (the last, as the model answered it)
    assert state["git"]["commits"][-1] == "Rename\n\nBody" and shell.answer(state, "git log --oneline") is None


def test_git_blame_of_a_file_as_the_first_commit_made_it_names_that_commit_on_every_line():
    """`git blame [-L A,B] [--] FILE`: each line `^60b5326 (user 2025-03-14 10:00:00 +0000 1)`, the line
    numbers as wide as the last shown, a range past the end cut at it; a name not in the last commit
    (untracked, or none), from the repository's top. After a second commit that did not touch the file,
    the same; a file changed since, or by it, is the model's (git's diff says whose each line is)."""
    lines = ["git blame src/notes.py", "git blame -- README.md", "git blame -L 2,3 README.md", "cd src",
             "git blame nope.py", "git blame notes.py", "cd ..", "git blame -L 1,9 README.md", "touch u.txt",
             "git blame u.txt", "git add u.txt", "git config --global user.email a@b.c && git config --global "
             "user.name 'A B'", "git commit -qm two", "git blame tests/test_notes.py"]
    seen = side_by_side(lines + ["echo x >> README.md", "git blame README.md", "git blame -- u.txt"])
    assert unanswered(seen, set(lines)) == set()
    assert [said for _, said, _ in seen[-2:]] == [None, None]  # (changed since; staged, committed by the second)


def test_git_diff_head_shows_a_file_taken_out_of_the_index_as_deleted():
    """`git rm --cached README.md` leaves the file in the working tree, untracked: `git diff HEAD`
    shows it deleted (HEAD has it, the index does not). The rules before answered `git diff HEAD` with
    nothing, confidently wrong (the fuzz's gitmodes set found it, seed 1701)."""
    lines = ["git rm -q --cached README.md", "git diff HEAD", "git diff HEAD --stat", "echo x >> README.md",
             "git diff HEAD --name-status", "git status --short"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


@pytest.mark.parametrize("last", ["echo 'pytest==8.3.3' > r2.txt && git rm -q README.md && git add r2.txt && "
                                  "git commit -m swap",
                                  "echo y >> README.md && git add -A && ls | head -1 && git commit -m seg"])
def test_a_commit_ending_a_line_is_followed_though_a_second_turned_before_it_was_applied(monkeypatch, last):
    """The state answers a line that ends with a commit at one second and follows what it printed at the
    next (a busy machine): the commit's id is the one "[main 1a2b3c4]" shows, found among the seconds
    before. Before, the line's output was not given to the commit where a command before it had a
    redirection or a pipe, its id became unknown, and `git show` after it was the model's (this test
    was flaky beside the sandbox: test_a_file_removed_and_another_added_is_no_rename…)."""
    state = RULES.initial(load_world("devbox"))
    for line in ["git config --global user.email a@b.c && git config --global user.name 'A B'",
                 "echo x >> README.md && git add -A && git commit -qm two", last]:
        monkeypatch.setattr(st, "clock", lambda: 1796684000.0)
        said = shell.answer(state, line) or silent(state, line)
        monkeypatch.setattr(st, "clock", lambda: 1796684001.0)
        state = shell.apply(state, line, said[0], said[1], state["cwd"])
    shown = said[0][said[0].index("[main ") + 6:][:7]
    assert state["git"]["head"].startswith(shown)
    assert shell.answer(state, "git show --name-status") is not None
