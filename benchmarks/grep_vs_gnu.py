"""The terminal state's grep of one text (domains/terminal/rules/grepfile.py) against GNU grep itself:
random texts of short words in one file or several, random patterns (fixed strings, anchored or
not, and regular expressions) and random sets of the options it answers (-n -c -v -i -w -x -o -l -m -A -B -C -NUM -H -h -F -E),
each run by `grep` on the files and by the state. Where the state answers, its output and exit code must be exactly grep's;
where it does not, the model would.

    .venv/bin/python benchmarks/grep_vs_gnu.py [--seed 1] [--count 1500] [--grep grep]

Prints how many the state answered, how many of those agree, and every disagreement.
"""

from __future__ import annotations

import argparse
import importlib
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.domain import load_domain  # noqa: E402

WORDS = ["def", "foo", "bar", "foo_bar", "Foo", "x", "ab", "(x)", "abab", "DEF", "1", "a-b", "#", ""]
PATTERNS = ["def", "foo", "bar", "foo_bar", "Foo", "x", "def foo", "", "a b", "(x)", "ab", "abab", "a-b",
            "^def", "foo$", "^$", "^x$", "$", "^", "#",
            # regular expressions (basic, or extended under -E: the same text means other things there)
            "de.", "f.*o", "o\\+", "[ab]", "[^ a]", "x*", "a\\|b", "\\(ab\\)*", "foo\\|bar$", "[[:upper:]]",
            "\\w\\+", "\\bx\\b", "a.b", ".", "a|b", "(ab)+", "fo+", "[0-9]+", "^[a-z]+$", "b{2}", "a\\{2\\}",
            "(x)|y", "^.*$", "\\(x\\)", "\\.", "[[:space:]]"]
OPTIONS = ["-n", "-c", "-v", "-i", "-w", "-x", "-o", "-A1", "-B2", "-C1", "-2", "-m2", "-m1", "-m3", "-A 3",
           "-A5", "-B4", "-C3", "-nA1", "-H", "-h", "-F", "-E", "-in", "-vn", "-on", "-wo", "-e", "-l", "-il", "-lv"]


def compare(seed: int, count: int, grep: str = "grep") -> tuple[int, int, list[tuple[list[str], str, str, str]]]:
    """(answered by the state, agreeing with `grep`, the disagreements: arguments, text, state, grep)."""
    rules = load_domain("terminal").rules
    grepfile = importlib.import_module(f"{type(rules).__module__}.grepfile")
    rng = random.Random(seed)
    answered, agreed, wrong = 0, 0, []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(count):
            names = ["f.txt"] if rng.random() < 0.7 else ["f.txt", "g.txt", "h.txt"][:rng.randint(2, 3)]
            texts = {}
            for name in names:
                lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 30))]
                texts[name] = text = "\n".join(lines) + ("\n" if rng.random() < 0.9 else "")
                (Path(folder) / name).write_text(text)
            args: list[str] = []
            for _ in range(rng.randint(0, 3)):
                args += rng.choice(OPTIONS).split()
            args += [rng.choice(PATTERNS), *names]
            try:
                if len(names) > 1:
                    several = grepfile.grep_files(args, texts.get)
                    if several is None:
                        continue
                    said, code = several
                else:
                    found = grepfile.grep(args)
                    if found is None:
                        continue
                    said, code = found[0](texts["f.txt"])
            except grepfile.Unknown:
                continue
            text = " | ".join(texts.values())
            answered += 1
            real = subprocess.run([grep, *args], cwd=folder, capture_output=True, text=True, timeout=30,
                                  env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"})
            if (said, code) == (real.stdout, real.returncode):
                agreed += 1
            else:
                wrong.append((args, text, f"{said!r} (exit {code})", f"{real.stdout!r} (exit {real.returncode})"))
    return answered, agreed, wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=1500)
    parser.add_argument("--grep", default="grep", help="the grep to compare with (the sandbox's: the host's GNU grep)")
    args = parser.parse_args()
    answered, agreed, wrong = compare(args.seed, args.count, args.grep)
    print(f"{args.count} random greps: the state answered {answered}, {agreed} exactly as {args.grep} prints them "
          f"({100 * agreed / max(answered, 1):.1f}%); the other {args.count - answered} go to the model")
    for argv, text, said, real in wrong:
        print(f"  DISAGREES grep {' '.join(argv)} on {text[:120]!r}\n    state: {said}\n    grep:  {real}")


if __name__ == "__main__":
    main()
