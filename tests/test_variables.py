"""Shell variables and `for` loops in the terminal's state, against the real bubblewrap sandbox: each
command runs there (a shell that lives on, as the shadow mode runs it) and the state answers beside
it. Every answer the state gives must be the sandbox's byte for byte, the folder after it too; the
lines named here must be answered, so that a rule that stops answering fails as surely as one that
answers wrong."""

from __future__ import annotations

import pytest

from mcp_world.executors.sandbox import SandboxLimits, bwrap_available
from mcp_world.world import load_world

from .sandboxed import RULES, shell, side_by_side, unanswered

machine = __import__(shell.__name__.rsplit(".", 1)[0] + ".machine", fromlist=["x"])
pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")


def test_variables_are_set_read_back_and_split_as_bash_does():
    """`F=src/x.py` then `wc -l $F`: the value as bash hands it over, split into words outside
    quotes (`ls $L` of two names lists two), whole inside them; an empty one is no word at all. A
    value that is a pattern (`G='*.md'; ls $G`) or a `~` the shell does not read as the home is the
    model's. Before, `X=5` was answered by the model and made the state forget every folder it knew."""
    seen = side_by_side([
        "F=src/notes.py", "wc -l $F", "cat $F | head -2", 'grep -n def "$F"', "L='README.md requirements.txt'",
        "ls $L", "wc -l $L", 'echo "<$L>"', "cat $L | wc -l", "D=$(dirname $F)", "ls $D", "cd $D && pwd", "cd -",
        "N=$(wc -l < $F); echo $((N * 2))", 'unset F; echo "[$F]"', "E=", "ls $E", "X=5 Y=6; echo $X$Y", "ls",
        "G='*.md'", "ls $G", 'P="~/notes-app"', 'cd "$P"', "export V=1; W=2", "bash -c 'echo \"$V$W\"'"])
    assert unanswered(seen, {"F=src/notes.py", "wc -l $F", "cat $F | head -2", 'grep -n def "$F"', "wc -l $L",
                              'echo "<$L>"', "cat $L | wc -l", "ls $D", "cd $D && pwd", "cd -",
                              "N=$(wc -l < $F); echo $((N * 2))", "ls $E", "X=5 Y=6; echo $X$Y"}) == set()
    answers = {command: said for command, said, _ in seen}
    assert answers["ls $G"] is None and answers['cd "$P"'] is None  # (a pattern; a ~ that is not the home)
    assert answers["ls"] is not None  # (no assignment made the state forget what it knew)


def test_a_for_loop_runs_its_body_once_for_each_word_as_bash_does():
    """The words (a list, patterns in folders the state knows, `$(…)`) are expanded first, then the
    body runs for each, the variable set to it, each turn on the state the one before left: what it
    prints, the last turn's status, the files it writes and the folder it ends in. `find -exec`
    runs its command once for each path (`;`) or once for them all (`+`)."""
    seen = side_by_side([
        'for f in src/*.py tests/*.py; do echo "== $f"; head -3 "$f"; done', "echo $f",
        "for f in *.md *.txt; do wc -l $f; done", 'for i in $(seq 3); do echo "n $i" > n$i.txt; done', "ls",
        "cat n2.txt", "for f in n*.txt; do cat $f; rm $f; done", "ls", "for d in src tests; do ls $d | wc -l; done",
        "for f in $(find . -name '*.py'); do grep -c def $f; done",
        'for f in *; do [ -d "$f" ] && echo "dir $f" || echo "file $f"; done',
        "for d in src tests; do cd $d; pwd; cd ..; done", "pwd", "for w in; do echo $w; done",
        "find . -name '*.py' -exec wc -l {} +", "find . -name '*.py' -exec grep -c zzz {} \\;",
        "find src -type f -exec cat {} ';'", "find . -name 'zz*' -exec cat {} +"])
    assert unanswered(seen, {command for command, _, _ in seen}) == set()


