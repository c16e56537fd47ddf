"""A command's own environment (domains/terminal/rules/envprefix.py): `PAGER=cat git log`, `env A=1 cmd`,
`PYTHONPATH=src python3 …`, and Python's output into a file, each beside the real bubblewrap sandbox
(tests/sandboxed.py). Before, every line that began with an assignment was the model's, and the state
forgot every file a program on it might have written: a `python3` run left the project to the model."""

from __future__ import annotations

import pytest

from mcp_world.executors.sandbox import bwrap_available

from .sandboxed import RULES, shell, side_by_side, silent, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")

envprefix = __import__(type(RULES).__module__ + ".envprefix", fromlist=["x"])


def test_a_prefix_is_the_commands_environment_and_the_shells_variables_stay():
    lines = ["PAGER=cat git log --oneline | head -3", "GIT_PAGER=cat git status -s", "FOO=bar echo hi",
             "env A=1 B='two words' cat requirements.txt", "NO_COLOR=1 ls", "X=1", "X=2 true; echo $X",
             "CI=1 touch ci.txt", "ls", "A=1 ls > out.txt", "cat out.txt", "A=1 mkdir -p d/e && ls d",
             "LANG=C ls nope", "CDPATH=/ ls src", "FOO=1 BAR=\"a b\" ls src", "TERM=xterm git status -s"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    said = {c: s for c, s, _ in seen}
    assert said["X=2 true; echo $X"] == ("1\n", 0)  # (the shell's X is the one it set before)
    assert said["ls"] == ("README.md\nci.txt\nrequirements.txt\nsrc\ntests\n", 0)


def test_pythonpath_finds_the_projects_modules_and_they_compile_beside_them():
    lines = ["PYTHONDONTWRITEBYTECODE=1 python3 -c 'import src.notes'", "ls src",
             "PYTHONPATH=src python3 -c \"import notes; print(notes.add([], 1))\"", "ls src", "git status -s",
             "PYTHONPATH=src:tests python3 -c 'import test_notes'",
             "PYTHONPATH=. python3 -c 'import src.notes as n; print(n.add([], 0))'", "ls src/__pycache__",
             "export PYTHONPATH=src", "python3 -c 'import notes; print(notes.add([1], 2))'", "unset PYTHONPATH",
             "rm -r tests/__pycache__", "export PYTHONDONTWRITEBYTECODE=1",
             "python3 -c 'import tests.test_notes; print(2)'", "ls tests"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[1][1] == ("notes.py\n", 0)  # (PYTHONDONTWRITEBYTECODE: nothing compiled)
    assert seen[3][1] == ("__pycache__\nnotes.py\n", 0)
    assert seen[4][1] == ("?? src/__pycache__/\n", 0)
    assert seen[-1][1] == ("test_notes.py\n", 0)


def test_python_into_a_file_writes_what_it_prints():
    lines = ["python3 -c 'print(9)' > o1.txt", "cat o1.txt",
             "cd src && python3 -c 'import notes; print(notes.add([], 1))' > ../o2.txt", "cd ..", "cat o2.txt",
             "PYTHONPATH=src python3 -c 'import notes; print(notes.add([], 9))' >> o2.txt; cat o2.txt",
             "ls", "git status -s"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[5][1] == ("[1]\n[9]\n", 0)


def test_what_a_prefix_changes_that_the_state_does_not_follow_is_the_models():
    """The old value where the line reads the variable, a program whose output the variable changes and
    the rules do not read it for (PYTHONUNBUFFERED: the traceback after what was printed), HOME and PWD,
    a builtin that keeps it, a list (its first command's alone, met there), `env -i`."""
    for line in ["X=1 echo $X", "PYTHONUNBUFFERED=1 python3 -c 'print(1); 1/0'", "HOME=/tmp ls ~", "PWD=/ pwd",
                 "X=1 export Y=2", "env -i ls", "A=$(pwd) ls", "A=~ ls", "X=1 Y=$X ls", "F() { ls; }; X=1 F",
                 "PYTHONSTARTUP=x python3 -c 'print(3)'", "A=1 cat README.md | head -2"]:
        state = RULES.initial(__import__("mcp_world.world", fromlist=["x"]).load_world("devbox"))
        prefixed = envprefix.split(state, line)
        said = shell.answer(state, line) or silent(state, line)
        assert said is None or prefixed is None, line
    # (exported, PYTHONUNBUFFERED was answered as if not set: the traceback first, where Python prints it last)
    seen = side_by_side(["export PYTHONUNBUFFERED=1", "python3 -c 'print(1); 1/0'", "PYTHONHASHSEED=0 python3 -V"])
    assert seen[1][1] is None
    state = RULES.initial(__import__("mcp_world.world", fromlist=["x"]).load_world("devbox"))
    assert envprefix.split(state, "X=1 Y='a b' ls -la") == ({"X": "1", "Y": "a b"}, "ls -la")
    assert envprefix.split(state, "X=1 && ls") is None
    after = shell.apply({**state, "vars": {"X": "0"}}, "X=5 touch x", "", 0, state["cwd"])
    assert after["vars"] == {"X": "0"} and "X" not in after["env"]
    # (a list the model answered: each command followed as its words say, the prefix its program's alone)
    after = shell.apply(state, "X=5 touch y && ls nope", "what the model said\n", 0, state["cwd"])
    assert state["cwd"] + "/y" in after["files"] and "X" not in after["env"] and "X" not in after["vars"]
    assert state["cwd"] in after["known_dirs"]
