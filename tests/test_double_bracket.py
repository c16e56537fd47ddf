"""bash's `[[ … ]]` (rules/doubletest.py): patterns, string and number comparisons, file tests, `!`,
`&&`, `||` and parentheses inside it, in lists, `if` and loops. Against the real bubblewrap sandbox: every
answer the state gives must be the sandbox's byte for byte, and the lines named here must be answered.
Before, a `[[` that held a variable, a pattern or an operator of its own was the model's."""

from __future__ import annotations

import time

import pytest

from mcp_world.executors.sandbox import bwrap_available

from .sandboxed import RULES, shell, side_by_side, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")


def test_double_bracket_tests_are_answered_as_bash_reads_them():
    """Unquoted on the right of `==` a word is a pattern (`*`, `?`, `[…]`, `[[:digit:]]`), quoted it
    is itself; a variable is neither split nor dropped where it is empty; `<` compares strings by code
    point; `-eq`… compare numbers; file tests read the state."""
    lines = ["X=abc; N=7; S='a b'; E=", "[[ $X == a* ]] && echo yes", "[[ $X == \"a*\" ]] || echo literal",
             "[[ $S == 'a b' ]] && echo spaced", "[[ $S == a\\ * ]] && echo escaped", "[[ -z $E && -n $X ]]; echo $?",
             "[[ $E ]] || echo empty", "[[ $X == [ab]* && $X == [!x]bc ]] && echo brackets",
             "[[ $X == *[[:digit:]]* ]] || echo no-digit", "[[ $N -ge 7 && $N -lt 10 ]] && echo range",
             "[[ 10 > 9 ]] || echo by-string", "[[ a < B ]] && echo lt || echo ge", "[[ ! $X == b* ]] && echo not-b",
             "[[ -f README.md && ! -d README.md ]] && echo file", "[[ (-d src || -f nope) && $X != x ]]; echo $?",
             "[[ -f nope || -d src ]] && echo one", "[[ -s README.md && -e src/notes.py ]] && echo there",
             "[[ $X = abc ]] && [[ $N = 7 ]] && echo both", "[[ -f README.md ]]&&echo tight"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_double_bracket_in_if_and_loops_and_what_it_leaves_to_the_model():
    """`if`/`elif` and a loop's body hold `[[`; `[[ 10 > 9 ]]` writes no file 9 (`ls` after it stays the
    state's); `=~`, an octal-looking number, a lone `-f`, a word too many and a line whose later `[[`
    bash cannot read (its syntax error, though the branch before it would run) are the model's."""
    lines = ["N=7", "if [[ $N -gt 5 ]]; then echo big; elif [[ $N -gt 2 ]]; then echo mid; else echo small; fi",
             "for f in a.py b.txt; do [[ $f == *.py ]] && echo \"py $f\"; done",
             "for f in src/*; do if [[ $f == *.py ]]; then echo \"$f\"; fi; done", "[[ 10 > 9 ]]", "ls"]
    model = ["[[ x =~ ^x$ ]] && echo re", "[[ 08 -eq 8 ]]", "[[ -f ]] && echo lone", "[[ a b ]]",
             "if [[ -d src ]]; then echo a; elif [[ $N > b c ]]; then echo b; fi"]  # (bash reads it all first)
    seen = side_by_side(lines + model + ["ls"])
    assert unanswered(seen, set(lines)) == set()
    assert unanswered(seen, set(model)) == set(model)


def test_a_hostile_double_bracket_is_bounded():
    """A long chain, deep parentheses and a pattern that would go back over and over (`*a*a*a…b` of a
    long text) are each answered or left to the model within a second."""
    state = RULES.initial(__import__("mcp_world.world", fromlist=["x"]).load_world("devbox"))
    for line in ["[[ " + "a == a && " * 1500 + "a ]]", "[[ " + "( " * 5000 + "a" + " )" * 5000 + " ]]",
                 "[[ " + "a" * 8000 + " == " + "*a" * 2000 + "b ]]", "[[ x == " + "[" * 15000 + " ]]",
                 "[[ " + "! " * 8000 + "a ]]"]:
        started = time.monotonic()
        said = shell.answer(state, line)
        shell.apply(state, line, "", 1, state["cwd"])
        assert time.monotonic() - started < 5, line[:40]
        assert said in (None, ("", 1), ("", 0))


def test_single_bracket_with_a_bare_pattern_is_matched_against_the_files_first():
    """`[ $F == */* ]`: bash matches `*/*` against the files before test reads its words ("too many
    arguments"); the state said it did not hold. Quoted, the pattern is itself."""
    seen = side_by_side(["F=x.txt", "[ $F == */* ] && echo single", "[ \"$F\" == \"*/*\" ] || echo quoted", "ls"])
    assert unanswered(seen, {"[ $F == */* ] && echo single"}) == {"[ $F == */* ] && echo single"}
    assert unanswered(seen, {"[ \"$F\" == \"*/*\" ] || echo quoted", "ls"}) == set()


def test_double_bracket_reads_a_substitution_as_one_word_and_the_last_status():
    """`$(…)` inside `[[` is one word, neither split nor dropped where empty (`[[ -z $(git status --short) ]]`,
    as agents ask whether a tree is clean), and `$?` is the last command's status. Before, each was the
    model's (the line's substitutions were written in as words, which `[[` does not read them as)."""
    lines = ["if [[ $(ls | wc -l) -gt 3 ]]; then echo many; else echo few; fi", "echo a > log.txt",
             "[[ $(cat log.txt | wc -l) == 1 ]] && echo one", "[[ -z $(git status --short) ]] && echo clean || echo dirty",
             "false; [[ $? -eq 1 ]] && echo failed", "[[ \"$(echo a b)\" == \"a b\" ]] && echo two",
             "[[ $(echo a b) == a\\ b ]] && echo spaced", "[[ $(echo '*') == \"*\" ]] && echo star"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_a_line_whose_double_bracket_bash_refuses_changes_nothing_whatever_was_said_of_it():
    """bash reads a line before it runs any of it: `touch zz; [[ a b ]]` makes no zz. Whatever the model
    said of such a line (here: nothing, status 0), the state keeps what it knew (`ls` stays its own and
    lists no zz); before, the files the line named were forgotten and `ls` went to the model."""
    from mcp_world.world import load_world

    state = RULES.initial(load_world("devbox"))
    for line in ["touch zz; [[ a b ]]", "if [[ -d src ]]; then touch a; elif [[ ( -f x ]]; then echo b; fi",
                 "[[ -f ]] || touch q"]:
        after = shell.apply(state, line, "", 0, state["cwd"])
        assert shell.answer(after, "ls") == ("README.md\nrequirements.txt\nsrc\ntests\n", 0), line
    seen = side_by_side(["touch zz; [[ a b ]]", "ls"])
    assert seen[1][1] is not None and "zz" not in seen[1][2]
