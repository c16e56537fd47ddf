"""Python's own ways agents meet every day, beside the real bubblewrap sandbox (tests/sandboxed.py):
code that does not compile (domains/terminal/rules/pysyntax.py) as a one-liner, a script, a program fed
by a here-document and `python3 -m py_compile`; `python3 -m json.tool` (pyjson.py); and `os.environ` /
`os.getenv` (pyenviron.py). Agents break code all the time (a missing colon, a bracket never closed, a
bad indent), pretty-print JSON and read a variable they set; before, each such run was the model's,
and the state then forgot what the program might have written, so `ls` and `git status` after it
were the model's too. benchmarks/pysyntax_vs_python.py checks the drawing (carets, tabs, multi-line
strings) on thousands of broken programs."""

from __future__ import annotations

import pytest

from mcp_world.executors.sandbox import bwrap_available

from .sandboxed import RULES, side_by_side, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")
rules = __import__(type(RULES).__module__.rsplit(".", 1)[0] + ".pysyntax", fromlist=["x"])
shell = __import__(type(RULES).__module__.rsplit(".", 1)[0] + ".shell", fromlist=["x"])


def test_broken_programs_are_answered_and_nothing_of_them_ran():
    lines = ['python3 -c "def f(:"', "python3 -c 'return 1'", "python3 -c 'x = (1,\n2'",
             "printf 'def f(:\\n    pass\\n' > bad.py", "python3 bad.py", "python3 ./bad.py arg",
             "printf 'if True:\\n  x = 1\\n y = 2\\n' > ind.py", "python3 ind.py",
             "printf 'def f():\\nreturn 1\\n' > noind.py", "python3 noind.py",
             "python3 - <<'EOF'\nfor i in range(3)\n    print(i)\nEOF",
             "python3 <<'EOF'\nprint('a')\nprint('b'\nEOF",
             "printf 'text = \"\"\"never\\nclosed\\n' > tq.py", "python3 tq.py",
             "ls", "git status --short"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    said = {c: s for c, s, _ in seen}
    assert said['python3 -c "def f(:"'] == (
        '  File "<string>", line 1\n    def f(:\n          ^\nSyntaxError: invalid syntax\n', 1)
    assert said["python3 ind.py"] == ('  File "/home/user/notes-app/ind.py", line 3\n    y = 2\n         ^\n'
                                      "IndentationError: unindent does not match any outer indentation level\n", 1)
    assert said["ls"][0].split() == ["README.md", "bad.py", "ind.py", "noind.py", "requirements.txt", "src", "tests",
                                     "tq.py"]  # (nothing compiled, nothing written)


def test_a_module_that_does_not_compile_fails_its_import():
    """The traceback runs through the import (the importer's frame, then the module's file and line,
    drawn as Python draws a syntax error); nothing of the module ran and nothing of it is compiled, what
    was imported before it is; `except SyntaxError` catches it."""
    lines = ["printf 'def f(:\\n' > bad.py", "python3 -c 'import bad'", "python3 -c 'from src import notes; import bad'",
             "ls src", "printf 'import bad\\n' > run.py", "python3 run.py",
             "printf 'try:\\n    import bad\\nexcept SyntaxError as e:\\n    print(\"no:\", e)\\n' > t.py",
             "python3 t.py", "printf 'import src.notes\\nx = (\\n' > src/b2.py", "python3 -c 'import src.b2'",
             "printf 'def g():\\n  return 1\\n    x\\n' > ind.py", "python3 -c 'import ind'", "git status --short"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    said = {c: s for c, s, _ in seen}
    assert said["python3 t.py"] == ("no: invalid syntax (bad.py, line 1)\n", 0)
    assert said["git status --short"][0].split("\n")[:3] == ["?? bad.py", "?? ind.py", "?? run.py"]


def test_py_compile_stops_at_the_first_file_it_cannot_compile():
    lines = ["printf 'def f(:\\n' > bad.py", "printf 'if 1:\\n  x\\n y\\n' > ind.py",
             "python3 -m py_compile src/notes.py bad.py tests/test_notes.py", "ls src tests", "git status --short",
             "python3 -m py_compile ind.py", "python3 -m py_compile -q bad.py", "python3 -m py_compile nope.py",
             "python3 -m py_compile src", "python3 -m py_compile bad.py && echo ok || echo failed",
             "printf 'x = \"\\\\d\"\\n' > w.py", "python3 -m py_compile w.py", "ls __pycache__"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    said = {c: s for c, s, _ in seen}
    assert said["python3 -m py_compile ind.py"] == (
        "Sorry: IndentationError: unindent does not match any outer indentation level (ind.py, line 3)", 1)
    assert said["git status --short"] == ("?? bad.py\n?? ind.py\n?? src/__pycache__/\n", 0)  # (not tests/')
    assert said["python3 -m py_compile nope.py"] == ("[Errno 2] No such file or directory: 'nope.py'", 1)


def test_what_is_left_to_the_model():
    """A warning on the way (Python may print it first), and an encoding declaration or a carriage
    return (Python reads the bytes its own way)."""
    s = RULES.initial(__import__("mcp_world.world", fromlist=["x"]).load_world("devbox"))
    assert shell.answer(s, "python3 -c 'x = \"\\d\" +'") is None
    assert rules.error("# -*- coding: latin-1 -*-\ndef f(:\n", "/x.py") is None
    assert rules.error("def f(:\r\n", "/x.py") is None
    assert rules.error("x = 1\n", "<string>") is None  # (it compiles)


def test_no_line_of_the_hosts_own_is_ever_quoted(tmp_path, monkeypatch):
    """Python quotes an error's line from the file the error names, where that file is there: the
    state compiles under a name no file can have, and quotes the world's file (the host's disk is never
    read, even where a file of the same path is there)."""
    host = tmp_path / "same.py"
    host.write_text("SECRET = 'host'\n" * 3)
    said = rules.error("x = 1\n*y = 2\nz = 3\n", str(host))
    assert said == f'  File "{host}", line 2\n    *y = 2\n    ^^\n' \
                   "SyntaxError: starred assignment target must be in a list or tuple\n" and "SECRET" not in said


def test_json_tool_on_files_and_pipes():
    lines = ["echo '{\"b\": [1, 2.5, null, true], \"a\": \"\u00e9\", \"c\": {}}' > d.json",
             "python3 -m json.tool d.json", "cat d.json | python3 -m json.tool", "python3 -m json.tool < d.json",
             "python3 -m json.tool --sort-keys --indent 2 d.json",
             "python3 -m json.tool --compact --no-ensure-ascii d.json",
             "python3 -m json.tool --tab d.json | head -3", "python3 -m json.tool --no-indent d.json",
             "python3 -m json.tool README.md", "echo '[1, 2' | python3 -m json.tool",
             "printf '' | python3 -m json.tool",
             "echo '\"x\" 1' | python3 -m json.tool",
             "echo '{\"a\": NaN, \"a\": 1e400}' | python3 -m json.tool",
             "python3 -m json.tool d.json | wc -l", "python3 -m json.tool d.json > p.json", "cat p.json",
             "python3 -m json.tool README.md | wc -l", "cat README.md | python3 -m json.tool | sort",
             "python3 -m json.tool nope.json", "python3 -m json.tool --sort-keys src", "git status --short"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    said = {c: s for c, s, _ in seen}
    assert said["python3 -m json.tool README.md"] == ("Expecting value: line 1 column 1 (char 0)\n", 1)
    assert said["python3 -m json.tool --sort-keys --indent 2 d.json"][0].startswith('{\n  "a": "\\u00e9",\n  "b"')
    assert said["git status --short"] == ("?? d.json\n?? p.json\n", 0)  # (json.tool wrote nothing else)


def test_json_tool_left_to_the_model():
    """Where argparse's refusal goes to the terminal while a pipe goes on, an output file, an option
    abbreviated (argparse's ways), `--json-lines`, and a `json.py` in the folder (it would be run)."""
    s = RULES.initial(__import__("mcp_world.world", fromlist=["x"]).load_world("devbox"))
    s = shell.apply(s, "echo '[1]' > d.json", "", 0, s["cwd"])
    assert shell.answer(s, "python3 -m json.tool d.json") == ("[\n    1\n]\n", 0)
    for line in ["python3 -m json.tool nope.json | head -2", "python3 -m json.tool d.json out.json",
                 "python3 -m json.tool --sort d.json", "python3 -m json.tool --json-lines d.json"]:
        assert shell.answer(s, line) is None, line
    assert shell.answer(shell.apply(s, "touch json.py", "", 0, s["cwd"]), "python3 -m json.tool d.json") is None


def test_a_program_reads_the_variables_the_episode_set():
    lines = ["export CI=1", "python3 -c 'import os; print(os.environ[\"CI\"])'",
             "python3 -c 'import os; print(os.getenv(\"CI\"), os.getenv(\"NOPE\"), os.getenv(\"NOPE\", \"d\"))'",
             "X=2 python3 -c 'import os; print(os.environ.get(\"X\", 0), \"X\" in os.environ, "
             "\"Y\" not in os.environ)'",
             "python3 -c 'import os; print(os.environ.get(\"HOME\"), os.environ[\"PATH\"])'",
             "python3 -c 'from os import environ; print(environ.get(\"CI\"))'", "unset CI",
             "printf 'import os\\nprint(os.environ.get(\"CI\", \"no\"))\\n' > e.py", "python3 e.py",
             "CI= python3 e.py", "V=3; python3 e.py"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[3][1] == ("2 True True\n", 0) and seen[8][1] == ("no\n", 0)
    s = RULES.initial(__import__("mcp_world.world", fromlist=["x"]).load_world("devbox"))
    for line in ["python3 -c 'import os; print(os.environ[\"NOPE\"])'",  # (a traceback through os.py's frames)
                 "python3 -c 'import os; print(os.environ.get(\"SHLVL\"))'",  # (bash's own: not followed)
                 "LANG=C python3 -c 'import os; print(os.environ.get(\"LC_CTYPE\"))'",  # (Python may set it)
                 "python3 -c 'import os; print(len(os.environ))'"]:
        assert shell.answer(s, line) is None, line


def test_a_module_of_the_project_run_with_dash_m():
    """`python3 -m src.notes add "buy milk"` (the devbox world's README says so): the packages above it
    imported, it run as `__main__` with its package (a relative import works) and its full path as
    `sys.argv[0]`, and each compiled into `__pycache__` (runpy caches the module it runs, as an import
    does). An error's traceback (through runpy's frozen frames), a package's `__main__` and a module
    not in the project are the model's."""
    lines = ['python3 -m src.notes add "buy milk"', "ls src", "git status --short",
             "printf 'import sys\\nfrom .notes import add\\nif __name__ == \"__main__\":\\n"
             "    print(add([], sys.argv[1:]), sys.argv[0], __package__)\\n' > src/cli.py",
             "python3 -m src.cli a b", "ls src/__pycache__", "touch src/__init__.py", "python3 -m src.cli x",
             "ls src/__pycache__"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[4][1] == ("[['a', 'b']] /home/user/notes-app/src/cli.py src\n", 0)
    s = RULES.initial(__import__("mcp_world.world", fromlist=["x"]).load_world("devbox"))
    s = shell.apply(s, "printf 'print(1 / 0)\\n' > boom.py", "", 0, s["cwd"])
    for line in ["python3 -m boom", "python3 -m src", "python3 -m nope", "python3 -m pytest -q"]:
        assert shell.answer(s, line) is None, line


def test_a_one_liner_reads_json():
    """`json.load(open(F))` and `json.loads(TEXT)` in a one-liner: the values Python's json makes (this
    Python's, the world's version), walked as any other. Text that is not JSON raises inside json.py,
    whose traceback shows the machine's own files and lines: the model's."""
    lines = ["echo '{\"a\": [1, 2], \"b\": \"x\", \"c\": 1.5e3, \"d\": null}' > d.json",
             "python3 -c \"import json; print(json.load(open('d.json'))['a'])\"",
             "python3 -c \"import json; d = json.loads(open('d.json').read()); print(len(d), sorted(d), d)\"",
             "python3 -c \"import json; print(json.dumps(json.load(open('d.json')), indent=2))\"",
             "python3 -c \"from json import load; print(load(open('d.json')).get('z', 'none'))\""]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[2][1] == ("4 ['a', 'b', 'c', 'd'] {'a': [1, 2], 'b': 'x', 'c': 1500.0, 'd': None}\n", 0)
    s = RULES.initial(__import__("mcp_world.world", fromlist=["x"]).load_world("devbox"))
    assert shell.answer(s, "python3 -c \"import json; json.load(open('README.md'))\"") is None