def test_nested_loops_run_each_loop_once_and_a_line_past_the_budget_goes_to_the_model(monkeypatch):
    """Each loop of a nested line runs once for the line's answer, folder and update (budget.py). Before,
    a command in a loop was run again to answer it, to follow its folder and to apply it, so each level
    ran its body three times: `for i in 1 2; do` eight deep, with an `if` between, took minutes on the
    server's event loop and every other episode waited. A line whose loops would run past the budget
    (here a million turns) is the model's, as any line the state cannot run."""
    nest = 'for i in 1 2; do if [ -d src ]; then for j in a b; do echo "$i$j" > "$i$j.txt" && ls $i$j.txt; done; ' \
        'fi; done'
    seen = side_by_side([nest, "ls *.txt | wc -l", "cat 2b.txt", "for i in 1 2; do for j in 3 4; do for k in 5 6; do "
                         "echo $i$j$k; done; done; done"])
    assert unanswered(seen, {command for command, _, _ in seen}) == set()
    compound = __import__(shell.__name__.rsplit(".", 1)[0] + ".compound", fromlist=["x"])
    budget = __import__(shell.__name__.rsplit(".", 1)[0] + ".budget", fromlist=["x"])
    state = side_by_side.__globals__["RULES"].initial(side_by_side.__globals__["load_world"]("devbox"))
    runs, run = [], compound.run
    monkeypatch.setattr(compound, "run", lambda *args: runs.append(1) or run(*args))
    deep = "for i in 1 2; do " * 5 + "echo $i" + "; done" * 5
    assert shell.answer(state, deep) == ("1\n2\n" * 16, 0)
    assert len(runs) == 2 ** 6 - 1  # (each of the 63 loops once; before, 4,147)
    runs.clear()
    shell.apply(state, deep, "1\n2\n" * 16, 0, state["cwd"])
    assert len(runs) == 2 ** 6 - 1
    runs.clear()
    million = "for i in 0 1 2 3 4 5 6 7 8 9; do " * 6 + "echo $i" + "; done" * 6
    assert shell.answer(state, million) is None and shell.silent(state, million) is None
    assert len(runs) <= budget.WORK


def test_a_loop_or_an_if_piped_on_sends_down_the_pipe_what_its_commands_print_to_standard_output():
    """`for … done | sort -n`, `if … fi | wc -l`, `ls | while read f; do …; done | head`: the compound
    runs as alone, in a subshell (its files stay, its folder does not), and its output goes through
    the pipeline. A command that complains (`cat nope`, `cd` into a file), or writes to standard error
    (`>&2`), prints to the terminal, not down the pipe: such a line is the model's."""
    lines = ["for f in src/*.py tests/*.py; do wc -l $f; done | sort -n", "for i in 3 1 2; do echo $i; done | sort -n",
             "if [ -d src ]; then ls src; fi | wc -l", 'ls | while read f; do echo "<$f>"; done | sort -r | head -2',
             "for d in src tests; do echo x > $d/y.out; cd $d; pwd; cd ..; done | tail -1", "pwd", "ls src",
             "for i in 1 2; do for f in *.md; do echo $i$f; done; done | wc -l"]
    refused = ["for f in nope README.md; do cat $f; done | wc -l", "for f in a b; do echo $f >&2; done | wc -l",
               "for d in src tests; do cd $d; pwd; done | tail -1"]
    seen = side_by_side(lines + refused)
    assert unanswered(seen, set(lines)) == set()
    assert [said for command, said, _ in seen if command in refused] == [None] * len(refused)


