"""git and a file's x bit (rules/gitmodes.py): `chmod +x` of a file git tracks, `git add` of an
executable file, and the commits made of them, as git records them (100755). Against the real
bubblewrap sandbox: every answer the state gives must be the sandbox's byte for byte (commit ids
included), and the lines named here must be answered."""

from __future__ import annotations

import pytest

from mcp_world.executors.sandbox import bwrap_available

from .sandboxed import side_by_side, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")
GIT = "git -c user.name=a -c user.email=a@b"


def test_an_executable_file_is_staged_committed_and_diffed_as_100755():
    """A script made executable, staged and committed: `git diff --cached` says `new file mode 100755`,
    the commit says `create mode 100755 run.sh` and its id is git's (its tree holds 100755); `chmod +x`
    of a tracked file is ` M` with `old mode`/`new mode` in `git diff`, a `0` in `--stat`, and a
    `mode change 100644 => 100755` when committed; `git show` and `chmod -x` after it too, and a read
    left to the model between them (`git ls-tree`, which prints modes) changes nothing.
    Before, every git answer was the model's from the `git add` on (and the commit's id was not
    followed, so `git log` stayed the model's)."""
    lines = ["printf 'echo hi\\n' > run.sh", "chmod +x run.sh", "git add run.sh", "git status", "git diff --cached",
             "git diff --cached --stat", f"{GIT} commit -m 'add run'", "git log --oneline", "chmod +x README.md",
             "git status --short", "git diff", "git diff --stat", "git diff --numstat", "git diff --name-status",
             "echo more >> README.md", "git diff", f"{GIT} commit -am both", "git show --stat", "git show",
             "chmod -x run.sh", "git ls-tree HEAD", "git diff", "git diff --cached", "git status --short", "git log"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines) - {"git ls-tree HEAD"}) == set()  # (a read the state does not answer)
    real = {command: output for command, _, output in seen}
    assert "create mode 100755 run.sh" in real[f"{GIT} commit -m 'add run'"]
    assert "mode change 100644 => 100755 README.md" in real[f"{GIT} commit -am both"]


def test_a_commit_of_everything_and_a_removed_executable_file():
    """`chmod 755` of a new file in a new folder, `chmod g+x` (git looks at the user's x bit alone),
    `git add -A`, `commit -q` (its id made at the second git ran), `git diff HEAD~1`; a copy keeps the
    x bit; removing the file is `deleted file mode 100755` and `delete mode 100755` when committed."""
    lines = ["mkdir bin && printf '#!/bin/sh\\necho ok\\n' > bin/go && chmod 755 bin/go", "chmod g+x src/notes.py",
             "git status --short", "git add -A", "git status", f"{GIT} commit -qm tools", "git log --oneline",
             "git show --stat", "git show --name-status", "git diff HEAD~1", "cp bin/go bin/go2", "git add bin",
             "git diff --cached", f"{GIT} commit -m copy", "rm bin/go", "git status --short", "git diff",
             f"{GIT} commit -am rm", "git log -1 --oneline", "ls -l bin"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines) - {"ls -l bin"}) == set()


def test_checkout_reset_restore_rm_mv_and_stash_put_the_modes_back_as_git_does():
    """`git checkout -- f` after `chmod -x` makes it 755 again (`ls -l`); `git reset` lists a mode staged
    as `M`; `git rm` of a file whose mode changed is refused (the model's: the state does not say it
    worked), `--cached` takes it out; `git mv` keeps its mode in the index; `git restore` and `reset
    --hard`; `git stash` and `pop` of a change to an executable file, which keeps its mode.
    Before, each was the model's once a file was executable, and after any of them every mode the
    state held was a question, so `ls -l`, `cat` and the rest were the model's too."""
    lines = ["printf 'echo hi\\n' > run.sh && chmod +x run.sh", "git add run.sh", f"{GIT} commit -qm run",
             "chmod -x run.sh", "git status --short", "git checkout -- run.sh", "ls -l run.sh", "git status --short",
             "chmod 700 README.md", "git add README.md", "git status --short", "git reset", "git status --short",
             "git diff", "git checkout README.md", "ls -l", "chmod +x src/notes.py", "git rm -q src/notes.py",
             "git rm -q --cached src/notes.py", "git status", "git mv run.sh go.sh", "git status --short",
             f"{GIT} commit -qm mv", "chmod -x go.sh", "git restore go.sh", "ls -l go.sh", "git reset --hard",
             "echo x >> go.sh", "git stash", "ls -l", "git status --short", "git stash pop", "git diff", "ls -l"]
    seen = side_by_side(lines)
    said = {command: answer for command, answer, _ in seen}
    real = {command: output for command, _, output in seen}
    assert "local modifications" in real["git rm -q src/notes.py"] and said["git rm -q src/notes.py"] is None
    assert unanswered(seen, set(lines) - {"git rm -q src/notes.py", "git stash pop"}) == set()


def test_what_git_does_not_follow_through_the_modes_is_the_models():
    """A `git stash` while a file's mode is one git does not write (600) and another's is 100755 is the
    model's, and the modes and changes after it are questions until a commit of everything."""
    lines = ["printf 'echo hi\\n' > run.sh && chmod +x run.sh", "git add run.sh", f"{GIT} commit -qm run",
             "chmod 600 README.md", "echo x >> run.sh", "git stash", "git status --short", "ls -l",
             "chmod 644 README.md", "chmod 755 run.sh", "git add -A", f"{GIT} commit -qm again", "git status --short"]
    seen = side_by_side(lines)
    said = {command: answer for command, answer, _ in seen}
    assert said["git stash"] is None and said["git status --short"] is None and said["ls -l"] is None


def test_a_new_repositorys_first_commit_holds_an_executable_file():
    """In a world with no repository: `git init`, a script made executable beside a plain file, `git add
    -A`, a quiet first commit (its id: a root tree holding 100755), `git show` (`new file mode 100755`),
    `git log --stat`, then `chmod -x` of it."""
    lines = ["git init -q proj && cd proj", "printf 'x\\n' > go && chmod +x go && touch a.txt", "git add -A",
             "git status", f"{GIT} commit -qm init", "git show", "git log --stat", "chmod -x go",
             "git status --short", "git diff"]
    seen = side_by_side(lines, world="office")
    assert unanswered(seen, set(lines)) == set()
