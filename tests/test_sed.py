"""sed as the terminal's state runs it (domains/terminal/rules/sedscript.py, sedregex.py), checked
against the real GNU sed of this machine (the one the sandbox runs) on the scripts agents write and
on generated ones: every script taken here prints, and leaves in place, what the real sed does."""

from __future__ import annotations

import random
import shutil
import subprocess
import tempfile

import pytest

from domains.terminal.rules import sedscript, shell
from mcp_world.domain import load_domain
from mcp_world.world import load_world

SED = shutil.which("sed")
pytestmark = pytest.mark.skipif(SED is None, reason="no sed on this machine")

TEXT = ("abcbab aab\nfoo = 1.0\n  bar(x, y)  \n\nversion = \"1.2.3\"\ndef add(a, b):\n    return a + b\n"
        "import os, sys\nlast line")

# what agents type (and a few of sed's corners), each a list of sed's arguments before the file
AGENT_SCRIPTS = [
    ["s/1\\.0/2.0/"], ["s/version = \".*\"/version = \"9\"/"], ["s/^/# /"], ["s/[[:space:]]*$//"], ["s/ *$//"],
    ["-E", "s/([a-z]+)\\(/\\1_v2(/g"], ["s/\\(def\\) \\(add\\)/\\1 my_\\2/"], ["-n", "/def/p"], ["/^$/d"], ["$a end"],
    ["1i start"], ["2,4d"], ["/foo/,/def/d"], ["-n", "$="], ["3q"], ["-n", "2,3p"], ["2!d"], ["s/a/&&/g"],
    ["s/\\s\\+/ /g"], ["-E", "s/[0-9]+/N/g"], ["s/[^a-z]//g"], ["2c changed"], ["/foo/,/bar/c gone"], ["s/A/z/Ig"],
    ["-n", "s/a/A/p"], ["s|/|_|g"], ["s/x*/-/g"], ["s/b*/-/g"], ["s/b*/-/2"], ["s/a/X/2g"], ["s/^a/x/g"],
    ["-E", "s/(a|ab)(c|bcd)/[\\1,\\2]/"], ["s/\\bb/X/g"], ["s/\\w\\+/W/2"], ["p"], ["-n", "p;p"], ["$!d"],
    ["/a/!s/^/# /"], ["s/.*/\"&\"/"], ["s/e\\{2\\}/E/"], ["-E", "s/(o)+/<\\1>/g"], ["s/[]a]/Q/g"], ["s/[a-]/Q/g"],
    ["s/^\\(.\\)\\(.*\\)$/\\2\\1/"], ["s/\\./!/g"], ["s/*/S/"], ["s/^*/S/"], ["-E", "s/a|b/_/g"], ["s/a\\|b/_/g"],
    ["1,3s/^/> /"], ["/^def/,$d"], ["4,2d"], ["/foo/,2d"], ["-n", "/def/="], ["s/b/\\n/;s/^a/Z/"],
    ["-e", "s/a/b/", "-e", "s/b/c/g"], ["-e", "s/a/b/", "-"], ["2i\\    # indented"], ["1a\\  y"], ["1c\\   w"], ["-ne", "/import/p"], ["2d; 2,/x/="], ["/a/d; 1,2d"], ["s/^^/X/"],
]


def real_sed(args: list[str], text: str) -> tuple[str, int]:
    done = subprocess.run([SED, *args], input=text.encode(), capture_output=True, timeout=30,
                          cwd=tempfile.gettempdir(), env={"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"})
    return done.stdout.decode(), done.returncode


def ours(args: list[str], text: str) -> str | None:
    found = sedscript.program(args)
    return None if found is None else sedscript.run(found[0], text, found[2])


@pytest.mark.parametrize("args", AGENT_SCRIPTS, ids=" ".join)
def test_an_agents_sed_prints_what_the_real_sed_prints(args):
    for text in (TEXT, TEXT + "\n", ""):  # (a last line with and without its newline, and nothing)
        printed = ours(args, text)
        assert printed is not None, f"{args} is taken"
        assert (printed, 0) == real_sed(args, text), (args, text[-12:])


@pytest.mark.parametrize("args", [["y/ab/ba/"], ["$!N"], ["s/a/b/w out"], ["0,/a/d"], ["/foo/,+1d"], ["s/\\(o\\)\\1/x/"],
                                  ["s/\\<a/x/"], ["s/a/\\U&/"], ["-s", "p"], ["s/\\b*/x/"], ["-E", "s/$?/x/"], ["s/a/\\2/"]])
def test_what_sed_reads_its_own_way_is_not_taken(args):
    """Commands not followed, back-references, case conversion, quantified anchors (sed refuses or
    reads them its own way) and references to groups the pattern lacks: the model's."""
    assert ours(args, TEXT) is None