def test_a_while_read_loop_runs_its_body_once_for_each_line_of_a_file_or_a_pipe():
    """`while read -r l; do …; done < FILE` and `CMD | while read f; do …; done`: one turn for each
    whole line (its blanks at either end taken off, but with `IFS=`); fed by a pipe, the loop runs in
    a subshell, so the folder and the variables it set are gone after it, and the files it wrote stay."""
    seen = side_by_side([
        'while read -r l; do echo "> $l"; done < requirements.txt', 'echo "[$l]"',
        "find . -name '*.py' | while read f; do wc -l $f; done",
        "find . -name '*.py' | sort | while IFS= read -r f; do head -1 \"$f\"; done",
        "ls | while read f; do cd src; X=1; done", "pwd", "ls | while read f; do echo $f > $f.bak; done",
        "cat src.bak", "echo 'a  b' > t.txt", "while read x; do echo \"[$x]\"; done < t.txt",
        "while IFS= read -r x; do echo \"[$x]\"; done < t.txt", "while read l; do echo $l; done"])
    assert unanswered(seen, {command for command, _, _ in seen}) == set()


def test_what_the_state_did_not_run_keeps_what_it_could_not_change_and_forgets_what_it_may_have():
    """A loop the model answers that only reads (`while read …`) leaves the state as it was; a write
    the state does not follow (through a pipe, in a subshell, in a list that failed) leaves what it
    wrote unknown, and a variable a failed or unfollowed line may have set is not known either.
    Before, `ls | sort > README.md` then `cat README.md` was answered with the old README."""
    seen = side_by_side([
        'while read -r l; do echo "> $l"; done < requirements.txt', "cat README.md", "ls",
        "echo hi | tee README.md", "cat README.md", "ls | sort > list.txt", "cat list.txt", "(echo sub > sub.txt)",
        "cat sub.txt", "echo x > a.txt; false", "cat a.txt", "F=one", "export F=two b.txt", "echo $F",
        "ls | while read f; do G=$f; done", "echo \"[$G]\"", "cd /home", "(echo x > made)", "ls /home"])
    answers = {command: said for command, said, _ in seen}
    assert answers["cat README.md"] is None  # (after `tee`: the second time; the first was before it)
    assert seen[1][1] is not None and answers["ls"] is not None  # (the read-only loop forgot nothing)
    assert answers["cat list.txt"] is None and answers["cat sub.txt"] is None and answers["cat a.txt"] is None
    assert answers["echo $F"] is None and answers['echo "[$G]"'] is None
    assert answers["ls /home"] is None  # (the shell in /home, above the home, wrote there: found by the fuzz)


def test_who_the_shell_runs_as_and_the_system_are_the_sandboxs():
    """`id`, `id -u`, `uname`: the sandbox's user (SandboxLimits.uid, the world's user name) on Linux;
    `ls -l src/` lists the folder as `ls -l src` does."""
    assert SandboxLimits().uid == machine.UID
    seen = side_by_side(["id", "id -u", "id -g", "id -un", "uname", "uname -s", "ls -l src/", "ls -la tests/"])
    assert unanswered(seen, {command for command, _, _ in seen}) == set()


def test_where_the_machines_programs_are_and_its_environment_are_the_sandboxs():
    """`which`, `command -v` and `type` of the programs every world has (and of bash's own, which no
    program is), `printenv` and `$PATH`, `$LANG`, `$TERM` as the sandbox starts every shell with them,
    `python3 --version` (Debian 12's);
    a program that may or may not be installed (node), and the whole environment, are the model's.
    Before, each was the model's."""
    lines = ["which python3", "which python3 git bash", "which cd", "which python3 cd", "command -v git",
             "command -v cd git if", "type cd", "type ls", "type if", "type -t cd ls if", "type echo", "which echo",
             "which sh awk perl", "printenv HOME", "printenv PATH", "printenv LANG TERM", "printenv NOPE",
             "X=1; printenv X", "export Y=2; printenv Y", "printenv PWD", "cd src && printenv PWD", "cd ..",
             "echo $PATH", 'echo "$LANG $TERM"', "printenv USER LOGNAME HOSTNAME", "printenv SHELL",
             "python3 --version", "python3 -V && which python3"]
    seen = side_by_side(lines + ["which node", "printenv", "which -a python3", "f() { :; }; type f", "type f",
                                 "alias ls='ls -F'; which ls", "export PATH=/usr/bin:$PATH", "which git"])
    assert unanswered(seen, set(lines)) == set()
    assert all(said is None for command, said, _ in seen[len(lines):] if command != "export PATH=/usr/bin:$PATH")


