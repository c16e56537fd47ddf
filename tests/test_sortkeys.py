"""The state's `sort` (domains/terminal/rules/sortkeys.py) against GNU sort on this machine, in the
sandbox's locale (LANG=C.UTF-8): random lines (fields split by blanks or a separator, numbers with signs,
fractions and unit suffixes, upper and lower case, empty fields) under random options and keys, byte
for byte wherever the state answers; and the forms it must leave to the model, left."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from .helpers import domain_code

sortkeys = domain_code("terminal", "sortkeys")

pytestmark = pytest.mark.skipif(shutil.which("sort") is None, reason="needs GNU sort")
WORDS = ["a", "B", "b", "apple", "Apple", "10", "9", "-3", "2.5", ".5", "-0", "007", "1K", "2M", "512", "3G",
         "1.5K", "0K", "x1", "", "zz", "é", "10k", "-2K", "1e3", "+4", " ", "  7", "1.", "1,000", "--5", "0.0", "k",
         "5k", "\t3", "1.5e", "Z", "-.5", "00.10", "README", "1R", "2q"]
OPTIONS = ["-r", "-n", "-h", "-u", "-f", "-b", "-s", "-rn", "-nr", "-nu", "-ru", "-fu", "-hr"]
KEYS = ["1", "2", "3", "1,1", "2,2", "2,3", "1.2", "2.2,2.3", "2n", "2,2n", "2,2nr", "1,1f", "3,3h", "2b", "2,2b",
        "1.1,1.1", "2r", "3n", "1,2"]


def _case(rng: random.Random) -> tuple[list[str], str]:
    tab = rng.choice([None, None, ",", ":"])
    sep = tab or rng.choice([" ", "  ", "\t", " "])
    lines = [sep.join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(0, 9))]
    args = [rng.choice(OPTIONS) for _ in range(rng.randint(0, 2))]
    for _ in range(rng.choice([0, 1, 1, 2])):
        args += rng.choice([["-k", rng.choice(KEYS)], ["-k" + rng.choice(KEYS)]])
    if tab:
        args += ["-t", tab] if rng.random() < 0.5 else ["-t" + tab]
    return args, "".join(line + "\n" for line in lines)


def test_sort_is_gnu_sort_byte_for_byte_on_random_lines_options_and_keys():
    rng = random.Random(11)
    answered = 0
    for _ in range(1200):
        args, text = _case(rng)
        found = sortkeys.sorter(args)
        real = subprocess.run(["sort", *args], input=text.encode(), capture_output=True, timeout=30,
                              env={"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"})
        if found is None:
            continue
        said = found[0](text)
        if said is None:
            continue
        answered += 1
        assert (said[0].encode(), said[1]) == (real.stdout, real.returncode), (args, text)
    assert answered > 900


def test_sort_forms_not_followed_are_left_to_the_model():
    for args in (["-n", "-h"], ["-k0"], ["-k1.0"], ["-t", "ab"], ["-V"], ["--key=2"], ["-k2,2M"], ["-o", "x"],
                 ["-g"], ["-R"], ["a", "b"]):
        assert sortkeys.sorter(args) is None, args
    ordered, _ = sortkeys.sorter(["-k1.2"])
    assert ordered("é1\nab\n") is None  # (a character's place counts bytes)