def _generated(rng: random.Random) -> tuple[list[str], str]:
    extended = rng.random() < 0.4
    atoms = (["a", "b", "x", ".", "[ab]", "[^a ]", "[[:digit:]]", " ", "\\.", "(a)", "(b*)", "(.)", "^", "$", "+",
              "?", "*", "{1,2}", "|", "1", "(a|ab)", "(c|bcd)", "\\s"] if extended else
             ["a", "b", "x", ".", "[ab]", "[^a ]", "[[:digit:]]", "[[:alpha:]]", " ", "\\.", "\\(a\\)", "\\(b*\\)",
              "\\(.\\)", "^", "$", "\\s", "\\w", "\\+", "\\?", "*", "\\{1,2\\}", "\\|", "1", "=", "[]x]", "\\b"])
    replacements = ["X", "&", "\\1", "\\2", "", "-", "<&>", "\\n", "\\&", "\\\\"]

    def command() -> str:
        address = rng.choice(["", "", "2", "$", "/a/", "1,2", "/b/,$", "2,/x/", "3!"])
        if rng.random() < 0.7:
            pattern = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 4)))
            flags = rng.choice(["", "g", "2", "p", "2g", "I", "gp"])
            return f"{address}s/{pattern}/{rng.choice(replacements)}{rng.choice(replacements)}/{flags}"
        return address + rng.choice(["d", "p", "=", "q"])

    script = "; ".join(command() for _ in range(rng.randint(1, 2)))
    if rng.random() < 0.15:
        script = f"{rng.choice(['', '2', '$'])}{rng.choice('aic')} some text"
    lines = ["".join(rng.choice("ab x.1=cd") for _ in range(rng.randint(0, 9))) for _ in range(rng.randint(0, 5))]
    text = "\n".join(lines) + ("\n" if rng.random() < 0.7 else "")
    return (["-E"] if extended else []) + (["-n"] if rng.random() < 0.2 else []) + [script], text


def test_generated_scripts_print_what_the_real_sed_prints():
    """2,000 generated scripts over generated lines: each one taken here prints what the real sed
    prints; one the real sed refuses is never taken (sed's words for it are the model's)."""
    rng = random.Random(20261205)
    taken, differ = 0, []
    for _ in range(2000):
        args, text = _generated(rng)
        printed = ours(args, text)
        if printed is None:
            continue
        taken += 1
        real = real_sed(args, text)
        if real != (printed, 0):
            differ.append((args, text, real, printed))
    assert not differ, differ[:5]
    assert taken > 1000  # (most of them are taken: the check is not vacuous)


def test_sed_in_place_in_the_state_leaves_what_the_real_sed_leaves(tmp_path):
    """`sed -i` on a world's file: what `cat` answers after it is what the real sed leaves in a
    copy of that file, and the line prints nothing."""
    s = load_domain("terminal").rules.initial(load_world("devbox"))
    readme = shell.answer(s, "cat README.md")[0]
    for args in (["s/notes/memos/g"], ["-E", "s/^([A-Z])/\\1\\1/"], ["/^$/d"], ["-n", "/note/p"], ["$a # end"],
                 ["s/[[:space:]]*$//"], ["1,2s/^/> /"], ["2q"]):
        line = "sed -i " + " ".join(f"'{a}'" for a in args) + " README.md"
        assert shell.silent(s, line) == ("", 0), line
        after = shell.apply(s, line, "", 0, s["cwd"])
        copy = tmp_path / "README.md"
        copy.write_text(readme)
        subprocess.run([SED, "-i", *args, str(copy)], check=True, env={"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"})
        assert shell.answer(after, "cat README.md") == (copy.read_text(), 0), line
        assert shell.answer(after, "git status --short") == ((" M README.md\n", 0) if copy.read_text() != readme
                                                            else ("", 0)), line


def test_a_long_line_of_empty_matches_is_run_and_an_oversized_output_is_left_alone():
    """Every match is searched from where the last ended, on the line encoded once: a 300 KB line
    of empty matches is run (searching from the start each time took minutes); an output past the
    bound is the model's."""
    line = "ab" * 150_000 + "\n"
    assert ours(["s/x*/-/g"], line) == real_sed(["s/x*/-/g"], line)[0]
    assert ours(["s/.*/&&&&&&&&&&&&&&&&/"], "a" * 400_000) is None  # (6.4 M characters: past MAX_OUTPUT)


def test_with_a_script_given_by_e_every_other_word_is_a_file():
    assert sedscript.options(["s/a/b/", "-e", "s/c/d/", "f"]) == (["s/c/d/"], ["s/a/b/", "f"], False, False, False)
    assert sedscript.options(["-n", "s/a/b/p", "f"]) == (["s/a/b/p"], ["f"], True, False, False)