def test_a_path_without_the_machines_programs_leaves_every_command_to_the_model():
    """`export PATH=-n` (the fuzz typed it): `ls`, `touch x` are "command not found"; a PATH that reaches
    /usr/bin past folders that are not there finds them all. A variable the state keeps as exported
    for how it changes the shell (SHELL, TZ, LC_ALL) but that bash did not export: `printenv` is the
    model's. Before, the state answered `ls` as ever, and `SHELL=x; printenv SHELL` printed x."""
    seen = side_by_side(["export PATH=-n", "ls", "touch x", "mkdir -p d", "export PATH=/usr/local/bin:/usr/bin:/bin",
                         "ls", 'export PATH="$HOME/.local/bin:$PATH"', "ls", "echo $PATH", "mkdir -p ~/.local/bin",
                         "ls", "SHELL=x; printenv SHELL", "TZ=UTC; printenv TZ", "LC_ALL=C; printenv LC_ALL"])
    said = {command: answer for command, answer, _ in seen}
    assert [answer for command, answer, _ in seen[1:4]] == [None, None, None]
    assert unanswered(seen, {'export PATH="$HOME/.local/bin:$PATH"', "echo $PATH"}) == set() and seen[7][1] is not None
    assert seen[10][1] is None  # (~/.local/bin is there now: what is in it, not known)
    assert said["SHELL=x; printenv SHELL"] is None and said["TZ=UTC; printenv TZ"] is None


MULTILINE = [
    "cd src\nls", "echo a\necho b", "ls\n\npwd\n", "cd ..\n", "echo a # a comment; rm -rf src\necho b",
    "ls &&\n  pwd", "cat README.md |\n  wc -l", "ls -la \\\n  src", "grep -rn \\\n  def src",
    "for f in src/*.py tests/*.py\ndo\n  if grep -q def \"$f\"; then\n    echo \"defs: $f\"\n  fi\ndone",
    "if [ -d src ]; then\n  cd src\nfi\npwd", "cd ..", "for a in 1 2; do for b in x y; do echo $a$b; done; done",
    "for f in *; do if [ -d $f ]; then echo \"d $f\"; else wc -l $f; fi; done", "ls | while read f; do echo $f; done; pwd",
    "X=1\necho $X", "cat nope\necho $?", "mkdir -p made/dir\ncd made\nls\ncd ..", "touch x.txt\nls",
    "cat > hello.py <<'EOF'\nprint('hi')\nEOF\npython3 hello.py", "cat hello.py",
    "cat <<'EOF' > src/util.py\ndef f():\n    return 1\nEOF\nls src\npython3 -c 'from src.util import f; print(f())'",
    "cat > t.txt << EOF\na\nb\nEOF\nwc -l t.txt\ncat nope", "ls",
]


def test_a_command_of_several_lines_runs_line_by_line_as_bash_does():
    """A newline ends a command as `;` does — but after `&&`, `|`, `do`, `then` or a backslash, where
    the command goes on — and a comment ends at the line's end. Compound commands stand in a list
    (`if …; fi; pwd`) and inside each other (a loop in a loop, an `if` in a loop); a here-document's
    command, then the lines after it (a script written, then run). Before, `echo a⏎echo b` was
    answered `a echo b`, `ls⏎⏎pwd` as `ls pwd`, and `echo a # c⏎echo b` lost its second line."""
    seen = side_by_side(MULTILINE)
    assert unanswered(seen, set(MULTILINE)) == set()


