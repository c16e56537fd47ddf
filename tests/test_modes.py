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
    """`chmod +x run.sh`, `chmod 600`, `u+x,g-r`, `-x`, `go=` on a folder, `-R 700`, `-R go+rX`, `o+t`,
    `u+s`, `g=u`, `-R 700 .` (the repository's .git too): each prints nothing and `ls -l` shows the mode
    (`s`, `t`); `cp` makes a file with its source's mode less the umask and the set-id bits, `cp -p` and
    `mv` keep it.
    Before, any chmod made the state forget every listing and every file's content."""
    lines = ["echo x > run.sh", "chmod +x run.sh", "ls -l", "chmod 600 README.md", "chmod u+x,g-r src/notes.py",
             "ls -l src", "cp run.sh r2.sh && ls -l", "mv r2.sh r3.sh", "cp -p r3.sh r4.sh", "ls -l",
             "chmod -x run.sh", "chmod +w README.md", "chmod 755 src", "chmod go= src", "chmod 644 src/notes.py",
             "cat src/notes.py", "chmod 700 tests && ls -l", "mkdir -p d/e && touch d/e/f d/g", "chmod -R 700 d",
             "ls -l d", "chmod -R go+rX d", "ls -l d d/e", "ls -l d", "chmod o+t d", "chmod u+s d/g && ls -l d",
             "cp d/g h && cp -p d/g h2", "ls -l h", "ls -l h2", "chmod g=u,o-rwx d/e/f", "ls -l d/e",
             "chmod -R 700 .", "ls -la", "chmod -R 755 src", "ls -l"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    listed: dict[str, str] = {}
    for command, _, real in seen:
        listed.setdefault(command, real)  # (the first `ls -l`)
    assert "-rwxr-xr-x 1 user user  2" in listed["ls -l"]
    assert "drwx------ 2 user user 60" in listed["chmod 700 tests && ls -l"]


@needs_bwrap
def test_while_a_mode_refuses_the_user_nothing_is_answered_until_chmod_gives_it_back():
    """`chmod a=r f` then `echo x > f`; `chmod 000 src` then `touch src/x`, `cat src/notes.py`: the
    sandbox says "Permission denied", and the state answered them as done (four wrong answers, all
    confident). Now nothing is answered while such a mode is held, and what each line may have
    written is forgotten; a chmod that gives the rights back is followed, and the state answers
    again. Here git's answers stay the model's: the state forgot what the lines may have written while
    the modes were held (tests/test_git_modes.py follows git through the x bit)."""
    seen = side_by_side(["chmod -v 644 README.md", "chmod +x README.md nope", "ls -l README.md",
                         "chmod a=r README.md", "echo x > README.md", "echo y >> README.md", "chmod 644 README.md",
                         "cat README.md", "chmod 000 src", "ls src", "touch src/x", "cat src/notes.py",
                         "mkdir src/y", "chmod 755 src", "pwd", "chmod +x src/notes.py", "git status --short",
                         "git diff", "chmod -x src/notes.py", "chmod -R 600 tests", "chmod 000 . README.md"])
    said = {command: answer for command, answer, _ in seen}
    real = {command: output for command, _, output in seen}
    assert "Permission denied" in real["echo x > README.md"] and "Permission denied" in real["touch src/x"]
    assert [said[c] for c in ("echo x > README.md", "echo y >> README.md", "ls src", "touch src/x",
                              "cat src/notes.py", "mkdir src/y")] == [None] * 6
    assert said["chmod a=r README.md"] == ("", 0) and said["pwd"] is not None and said["cat README.md"] is None
    assert "old mode 100644" in real["git diff"] and said["git diff"] is None and seen[16][1] is None
    assert said["ls -l README.md"] is not None  # (`-v` and a failed chmod: what they changed, followed)
    # (chmod cannot go into tests once it is 600, nor reach README.md once `.` is 000: the fuzz found the
    # second answered as done)
    assert "Permission denied" in real["chmod -R 600 tests"] + real["chmod 000 . README.md"]
    assert said["chmod -R 600 tests"] is None and said["chmod 000 . README.md"] is None


def test_the_modes_chmod_makes_are_gnu_chmods_on_random_modes(tmp_path):
    """1,000 random modes (octal of one to five digits; symbolic: `ugoa`, `+-=`, `rwxXst` and the
    copies `g=u`, several clauses, none of who given, where the umask's bits are left alone) on
    random starting modes with set-id and sticky bits, on a file and on a folder, each beside GNU
    chmod on this machine's test folder (umask 022, as the sandbox's); a mode chmod refuses is None."""
    rng = random.Random(7)
    targets = {False: tmp_path / "f", True: tmp_path / "d"}
    targets[False].write_text("x")
    targets[True].mkdir()

    def clause() -> str:
        who = "".join(rng.sample("ugoa", rng.randint(0, 2)))
        return who + "".join(rng.choice("+-=") + (rng.choice("ugo") if rng.random() < 0.15 else
                                                   "".join(rng.sample("rwxXst", rng.randint(0, 3))))
                             for _ in range(rng.randint(1, 2)))

    specs = [format(rng.randrange(0o10000), "o").zfill(rng.randint(1, 5)) if rng.random() < 0.25 else
             ",".join(clause() for _ in range(rng.randint(1, 2))) for _ in range(1000)]
    for n, spec in enumerate(specs):
        folder = n % 2 == 1
        start = rng.randrange(0o10000)
        os.chmod(targets[folder], start)
        done = subprocess.run(["bash", "-c", 'umask 022; chmod -- "$0" "$1"', spec, str(targets[folder])],
                              capture_output=True)
        real = os.stat(targets[folder]).st_mode & 0o7777 if done.returncode == 0 else None
        assert modes.changed(spec, start, folder) == real, (spec, oct(start), folder, done.stderr)
    for bad in ["999", "u+q", "g=uo", "", "+rwq", "a=", "=", "u=g+x"]:
        done = subprocess.run(["bash", "-c", 'umask 022; chmod -- "$0" "$1"', bad, str(targets[False])],
                              capture_output=True)
        assert (modes.changed(bad, 0o644) is None) == (done.returncode != 0), bad
