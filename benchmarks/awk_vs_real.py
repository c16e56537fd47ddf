"""The terminal state's awk (domains/terminal/rules/awk.py) against real awks: random programs of the
kinds agents type (fields, sums, counts, patterns, printf, string functions, loops) over random
texts of words and numbers, with and without `-F` (one character, or a longer one of no regex
specials), run by the sandbox's awk (mawk) and, where one is given, gawk too. Where the state
answers, its output and exit code must be exactly what each awk prints; where the two awks part, the
state must not answer (a real machine may have either).

    .venv/bin/python benchmarks/awk_vs_real.py [--seed 1] [--count 1500] [--awk awk] [--gawk PATH]

Prints how many the state answered, how many of those agree, and every disagreement. (Debian's gawk
unpacked without installing it: `apt-get download gawk libmpfr6 libsigsegv2` and `dpkg -x` each
into a folder, then `--gawk FOLDER/usr/bin/gawk`; its libraries are found beside it.)
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.domain import load_domain  # noqa: E402

PROGRAMS = [
    "{print $@F}", "{print $@F, $@F}", "{print $NF}", "{print $(NF-1)}", "{print NR, $0}", '{print NR": "$@F}',
    "NR==@N", "NR>@N", "NR>=@N && NR<=@M", "NF", "NF>@N", "length > @N", "length($@F) > @N", "/@W/", "!/@W/",
    "$@F ~ /@W/", '$@F == "@W"', "$@F > @N", '$@F < "@W"', "$@F != $@F", "{s += $@F} END {print s}",
    "{s += $@F} END {print s/NR}", "END {print NR}", "{n += NF} END {print n}", "!seen[$@F]++",
    '{c[$@F]++} END {print c["@W"]}', '{printf "%-10s %5d\\n", $@F, $@F}', '{printf "%s,%s\\n", $@F, $@F}',
    '{printf "%.2f\\n", $@F}', '{printf "%5.1e|%g|%x\\n", $@F, $@F, $@F}', '{$@F = "@W"; print}',
    "{print toupper($@F)}", "{print substr($0, @N, @M)}", "{print length($@F)}", '{print index($0, "@W")}',
    '{gsub(/@W/, "X"); print}', '{sub(/@W/, "X"); print}', '{n = split($0, a, ","); print n, a[1]}',
    "NR==@N {print; exit}", '{if ($@F > @N) print "big"; else print "small"}',
    "{for (i = 1; i <= NF; i++) s += $i} END {print s}", "{print $@F * @N}", "{print $@F + 0}",
    "{print int($@F / @M)}", "{print $@F % @M}", "{print -$@F}", "{print $@F ^ 2}", "{print $@F $@F}",
    "BEGIN {OFS = \"-\"} {$1 = $1; print}", "BEGIN {x = @N; print x * @M, x / @M}", "{print ($@F > $@F)}",
    "{print NF, $NF}", "{t = t $@F} END {print t}", "$@F", "{print ($@F ? \"yes\" : \"no\")}", "NR==1, NR==2",
    '{printf "%d items\\n", $@F}', "{print length}", "END {print $0}", "{a[NR] = $@F} END {print a[1] a[@N]}",
    "{while (i < @N) {i++; s = s i}} END {print s}", "{print $@F > \"out.txt\"}",
    "{x += $@F} END {printf \"%.3f\\n\", x}", "NR % @M == 0 {print NR, $@F}", "{print $@F == @N}",
    "$@F == @N || $@F == \"@W\"", "{print substr($@F, 2)}", "{if (!($@F in seen)) {seen[$@F]; print}}",
    "{print (NR > 1 ? \",\" : \"\") $@F}", "BEGIN {FS = \",\"} {print $@F}", "{$0 = $@F; print NF}",
    "{print; next; print \"never\"}", "END {exit @N}", "{print $@F / @M}", "{printf \"%5s|%-5s|\\n\", $@F, $@F}",
]
WORDS = ["a", "b", "foo", "Foo", "bar", "x", "10", "9", "-3", "2.5", "0", "1e3", "007", "+4", "-7", "4.5", "-2.5",
         "15", "3abc", "1,5", "a:b", ""]
ODD = ["0x1A", "inf", "nan", "-inf"]  # (numbers the awks read apart: one line in twenty has one)
SEPARATORS = [None, ":", ",", "\t", "|", ".", "==", ", ", "::", "- "]


def _program(rng: random.Random) -> str:
    program = rng.choice(PROGRAMS)
    for mark, choices in (("@F", ["1", "2", "3", "0"]), ("@N", ["1", "2", "3", "0", "10"]), ("@M", ["2", "3", "4"]),
                          ("@W", ["a", "foo", "b", "1", "^a", "o$", "x", "10"])):
        while mark in program:
            program = program.replace(mark, rng.choice(choices), 1)
    return program


def compare(seed: int, count: int, awk: str = "awk", gawk: str | None = None):
    """(answered by the state, agreeing with every awk, the disagreements: argv, text, state, awks)."""
    rules = load_domain("terminal").rules
    walker = importlib.import_module(f"{type(rules).__module__}.awk")
    rng = random.Random(seed)
    answered, agreed, wrong = 0, 0, []
    env = {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"}
    for _ in range(count):
        sep = rng.choice(SEPARATORS)
        joiner = sep if sep else rng.choice([" ", "  ", "\t", " "])
        lines = [joiner.join(rng.choice(ODD if rng.random() < 0.012 else WORDS) for _ in range(rng.randint(0, 4)))
                 for _ in range(rng.randint(0, 8))]
        text = "\n".join(lines) + ("\n" if rng.random() < 0.9 else "")
        argv = (["-F", sep] if sep else []) + [_program(rng)]
        parsed = walker.command(argv)
        if parsed is None:
            continue
        program, fs, assigns, _ = parsed
        try:
            said = walker.run(program, text, fs, assigns)
        except walker.Unknown:
            continue
        answered += 1
        reals = []
        for binary in [awk] + ([gawk] if gawk else []):
            lib = {"LD_LIBRARY_PATH": str(Path(binary).resolve().parent.parent / "lib/x86_64-linux-gnu")} if binary == gawk else {}
            r = subprocess.run([binary, *argv], input=text, capture_output=True, text=True, timeout=30, env={**env, **lib})
            reals.append((r.stdout, r.returncode))
        if all(real == said for real in reals):
            agreed += 1
        else:
            wrong.append((argv, text, said, reals))
    return answered, agreed, wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=1500)
    parser.add_argument("--awk", default="awk", help="the sandbox's awk (Debian's: mawk)")
    parser.add_argument("--gawk", default=os.environ.get("GAWK"), help="a gawk to compare with too")
    args = parser.parse_args()
    answered, agreed, wrong = compare(args.seed, args.count, args.awk, args.gawk)
    print(f"{args.count} random awk programs: the state answered {answered}, {agreed} exactly as "
          f"{' and '.join(filter(None, [args.awk, args.gawk]))} print them ({100 * agreed / max(answered, 1):.1f}%); "
          f"the other {args.count - answered} go to the model")
    for argv, text, said, reals in wrong:
        print(f"  DISAGREES awk {argv} on {text[:100]!r}\n    state: {said!r}\n    real:  {reals!r}")


if __name__ == "__main__":
    main()