def test_an_if_with_elif_branches_and_backquotes_run_as_bash_runs_them():
    """`if …; elif …; else …; fi`: each test in turn until one succeeds, that branch's commands, the
    status 0 where no branch ran; backquotes read as `$(…)` where nothing in them is escaped or nested.
    Before, each of these was the model's (and a backquote made the state forget what it knew)."""
    seen = side_by_side([
        "if [ -f README.md ]; then echo yes; elif [ -d src ]; then echo dir; fi",
        "if [ -f nope ]; then echo yes; elif [ -d src ]; then echo dir; else echo no; fi",
        "if [ -f nope ]; then echo a; elif [ -d nope ]; then echo b; elif grep -q add src/notes.py; then echo c; fi",
        "if [ -f nope ]; then echo a; elif [ -d nope ]; then echo b; fi; echo $?",
        "if false; then :; elif false; then :; else ls nope; fi; echo $?",
        "if [ -f nope ]; then\n  echo a\nelif [ -d src ]; then\n  cd src\n  ls\nelse\n  echo c\nfi", "pwd", "cd ..",
        "echo `ls | wc -l`", 'echo "files: `ls`"', "X=`pwd`; echo $X", "cd `dirname src/notes.py` && pwd",
        "for f in `ls`; do echo \"- $f\"; done", "N=`wc -l < notes.py`; echo $N", "cd ..",
        'echo "on `git branch --show-current`"', "ls",
        "if true; then echo a; else echo c; elif true; then echo b; fi", "echo `echo \\`pwd\\``"])
    answered = {command for command, _, _ in seen[:-2]}
    assert unanswered(seen, answered) == set()
    assert [said for _, said, _ in seen[-2:]] == [None, None]  # (elif after else: bash refuses it; nested)


def test_backquotes_read_as_dollar_parentheses_are_what_bash_reads(tmp_path):
    """Every line `backquoted` rewrites prints, run by bash, what the line as typed prints."""
    import random
    import subprocess

    line = __import__(shell.__name__.rsplit(".", 1)[0] + ".line", fromlist=["x"])
    rng = random.Random(7)
    pieces = ["echo", "`echo a b`", '"`echo a  b`"', "'`x`'", "`pwd`", "x`echo y`z", '"`echo \'q\'`"', "\\`",
              "`ls`", "`echo \"in\"`", "`echo )`", "`echo 'u`", "$(echo `echo n`)", "`printf '%s\\n' 1 2`", ";",
              "$'q\\'`s`'"]
    rewritten = 0
    for _ in range(400):
        typed = "echo " + " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 4)))
        read = line.backquoted(typed)
        if read == typed:
            continue
        rewritten += 1
        runs = [subprocess.run(["bash", "-c", text], capture_output=True, text=True, cwd=tmp_path, timeout=30)
                for text in (typed, read)]
        assert (runs[0].stdout, runs[0].returncode) == (runs[1].stdout, runs[1].returncode), (typed, read)
    assert rewritten > 100


def test_a_home_or_folder_the_episode_sets_and_a_redirect_bash_refused_are_not_answered_wrong():
    """Three wrong answers the fuzz (`--templates lines`) found: after `export HOME='a  b'`, `~` is that
    folder, not the world's home; `PWD=…` moves where the sandbox takes the shell to be; and a
    redirection bash refused (`>> ~/notes-app/src`, a folder, named by bash as `/home/user/notes-app/src`)
    made no file, though the state had taken it for one (`echo x > src && cat src` was answered `x`)."""
    side_by_side(["mv a b.txt ..", "printf 'x\\n' >> ~/notes-app/src",
                  "echo `git branch --show-current` > src && cat src", "ls src", "mkdir -p ~/notes-app/src", "export HOME='a  b'", "cd `dirname ~/notes-app/src` && pwd",
                  "ls ~", "cd ~/notes-app"])
    seen = side_by_side(['PWD="$HOME"; printenv PWD', "pwd", "ls"])
    assert seen[0][1] is None


