"""Files a Python program writes (domains/terminal/rules/pyfiles.py), and a program fed by a here-document
(`python3 - <<'EOF'`), each beside the real bubblewrap sandbox (tests/sandboxed.py). Agents edit a
project with Python where sed is awkward (`s = open(p).read(); open(p, "w").write(s.replace(a, b))`);
before, each such run was the model's, and the state forgot every file the program named, so `cat`,
`ls`, `git status` and `git diff` after it were the model's too."""

from __future__ import annotations

import pytest

from mcp_world.executors.sandbox import bwrap_available

from .sandboxed import side_by_side, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")

PATCH = """python3 - <<'EOF'
p = 'src/notes.py'
s = open(p).read()
s = s.replace('return notes', 'return list(notes)')
with open(p, 'w') as f:
    f.write(s)
print('patched', p)
EOF"""


def test_a_one_liner_that_writes_and_what_is_read_after_it():
    lines = ["python3 -c \"open('README.md', 'a').write('more\\n')\"", "cat README.md",
             "python3 -c \"open('out.txt', 'w').write('x')\"", "ls", "cat out.txt", "git status --short",
             "python3 -c \"s = open('src/notes.py').read(); "
             "open('src/notes.py', 'w').write(s.replace('append', 'extend'))\"",
             "cat src/notes.py", "git diff --stat",
             "python3 -c \"f = open('w.txt', 'w'); print('a', 1, file=f); f.writelines(['b\\n', 'c\\n']); f.close()\"",
             "cat w.txt", "python3 -c \"open('w.txt', 'w').write('é'); print(open('README.md').read()[:2])\"",
             "wc -c w.txt"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    said = {c: s for c, s, _ in seen}
    assert said["git status --short"] == (" M README.md\n?? out.txt\n", 0)
    assert said["cat w.txt"] == ("a 1\nb\nc\n", 0)
    assert said["wc -c w.txt"] == ("2 w.txt\n", 0)  # (UTF-8, as the sandbox's Python writes it)


def test_a_script_that_writes_and_its_output_into_a_file():
    lines = ["printf 'with open(\"log.txt\", \"w\") as f:\\n    for i in range(3):\\n        print(i, file=f)\\n"
             "print(\"done\")\\n' > fix.py", "python3 fix.py", "cat log.txt", "python3 fix.py > run.txt", "cat run.txt",
             "ls", "git status --short"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[2][1] == ("0\n1\n2\n", 0)
    # (its arguments: sys.argv[1:], as given; before, a script given any was the model's)
    lines = ["printf 'import sys\\nprint(sys.argv)\\nif len(sys.argv) > 1:\\n"
             "    open(sys.argv[1], \"w\").write(\" \".join(sys.argv[2:]))\\n' > a.py",
             "python3 a.py", "python3 a.py out.txt x y", "cat out.txt", "python3 a.py -v", "python3 src/notes.py add x",
             "python3 nope.py a"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[2][1] == ("['a.py', 'out.txt', 'x', 'y']\n", 0) and seen[3][1] == ("x y", 0)


def test_a_program_fed_by_a_here_document():
    lines = ["python3 - <<'EOF'\ns = open('README.md').read()\nprint(s.count('notes'))\nEOF",
             "python3 <<'EOF'\nimport sys\nprint(1, sys.argv)\nEOF",
             "python3 - a b <<'EOF'\nimport sys\nprint(sys.argv)\nEOF", PATCH, "cat src/notes.py", "git diff --stat",
             "python3 - <<'EOF'\nimport src.notes as n\nprint(n.add([], 4))\nEOF", "ls src", "git status --short"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    said = {c: s for c, s, _ in seen}
    assert said[PATCH] == ("patched src/notes.py\n", 0)
    assert said["git status --short"] == (" M src/notes.py\n?? src/__pycache__/\n", 0)


def test_what_the_state_does_not_follow_of_a_writer_is_the_models():
    """A file read while it is written (what reached it depends on buffers), a file opened twice, an
    encoding other than UTF-8, a here-document the shell expands, git's own folder, a name too long for
    the file system, too many files. (A program that writes and then fails is followed since: its
    files hold what it wrote, flushed as Python exits, test_a_program_that_writes_and_then_fails.)"""
    lines = ["python3 -c \"f = open('b.txt', 'w'); f.write('1'); print(open('b.txt').read())\"",
             "python3 -c \"open('c.txt', 'w').write('1'); open('c.txt', 'a').write('2')\"",
             "python3 -c \"open('d.txt', 'w', encoding='latin-1').write('é')\"",
             "python3 - <<EOF\nprint('$HOME')\nEOF", "python3 -c \"open('.git/x', 'w').write('1')\"",
             "python3 -c \"open('a' * 300, 'w').write('x')\"", "python3 -c \"[open(str(i), 'w') for i in range(20)]\""]
    for line in lines:  # (each on a state that knows everything: a line before it does not hide it)
        assert side_by_side([line, "ls"])[0][1] is None, line


def test_a_program_that_may_make_again_what_was_removed():
    """A removed file or folder a program names may be there again after it: the state took them to be
    gone whatever ran (`cat` said "No such file" of a file python3 had just made again: the pywrites fuzz
    set, seed 1201, on the rules before and after Python's writes were followed)."""
    lines = ["rm -f src/notes.py", "python3 -c \"open('src/notes.py', 'a').write('x\\n')\"", "cat src/notes.py",
             "rm -rf tests", "python3 -c \"import os; os.makedirs('tests/a'); open('tests/a/b', 'w').write('1')\"",
             "cat tests/a/b", "ls tests", "rm -rf src", "python3 -c \"import os; os.mkdir('src')\"", "ls src"]
    seen = side_by_side(lines)
    assert seen[2][1] == ("x\n", 0)


def test_a_program_fed_that_fails_and_what_it_leaves():
    """Its traceback names `<stdin>` and follows what it printed (Python flushes stdout first for a program
    read from a file, stdin's too; `-c`'s comes after). One the walkers do not follow may have compiled what
    it imported: on the rules before, `ls src` and `git status` after it were confidently wrong (no
    `__pycache__`), as its `-` was taken for a script not there, which runs nothing."""
    failing = "python3 - <<'EOF'\nimport src.notes as m\nprint(m.add([], 2))\nm.nope()\nEOF"
    lines = ["python3 - <<'EOF'\nprint(1/0)\nEOF", "ls",
             "python3 - <<'EOF'\nprint('a')\nx = [1]\nprint(x[3])\nEOF",
             "python3 <<'EOF'\ndef f(n):\n    return 10 // n\nprint(f(2))\nprint(f(0))\nEOF",
             "python3 - x <<'EOF'\nimport sys\nprint(sys.argv)\nassert len(sys.argv) > 3, 'few'\nEOF", failing,
             "ls src", "git status --short"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == {failing, "ls src", "git status --short"}
    assert seen[3][1] == ("5\nTraceback (most recent call last):\n  File \"<stdin>\", line 4, in <module>\n"
                          "  File \"<stdin>\", line 2, in f\n"
                          "ZeroDivisionError: integer division or modulo by zero\n", 1)


def test_a_file_that_is_not_there_or_is_a_folder_is_pythons_error():
    """`open` of a file not there (or in a folder not there), to read or to write, is Python's
    FileNotFoundError, of a folder its IsADirectoryError, each naming the path as given: in one-liners,
    programs fed by a here-document and scripts (whose line and carets are shown). A program that reads a
    file it was not given is what agents most often get wrong; each was the model's."""
    lines = ["python3 -c \"print(open('nope.txt').read())\"", "python3 -c \"open('new/x.txt', 'w').write('x')\"",
             "python3 -c \"open('src').read()\"", "python3 -c \"open('src', 'w')\"",
             "python3 - <<'EOF'\np = 'new/x.txt'\ns = open(p).read()\nEOF",
             "python3 - <<'EOF'\nprint('a')\nwith open('d/y.txt') as f:\n    print(f.read())\nEOF",
             "printf 'import sys\\nprint(open(sys.argv[1]).read())\\n' > r.py", "python3 r.py nope",
             "python3 r.py src", "python3 r.py a/b/c", "ls"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[7][1] == ("Traceback (most recent call last):\n"
                          "  File \"/home/user/notes-app/r.py\", line 2, in <module>\n"
                          "    print(open(sys.argv[1]).read())\n          ^^^^^^^^^^^^^^^^^\n"
                          "FileNotFoundError: [Errno 2] No such file or directory: 'nope'\n", 1)


def test_open_of_a_path_through_a_file_or_a_name_not_there():
    """`open("README.md/x")` is Python's NotADirectoryError, `open("nope/../README.md")` its
    FileNotFoundError (the kernel does not pass `nope`): before, the second was read as README.md (the
    walkers normalized the path first), and `open("nope/../README.md", "w")` rewrote README.md in the
    state."""
    lines = ["python3 -c \"open('README.md/x')\"", "python3 -c \"open('README.md/../x')\"",
             "python3 -c \"open('src/notes.py/a/b', 'w')\"", "python3 -c \"print(open('nope/../README.md').read())\"",
             "python3 -c \"open('nope/../README.md', 'w').write('x')\"", "cat README.md",
             "python3 -c \"print(open('src/../README.md').read()[:5])\""]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[3][1][0].endswith("FileNotFoundError: [Errno 2] No such file or directory: 'nope/../README.md'\n")


def test_a_program_that_writes_and_then_fails():
    """Its traceback, and its files holding what it wrote before it failed: Python flushes a file's buffer
    as it closes it, at the end of a `with` block, or as the interpreter exits after the traceback.
    Before, each was the model's, and the state forgot the files the program named."""
    lines = ["python3 -c \"open('o.txt', 'w').write('x'); 1/0\"", "cat o.txt",
             "python3 -c \"f = open('o2.txt', 'w'); f.write('partial'); print('hi'); [][1]\"", "cat o2.txt",
             "python3 - <<'EOF'\nwith open('o3.txt', 'w') as f:\n    f.write('a\\n')\n    f.write(str(1/0))\nEOF",
             "cat o3.txt", "printf 'f = open(\"o4.txt\", \"a\")\\nprint(\"x\", file=f)\\nimport sys\\n"
             "print(sys.argv[5])\\n' > s.py", "python3 s.py", "cat o4.txt", "ls", "git status --short"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert [s for c, s, _ in seen if c.startswith("cat")] == [("x", 0), ("partial", 0), ("a\n", 0), ("x\n", 0)]
