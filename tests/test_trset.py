"""The state's `tr` (domains/terminal/rules/trset.py) against GNU tr on this machine: random sets
(characters, ranges, escapes, classes) and options over random text (ASCII, blanks, newlines, and
letters beyond ASCII), byte for byte wherever the state answers; and the forms it must leave to
the model, left."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from .helpers import domain_code

trset = domain_code("terminal", "trset")

pytestmark = pytest.mark.skipif(shutil.which("tr") is None, reason="needs GNU tr")
PIECES = ["a-z", "A-Z", "0-9", "a-f", "[:lower:]", "[:upper:]", "[:digit:]", "[:space:]", "[:blank:]", "[:alpha:]",
          "[:alnum:]", "[:punct:]", " ", "\\n", "\\t", "\\\\", ".", "-", "x", "ab", "=", ",", "e-", "q-t"]
TEXT = ["a", "B", " ", "  ", "\n", "\t", "x", "z", "9", ".", "-", ",", "é", "ü", "Z", "hello", "World", "==", "\\"]


def _case(rng: random.Random) -> list[str]:
    sets = ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 3))) for _ in range(2)]
    form = rng.choice(["translate", "translate", "case", "-d", "-s", "-cd", "-s2"])
    if form == "case":
        return rng.choice([["[:lower:]", "[:upper:]"], ["[:upper:]", "[:lower:]"]])
    return sets if form == "translate" else ["-s", *sets] if form == "-s2" else [form, sets[0]]


def test_tr_is_gnu_tr_byte_for_byte_on_random_sets_and_text():
    rng = random.Random(7)
    answered = 0
    for _ in range(1500):
        args = _case(rng)
        text = "".join(rng.choice(TEXT) for _ in range(rng.randint(0, 30)))
        run = trset.tr(args)
        if run is None:
            continue
        real = subprocess.run(["tr", *args], input=text.encode(), capture_output=True, env={"LC_ALL": "C.UTF-8"})
        assert real.returncode == 0, (args, real.stderr)
        assert run(text)[0].encode() == real.stdout, (args, text)
        answered += 1
    assert answered > 1000  # (the forms agents type are answered, not left)


@pytest.mark.parametrize("args", [["z-a", "x"], ["[:digit:]", "[:alpha:]"], ["a-z", "[=a=]"], ["[a*3]", "x"],
                                  ["\\101", "x"], ["-c", "a", "b"], ["é", "e"], ["a"], ["-d"],
                                  ["[:lower:]A-Z", "[:upper:]"], ["e-[:alpha:]", "x"]])
def test_forms_tr_refuses_or_reads_its_own_way_are_left_to_the_model(args):
    assert trset.tr(args) is None