def test_a_variable_no_line_set_is_unset_and_one_a_line_may_have_set_is_not_known():
    """`echo $VIRTUAL_ENV` where nothing set it prints an empty line, as in the sandbox, whose shell
    starts with its own variables alone (`unset X` makes one unset again). A variable a line may have
    set that the state does not follow (`printf -v`, `read`, `${D:=…}`) is not known; after a nameref
    (`declare -n`), none the state does not name is. Before, each `$NAME` no line set was the model's."""
    answered = ["echo $VIRTUAL_ENV", 'echo "[$PYTHONPATH]"', "X=1", "unset X", "echo $X", 'echo "${NEWV}x"',
                "for f in a b; do :; done; echo $f", "printenv VIRTUAL_ENV; echo $?"]
    seen = side_by_side(answered + ["printf -v Q %s 1", "echo $Q", "read Z < README.md", "echo $Z", ": ${D:=3}",
                                    "echo $D", "echo $E", "declare -n R=S; R=5", "echo $S", "echo $OTHER"])
    assert unanswered(seen, set(answered)) == set()
    answers = {command: said for command, said, _ in seen}
    assert answers["echo $Q"] is None and answers["echo $Z"] is None and answers["echo $D"] is None
    assert answers["echo $E"] == ("\n", 0)  # (until the nameref, a name no line set is unset)
    assert answers["echo $S"] is None and answers["echo $OTHER"] is None


def test_what_a_sourced_file_the_state_cannot_read_sets_is_not_known_after_it():
    """`source FILE` runs the file in the shell. Where the state knows its text it runs it too
    (test_scripts.py); where it does not (written through a pipe), every variable it may have set, exported
    or not, is the model's after it, and so is which program a name runs (a virtual environment's
    `activate` sets PATH). Before, `echo $X` after `source .env` printed the X before it, `printenv`
    and `os.environ` said an exported one was not there, and `which python3` after activating a
    virtual environment said /usr/bin/python3."""
    seen = side_by_side(["X=0", "printf 'X=1\\nexport SEC=2\\n' | tee .env",
                         "source .env", "echo $X", "printenv SEC",
                         "python3 -c \"import os; print(os.environ.get('SEC'))\"",
                         "python3 -m venv --without-pip venv", ". venv/bin/activate", "which python3"])
    answers = {command: said for command, said, _ in seen}
    assert answers["X=0"] is not None
    assert all(answers[c] is None for c in ("echo $X", "printenv SEC", "which python3",
                                             "python3 -c \"import os; print(os.environ.get('SEC'))\""))


def test_an_escaped_dollar_and_an_empty_word_are_not_read_as_a_variable_or_a_name():
    """`echo \\$HOME` prints `$HOME`, and `touch \\$Q` makes a file named `$Q`; `ls ""`, `touch ""` and
    `mkdir -p "$UNSET"` are refused (an empty name). Before, the first printed the home, `ls` after
    the second missed the file, and the rest were answered as if the word were not there (a listing;
    success). `mkdir -p` of a folder there succeeds, which was the model's."""
    seen = side_by_side(["mkdir -p src", "mkdir -p src tests && ls src", "echo \\$HOME", "X=1; echo \\$X", "touch \\$Q",
                         "ls", 'ls ""', 'touch ""', 'mkdir -p ""', 'ls "$UNSET"'])
    answers = {command: said for command, said, _ in seen}
    assert answers["mkdir -p src"] == ("", 0) and answers["mkdir -p src tests && ls src"] == ("notes.py\n", 0)


