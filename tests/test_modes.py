"""File modes in the terminal's state (modes.py): `chmod` answered and followed, `ls -l` showing
what it set, and the state answering nothing while a mode takes from the user a right the rules
take it has. Against the real bubblewrap sandbox, and the mode arithmetic against GNU chmod."""

from __future__ import annotations

import os
import random
import subprocess

import pytest

from mcp_world.executors.sandbox import bwrap_available

from .sandboxed import shell, side_by_side, unanswered

modes = __import__(shell.__name__.rsplit(".", 1)[0] + ".modes", fromlist=["x"])
needs_bwrap = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")


@needs_bwrap
def test_chmod_is_answered_and_ls_l_shows_what_it_set():
    """`chmod +x run.sh`, `chmod 600`, `u+x,g-r`, `-x`, `go=` on a folder: each prints nothing and
    `ls -l` shows the mode; `cp` makes a file with its source's mode, `cp -p` and `mv` keep it.
    Before, any chmod made the state forget every listing and every file's content."""
    lines = ["echo x > run.sh", "chmod +x run.sh", "ls -l", "chmod 600 README.md", "chmod u+x,g-r src/notes.py",
             "ls -l src", "cp run.sh r2.sh && ls -l", "mv r2.sh r3.sh", "cp -p r3.sh r4.sh", "ls -l",
             "chmod -x run.sh", "chmod +w README.md", "chmod 755 src", "chmod go= src", "chmod 644 src/notes.py",
             "cat src/notes.py", "chmod 700 tests && ls -l"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    listed = {command: real for command, _, real in seen}
    assert "-rwxr-xr-x 1 user user  2" in listed["ls -l"]
    assert "drwx------ 2 user user 60" in listed["chmod 700 tests && ls -l"]


@needs_bwrap
def test_while_a_mode_refuses_the_user_nothing_is_answered_until_chmod_gives_it_back():
    """`chmod a=r f` then `echo x > f`; `chmod 000 src` then `touch src/x`, `cat src/notes.py`: the
    sandbox says "Permission denied", and the state answered them as done (four wrong answers, all
    confident). Now nothing is answered while such a mode is held, and what each line may have
    written is forgotten; a chmod that gives the rights back is followed, and the state answers
    again. git's answers are the model's while a file of the repository is executable (git records
    mode 100755)."""
    seen = side_by_side(["chmod a=r README.md", "echo x > README.md", "echo y >> README.md", "chmod 644 README.md",
                         "cat README.md", "chmod 000 src", "ls src", "touch src/x", "cat src/notes.py", "mkdir src/y",
                         "chmod 755 src", "pwd", "chmod +x src/notes.py", "git status --short", "git diff",
                         "chmod -x src/notes.py"])
    said = {command: answer for command, answer, _ in seen}
    real = {command: output for command, _, output in seen}
    assert "Permission denied" in real["echo x > README.md"] and "Permission denied" in real["touch src/x"]
    assert [said[c] for c in ("echo x > README.md", "echo y >> README.md", "ls src", "touch src/x",
                              "cat src/notes.py", "mkdir src/y")] == [None] * 6
    assert said["chmod a=r README.md"] == ("", 0) and said["pwd"] is not None and said["cat README.md"] is None
    assert "old mode 100644" in real["git diff"] and said["git diff"] is None and seen[13][1] is None


def test_the_modes_chmod_makes_are_gnu_chmods_on_random_modes(tmp_path):
    """500 random modes (octal, and symbolic: `ugoa`, `+-=`, `rwx`, several clauses, none of who
    given, where the umask's bits are left alone) on random starting modes, each beside GNU chmod
    on a file of this machine's test folder (umask 022, as the sandbox's)."""
    rng = random.Random(7)
    target = tmp_path / "f"
    target.write_text("x")

    def clause() -> str:
        who = "".join(rng.sample("ugoa", rng.randint(0, 2)))
        return who + "".join(rng.choice("+-=") + "".join(rng.sample("rwx", rng.randint(0, 3)))
                             for _ in range(rng.randint(1, 2)))

    specs = [format(rng.randrange(0o1000), "o") if rng.random() < 0.2 else
             ",".join(clause() for _ in range(rng.randint(1, 2))) for _ in range(500)]
    for spec in specs:
        start = rng.randrange(0o1000)
        os.chmod(target, start)
        done = subprocess.run(["bash", "-c", 'umask 022; chmod -- "$0" "$1"', spec, str(target)], capture_output=True)
        assert done.returncode == 0, (spec, done.stderr)
        assert modes.changed(spec, start) == os.stat(target).st_mode & 0o7777, (spec, oct(start))
