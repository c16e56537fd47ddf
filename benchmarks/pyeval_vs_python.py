"""The terminal state's one-liner walker (domains/terminal/rules/pyeval.py) against Python itself:
random expressions from a small grammar of what one-liners compute (numbers, strings, lists, tuples,
dicts, their methods, f-strings, comprehensions), each printed by `python3 -c` and by the walker.
Where the walker answers, its output must be exactly Python's; where it does not, the model would.

    .venv/bin/python benchmarks/pyeval_vs_python.py [--seed 1] [--count 600] [--python python3]

Prints how many the walker answered, how many of those agree, and every disagreement.
"""

from __future__ import annotations

import argparse
import importlib
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.domain import load_domain  # noqa: E402

ATOMS = ["0", "1", "-3", "7", "2.5", "0.1", "'ab'", "'x y'", "[1, 2]", "(3,)", "{'k': 1}", "True", "None", "''",
         "[]", "10**3", "'A,b'", "'é'"]
UNARY = ["-{}", "not {}", "~{}", "abs({})", "len({})", "str({})", "repr({})", "bool({})", "int({})", "float({})",
         "sorted({})", "list({})", "tuple({})", "{}.upper()", "{}.split(',')", "{}[0]", "{}[-1:]", "{}[::2]",
         "max({})", "min({})", "sum({})", "hex({})", "round({}, 1)", "{}.strip()", "{}.title()", "f'{{{}!r:>6}}'",
         "f'{{{}}}'", "{}.keys()", "{}.get('k')", "list(reversed({}))", "list(enumerate({}))", "[x for x in {}]",
         "{}.count(1)", "divmod({}, 3)", "ascii({})", "sorted({}, key=len)", "{}.zfill(4)"]
BINARY = ["{} + {}", "{} - {}", "{} * {}", "{} / {}", "{} // {}", "{} % {}", "{} ** {}", "{} < {}", "{} == {}",
          "{} in {}", "{} and {}", "{} or {}", "{} if {} else 0", "[{}, {}]", "({}, {})", "{{{}: {}}}", "{} & {}",
          "{} << {}", "max({}, {})", "{}.join({})", "list(zip({}, {}))"]


def expression(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(ATOMS)
    if rng.random() < 0.5:
        return rng.choice(UNARY).format(expression(rng, depth - 1))
    return rng.choice(BINARY).format(expression(rng, depth - 1), expression(rng, depth - 1))


NUMBERS = ["0", "1", "-3", "7", "12", "2.5", "0.1", "-0.5", "True", "10**3", "3e5"]
ARITHMETIC = ["{} + {}", "{} - {}", "{} * {}", "{} / {}", "{} // {}", "{} % {}", "{} ** 2", "-{}", "abs({})",
              "round({})", "round({}, 2)", "divmod({}, {})", "max({}, {})", "{} < {}", "int({})", "float({})",
              "{} >> 1", "{} & {}", "{} | {}", "{} ^ {}", "f'{{{}:.3f}}'", "f'{{{}:,}}'", "str({})"]


def arithmetic(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(NUMBERS)
    template = rng.choice(ARITHMETIC)
    return "(" + template.format(*[arithmetic(rng, depth - 1) for _ in range(template.count("{}"))]) + ")"


def compare(seed: int, count: int, python: str) -> tuple[int, int, int, list[tuple[str, str, str]]]:
    """(answered by the walker, agreeing with `python`, of those Python's tracebacks, the
    disagreements: code, walker, python)."""
    rules = load_domain("terminal").rules
    pyeval = importlib.import_module(f"{type(rules).__module__}.pyeval")
    rng = random.Random(seed)
    answered, agreed, errors, wrong = 0, 0, 0, []
    for _ in range(count):
        code = f"print({expression(rng, 3) if rng.random() < 0.5 else arithmetic(rng, 3)})"
        said = pyeval.outcome(code, pyeval.Machine("/tmp", lambda path: None))
        if said is None:
            continue
        answered += 1
        # (stdout and stderr into one pipe, as the sandbox gives them: a traceback before what was printed)
        real = subprocess.run([python, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=30, env={"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"})
        if (real.stdout, real.returncode) == said:
            agreed += 1
            errors += said[1] != 0
        else:
            wrong.append((code, repr(said), real.stdout[-300:]))
    return answered, agreed, errors, wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--python", default="python3", help="the Python to compare with (the sandbox's: python3)")
    args = parser.parse_args()
    answered, agreed, errors, wrong = compare(args.seed, args.count, args.python)
    print(f"{args.count} random one-liners: the walker answered {answered}, {agreed} exactly as {args.python} "
          f"prints them ({100 * agreed / max(answered, 1):.1f}%; {errors} of them its tracebacks); the other "
          f"{args.count - answered} go to the model")
    for code, said, real in wrong:
        print(f"  DISAGREES {code}\n    walker: {said!r}\n    python: {real!r}")


if __name__ == "__main__":
    main()