def test_test_compares_words_and_numbers_as_bash_does():
    """`[ -z "$VIRTUAL_ENV" ]`, `[ -n … ]`, `=`, `!=`, `-gt` and the like, a lone word, `!`, read by
    the number of test's arguments as bash reads them (`[ -n $UNSET ]` is true: one word, `-n`).
    Before, only file tests were the state's. A word that is no number, and `-a`/`-o`, are the model's."""
    lines = ['[ -z "$VIRTUAL_ENV" ] && echo none', '[ -n "$VIRTUAL_ENV" ] || echo unset', "X=3",
             '[ "$X" -gt 2 ] && echo big', '[ "$X" = 3 ]; echo $?', 'test "$X" != 3 || echo same',
             "[ -z $UNSET ] && echo y", "[ -n $UNSET ] && echo y2", "[ ! -f README.md ] || echo has",
             '[ "!" = "!" ] && echo bang', "[ abc ] && echo word", '[ "" ] || echo empty',
             'if [ -z "$CI" ]; then echo local; else echo ci; fi', "[ 10 -le 9 ]; echo $?"]
    seen = side_by_side(lines + ['[ "$X" -eq x ]; echo $?', "[ 1 -lt 2 -a 3 -lt 4 ] && echo and"])
    assert unanswered(seen, set(lines)) == set()
    assert all(said is None for _, said, _ in seen[len(lines):])


def test_a_value_bash_works_out_of_a_variable_is_worked_out_as_bash_does():
    """`${X:-default}`, `${X-…}`, `${X:+…}`, `${#X}`, a prefix or suffix taken off (`${F%.py}`,
    `${F##*/}`), a text replaced (`${F//o/0}`), a slice (`${F:0:3}`), in words, paths and assignments.
    Before, each was the model's (and a path written through one was forgotten)."""
    lines = ["F=src/notes.py; N=", "echo ${F%.py} ${F##*/} ${F#*/} ${F%%/*}",
             "echo \"${F/notes/main}\" ${#F} ${F:4} ${F:0:3}", "echo ${PORT:-8000} ${N:-x} ${N-y} ${F:+set}",
             "echo \"[${N:+z}]\" ${F//o/0} ${#N}", "cp $F ${F%.py}.bak && ls src", "D=${HOME}/notes-app; ls $D",
             "mkdir -p build/${F%/*}", "ls build", "P=${PORT:-8000}; echo $P",
             "for f in src/*.py; do echo ${f%.py}; done",
             "B=${F##*/}; echo ${B%.py}", "echo hi > ${F%.py}.txt", "cat src/notes.txt", "echo ${VIRTUAL_ENV:-none}",
             "echo \"${HOME%/*}\"", "X='a*b*c'; echo \"${X%*b*}\" \"${X#*b}\"", "echo \"${X%%[a]*}\""]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines) - {"echo \"${X%%[a]*}\""}) == set()


def test_a_value_too_long_to_work_out_is_left_to_the_model():
    """A word that grows past the tool's limit on a line as it is expanded, and a pattern taken off a
    long value, are the model's: neither is worked through here (each was megabytes, or minutes)."""
    s = RULES.initial(load_world("devbox"))
    s = shell.apply(s, "F=" + "a" * 4000, "", 0, s["cwd"])
    for line in ["echo " + "$F" * 1500, "echo ${F##*a*a*a*b}", "echo " + "${F:-x}" * 1500, "echo ${F%%*a}"]:
        assert shell.answer(s, line) is None, line[:40]
    assert shell.answer(s, "echo ${#F} ${F:3990}") == ("4000 aaaaaaaaaa\n", 0)


def test_a_dollar_in_single_quotes_is_written_as_it_is():
    """`printf 'echo $HOME\\n' > h.sh` writes `$HOME` as typed (agents write scripts so): the file is
    read back and run. Before, any `$` in single quotes left the file's text unknown."""
    lines = ["printf 'echo $HOME\\n' > h.sh", "cat h.sh", "bash h.sh", "echo 'cost: $5' > p.txt", "cat p.txt",
             "printf 'b $X\\n' > q; echo $HOME", "cat q", "X='$HOME'; echo $X", "sed -i 's/$/!/' p.txt", "cat p.txt"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
