"""Brace expansion in the terminal's state (braces.py): the lines agents scaffold with, against the
real bubblewrap sandbox, and the rewrite itself against bash on random words. And the ways agents
keep a repository's .git out of a search (`--exclude-dir={.git,build}`, `-prune`, `-I`)."""

from __future__ import annotations

import random
import subprocess

import pytest

from mcp_world.executors.sandbox import bwrap_available

from .sandboxed import shell, side_by_side, unanswered

braces = __import__(shell.__name__.rsplit(".", 1)[0] + ".braces", fromlist=["x"])


@pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")
def test_lines_with_braces_are_answered_and_followed_as_bash_runs_them():
    """`mkdir -p app/{models,views}`, `touch app/models/{a,b}.py`, `cp README.md{,.bak}`, sequences
    (`{1..3}`, `{01..10..3}`, `{a..c}`), `for i in {1..3}`, `--exclude-dir={.git,app}`: each answered
    byte for byte as the sandbox prints it, and the files they make listed after. Before, each line
    went to the model, and a `mkdir -p` of braces made the state forget every listing below it."""
    lines = ["mkdir -p app/{models,views,tests}", "ls app", "touch app/models/{user,item}.py app/__init__.py",
             "ls app/models", "cp README.md{,.bak}", "ls", "echo {1..5}", "echo file{01..10..3}.txt {c..a}",
             "for i in {1..3}; do echo \"step $i\"; done", "ls {src,tests}", "ls app/{models,views}",
             "grep -rn add . --exclude-dir={.git,app}", "mkdir x{1..3} && ls -d x*", "rm -r x{1..3} app; ls",
             "echo {a,b}{1,2}", "echo '{a,b}' {a,b}", "mv README.md{.bak,.old} && ls", "echo pre-{x,y{1,2}}-post"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


@pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")
def test_searches_that_leave_dot_git_out_are_answered_as_grep_and_find_print_them():
    """`grep -r --exclude-dir=.git`, `--exclude=GLOB`, `-I`, and `find . -path ./.git -prune -o … -print`:
    what .git holds is not known whole, so a search into it is the model's; one that leaves it out
    is answered. Before, each of these lines went to the model."""
    lines = ["grep -rn add . --exclude-dir=.git", "grep -rn --exclude-dir=.git add .",
             "grep -rni ADD . --exclude-dir=.git", "grep -rn add . --exclude-dir=src --exclude-dir=.git",
             "grep -rl add . --exclude=*.md --exclude-dir=.git", "grep -rn 'a.d' . --exclude-dir=.git | head -3",
             "grep -rnI add src tests", "grep -rc add --exclude-dir=.git .",
             "find . -path ./.git -prune -o -type f -print", "find . -name .git -prune -o -name '*.py' -print",
             "find . -type d -name .git -prune -o -type f -print | sort", "find . -path ./.git -prune -o -print",
             "mkdir -p web/node_modules/x && echo x > web/node_modules/x/i.js && echo x > web/m.js",
             "find . -name node_modules -prune -o -name '*.js' -print",
             "grep -rl x --exclude-dir={.git,node_modules} ."]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    # a search that reaches into .git stays the model's (what is there is not known whole)
    assert side_by_side(["grep -rn add --exclude-dir=src .", "find . -name src -prune -o -type f -print"])[0][1] is None


def test_a_line_with_braces_is_the_line_bash_runs_after_expanding_them(tmp_path):
    """Every line `braces.expanded` rewrites prints, run by bash, what the line as typed prints (with
    its patterns off): random words of braces, commas, sequences, quotes, variables, substitutions
    and operators. A line it does not read so is left as typed, and is then the model's."""
    pieces = ["{", "}", ",", "a", "b", "1", "0", "..", "'", '"', "\\", "$v", " ", "x", "{a,b}", "{1..3}", "{a..c}",
              "{05..1..2}", "-", "=", "Z", "${v}", "$(echo q)", "#", "{x,{y,z}}", "{,.bak}"]
    # (no `;`, `|` or `&` among them: every word is an argument of `f`, so bash on this machine runs
    # nothing but `printf` and `echo q`, whatever the draw)
    rng = random.Random(11)
    rewritten = 0
    for _ in range(600):
        typed = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 9)))
        read = braces.expanded(typed)
        if read == typed:
            continue
        rewritten += 1
        runs = [subprocess.run(["bash", "-c", "set -f; v=V; f() { printf '<%s>' \"$@\"; echo; }; f " + text],
                               capture_output=True, text=True, cwd=tmp_path, timeout=30) for text in (typed, read)]
        if "syntax error" in runs[0].stderr:  # (bash repeats the line as typed in that message)
            assert "syntax error" in runs[1].stderr, (typed, read)
            continue
        assert (runs[0].stdout, runs[0].returncode) == (runs[1].stdout, runs[1].returncode), (typed, read)
        assert sorted(runs[0].stderr.splitlines()) == sorted(runs[1].stderr.splitlines()), (typed, read)
    assert rewritten > 100


def test_braces_not_read_here_leave_the_line_as_typed():
    """Where bash reads the braces otherwise, or the line would grow past what a line may cost, the line
    stays as typed (and the model answers it)."""
    for typed in ["X={a,b} env", "echo {1..5000}", "echo {,}", "echo {a}", "echo \\{a,b}", "echo }{a,b}",
                  "cat <<EOF\n{a,b}\nEOF", "[[ x == {a,b} ]] && echo y", "case x in {a,b}) echo y;; esac",
                  "echo {a,b} \\", "find . -exec echo {} +", "awk '{print $1}' f", "echo {Z..a} {-01..2}"]:
        assert braces.expanded(typed) == typed, typed
    assert braces.expanded("cp a.py{,.bak}") == "cp a.py a.py.bak"
    assert braces.expanded("for i in {1..3}; do echo $i; done # {a,b}") == "for i in 1 2 3; do echo $i; done # {a,b}"
