"""Shell scripts in the terminal's state, against the real bubblewrap sandbox (rules/scripts.py): a file
the shell runs in a child bash (`bash f.sh`, `./f.sh`, `sh f.sh`), code given to one (`bash -c`), a file
it sources. Every answer the state gives must be the sandbox's byte for byte, and the lines named here
must be answered."""

from __future__ import annotations

import pytest

from mcp_world.executors.sandbox import bwrap_available

from .sandboxed import RULES, shell, side_by_side, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")


def test_a_script_an_agent_writes_and_runs_is_run_as_bash_runs_it():
    """Written, made executable and run (`./build.sh`), run by bash or sh: what it prints, the files
    it writes (listed and read after it), its folder its own (`pwd` after it is where the shell was).
    Before, each run was the model's, and the state then forgot every file: `ls` after it was too."""
    lines = ["printf '#!/bin/bash\\necho building\\nmkdir -p build\\necho ok > build/out.txt\\nls build\\n' > build.sh",
             "chmod +x build.sh", "./build.sh", "ls", "cat build/out.txt", "bash build.sh", "sh build.sh",
             "printf 'cd src\\npwd\\nls\\n' > in.sh", "bash in.sh", "pwd", "ls src",
             "printf '#!/bin/sh\\n# counts\\nwc -l README.md\\ngrep -c def src/notes.py\\n' > count.sh",
             "chmod 755 count.sh", "./count.sh", "bash ./count.sh && echo done"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_a_child_bash_has_the_exported_variables_alone_and_its_status_is_the_scripts():
    """`bash -c` sees what the shell exported, not its own variables; a script's status is its last
    command's, or its `exit`'s; under `set -e` it stops at the first command that fails."""
    lines = ["X=1; export Y=2", "bash -c 'echo \"[$X][$Y]\"'", "bash -c 'cd src && ls'", "pwd",
             "printf 'echo a\\nexit 3\\n' > x.sh", "bash x.sh", "echo $?", "bash x.sh || echo failed",
             "printf '#!/bin/bash\\nset -e\\necho one\\ncat nope\\necho two\\n' > e.sh", "bash e.sh; echo $?",
             "cat > u.sh <<'EOF'\nset -euo pipefail\nV=3\necho $V\nEOF", "bash u.sh", "bash -c 'Z=5'; echo \"[$Z]\"",
             "sh -c 'echo hi; ls src'", "git status --short"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines) - {"X=1; export Y=2"}) == set()


def test_a_sourced_file_sets_the_shells_own_variables():
    """`source ./env.sh` (and `.`) runs the file in the shell: its variables are the shell's after
    it, exported or not, and what it writes is followed; also where a list wrote it first."""
    lines = ["printf 'NAME=notes\\nexport MODE=dev\\necho loaded > env.log\\n' > env.sh", "source ./env.sh",
             "echo $NAME $MODE", "printenv MODE", "printenv NAME; echo $?", "cat env.log", "ls",
             "printf 'NAME=other\\n' > .env", ". .env", "echo $NAME", "bash -c 'echo \"[$NAME][$MODE]\"'",
             "printf 'PORT=8000\\n' > p.env && source ./p.env", "echo $PORT"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_a_script_reads_the_words_it_was_run_with():
    """`bash run.sh src x` and `./mk.sh build`: `$1`…`$9` (one not given is unset), `${1:-.}` and `$#`
    are the words after the script's name. Before, any script that read its arguments was the model's."""
    lines = ["printf 'echo \"got $# : $1 $2\"\\nls ${1:-.}\\n[ -z \"$3\" ] && echo no3\\n' > run.sh",
             "bash run.sh src x", "bash run.sh", "bash run.sh tests",
             "printf '#!/bin/bash\\nset -e\\nmkdir -p \"$1\"\\necho ok > $1/out.txt\\necho made $1\\n' > mk.sh",
             "chmod +x mk.sh", "./mk.sh build", "ls build", "cat build/out.txt", "bash mk.sh a b", "ls a",
             "printf 'echo $10 ${10} $1x $2\\ntouch $10.txt\\n' > ten.sh", "bash ten.sh p q", "ls"]  # ($10: ${1}0)
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_what_a_script_may_do_otherwise_is_left_to_the_model():
    """Not executable ("Permission denied"), no `#!` (bash runs it its own way), arguments read at once, an
    `exit` in the middle, a sourced file that changes folder, bash's own message (it names the script
    and line), a file not known: the model's. After it, what it may have written is not known."""
    s = RULES.initial(__import__("mcp_world.world", fromlist=["x"]).load_world("devbox"))
    s = shell.apply(s, "printf 'echo $@\\n' > a.sh", "", 0, s["cwd"])
    s = shell.apply(s, "printf 'echo hi\\n' > p.sh", "", 0, s["cwd"])
    s = shell.apply(s, "printf 'cd src\\n' > c.sh", "", 0, s["cwd"])
    s = shell.apply(s, "printf 'nope-x\\necho after\\n' > n.sh", "", 0, s["cwd"])
    s = shell.apply(s, "printf 'if true; then exit 2; fi\\necho x\\n' > m.sh", "", 0, s["cwd"])
    s = shell.apply(s, "printf 'set -u\\necho $2\\n' > u.sh", "", 0, s["cwd"])
    s = shell.apply(s, "printf 'set -u\\necho ${#NOPE}\\n' > n2.sh", "", 0, s["cwd"])  # (bash: "unbound variable")
    for line in ["./p.sh", "chmod +x p.sh && ./p.sh", "bash a.sh x", "bash u.sh a", "bash n2.sh", "echo $1 $#",
                 "source c.sh", "bash n.sh", "bash m.sh", "bash nope.sh", "bash -c \"echo $HOME\""]:
        assert shell.answer(s, line) is None, line
