"""The terminal state's Python walker (domains/terminal/rules/pyrun.py) against python3 on programs
that fail: random project modules of small functions (arithmetic, items looked up, asserts, raises,
in-place operators, methods, calls several deep, comprehensions, lambdas, `try` statements that
catch, chain and raise again, the module's own exception classes, lines of every shape) and a
one-liner or a script that imports them and calls one. Each is run by python3 in a folder of its
own (a clean environment, stdout and stderr into one pipe, as the sandbox runs it) and walked;
where the walker answers, its output (the traceback, where the code printed, the exit code) must
be exactly Python's.

    .venv/bin/python benchmarks/pytraceback_vs_python.py [--seed 1] [--count 300] [--python python3]

Prints how many the walker answered (how many of those were tracebacks), how many agree, and every
disagreement. Nothing but the python3 named runs the programs, in temporary folders.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.domain import load_domain  # noqa: E402

VALUES = ["0", "1", "-2", "3", "2.5", "'ab'", "'é'", "[]", "[1, 2]", "{}", "{'k': 1}", "None", "(1,)", "''", "'7'",
          "'x'", "True"]
# One statement of a function of parameters a and b (each may raise for some arguments)
STATEMENTS = [
    "x = a / b", "x = a // (b - 1)", "x = a + b", "x = a * b - 1", "x = a[0]", "x = a[b]", "x = a['k']",
    "x = int(a)", "x = len(a) + b", "x = float(a) / len(b)", "x = a % b", "x = -a", "x = abs(a) + abs(b)",
    "assert a, 'a is empty'", "assert b != 0", "assert a < b, f'{a} >= {b}'", "assert len(a) > 1, a",
    "raise ValueError('no good')", "raise KeyError(a)", "raise RuntimeError", "raise TypeError(f'bad {b!r}')",
    "x = a\n    x += b", "x = [a]\n    x += b", "x = {'k': a}\n    x['k'] += b", "x = {}\n    x[a] += 1",
    "x = max(a, b)", "x = sorted([a, b])", "x = str(a) + b", "x = a.upper()", "x = (a +\n         b)",
    "x = {'é': 1}[a] + 1", "x = a[1:] + b", "x = [1, 2][b]", "x = round(a, b)", "x = divmod(a, b)",
    "x = a if b else a[0]", "x = b and a / b", "x = a == b or a[0]", "x = not a / b",
    "x = helper(a) + 1", "x = helper(b)\n    y = helper(a)", "print(a)", "print('got', a, b)",
    "x = Box(a).half()", "x = Box(b).value / a", "x = Box(a).doubled", "print(Box(a))", "print(Pair(Box(a), b))",
    "x = Pair(a, b).total()",
    "x = [v / b for v in [a]]", "x = [helper(v) for v in [b, a]]", "x = [[v / b] for v in [a]]",
    "x = [v for v in a if v[0]]", "x = sum(v for v in [a, b])", "x = sum(1 / v for v in [a, b])",
    "x = [1 for v in a / b]", "x = len(f'{a:>3}')",
    "try:\n        x = a / b\n    except ZeroDivisionError:\n        x = 0",
    "try:\n        x = a[b]\n    except (KeyError, IndexError) as e:\n        print('missing', e)\n        x = None",
    "try:\n        x = int(a)\n    except ValueError as e:\n        raise RuntimeError(f'bad: {e}')",
    "try:\n        x = a + b\n    finally:\n        print('tried')",
    "try:\n        x = helper(a)\n    except KeyError:\n        x = -1\n    else:\n        print('no error', x)",
    "try:\n        x = [a][b]\n    except Exception as e:\n        print(repr(e))\n        x = str(e)",
    "with open('data.txt') as f:\n        x = f.read().split()[b]", "x = 'n=%d' % a", "x = '%s-%5s|%r' % (a, b, a)",
    "with open('data.txt') as f:\n        for line in f:\n            x = int(line) + a",
    "raise NotFound(a)", "raise Bad(f'bad {a!r}')",
    "try:\n        x = a[b]\n    except LookupError:\n        raise NotFound(b)",
    "try:\n        raise Bad(a)\n    except ValueError as e:\n        x = repr(e) + str(e)",
    "x = Missing(a)\n    raise x",
    "try:\n        x = helper(a)\n    except AppError:\n        x = None",
    "x = spread(a, b, *[a], k=b)", "x = spread(*[a, b], **{'k': a})", "x = bump(a)", "x = bump(b) + COUNT",
    "print(*[a, b], sep='|')", "x = spread(*a)",
    "try:\n        x = a[b]\n    except (KeyError, IndexError) as e:\n        raise NotFound(b) from e",
    "try:\n        x = a / b\n    except ZeroDivisionError:\n        raise Bad(a) from None",
    "try:\n        x = helper(a)\n    except Exception:\n        print('failed')\n        raise",
    "try:\n        x = a + b\n    finally:\n        y = [a][b]",
    "try:\n        x = helper(a)\n    except Exception:\n        try:\n            x = [a][b]\n"
    "        finally:\n            print('inner')",
    "try:\n        x = a[b]\n    finally:\n        raise", "x = sorted([a, b], key=lambda v: v[0])",
    "x = (lambda v, w=b: v / w)(a)", "x = {v: v / b for v in [a]}", "x = [(v, w) for v in [a] for w in [b] if w]",
    "x = max([a, b], key=lambda v: len(v))", "x = min([b, a], key=helper)",
    "f = lambda v: [v][b]\n    x = f(a)",
    "try:\n        x = a / b\n    except ArithmeticError:\n        x = helper(b)", "x = 'é' + a + 'é'",
]
HELPERS = [
    "def helper(v):\n    return v / 2\n", "def helper(v):\n    return v[0]\n",
    "def helper(v):\n    assert v, 'empty'\n    return v\n",
    "def helper(v):\n    if not v:\n        raise ValueError('empty')\n    return v\n",
    "def helper(v):\n    total = 0\n    for item in v:\n        total += item\n    return total\n",
    "def helper(v):\n    return int(v) * 2\n",
]
BOX = """\
from dataclasses import dataclass

COUNT = 0


def bump(n):
    global COUNT
    COUNT += n
    return COUNT


def spread(first, *rest, k=0, **more):
    return [first + k, *rest] if more else first / k


class AppError(Exception):
    \"\"\"The app's.\"\"\"


class NotFound(AppError):
    pass


class Bad(ValueError):
    pass


class Missing(KeyError):
    pass


@dataclass
class Pair:
    left: object
    right: object = 0

    def total(self):
        return self.left + self.right


class Box:
    def __init__(self, value):
        self.value = value

    def half(self):
        return self.value / 2

    @property
    def doubled(self):
        return self.value * 2

    def __repr__(self):
        return 'Box(' + self.value + ')'
"""


def module(rng: random.Random) -> tuple[str, list[str]]:
    """A module's text and the names of its functions of (a, b)."""
    parts = [rng.choice(HELPERS), BOX]
    names = []
    for i in range(rng.randint(1, 3)):
        body = [rng.choice(STATEMENTS) for _ in range(rng.randint(1, 3))]
        if names and rng.random() < 0.5:
            body.append(f"x = {rng.choice(names)}(a, b)")
        body.append(rng.choice(["return x", "return a", "return (a, b)", "return x if 'x' in dir() else None"])
                    if any(s.startswith("x =") or "\n    x" in s for s in body) else "return a")
        indent = "    "
        names.append(f"f{i}")
        parts.append(f"def f{i}(a, b):\n" + "".join(indent + s + "\n" for s in body))
    if rng.random() < 0.2:
        name, call = rng.choice(["value", "total"]), f"{rng.choice(names)}({rng.choice(VALUES)}, {rng.choice(VALUES)})"
        parts.append(f"{name} = {call}\n")
    return "\n\n".join(parts), names


def driver(rng: random.Random, names: list[str]) -> tuple[str, str]:
    """('-c', CODE) or ('script', TEXT) calling one of the functions."""
    call = f"{rng.choice(names)}({rng.choice(VALUES)}, {rng.choice(VALUES)})"
    before = rng.choice(["", "print('start')\n", "print('a', 1)\nprint([2, 3])\n"])
    how = rng.choice([f"print({call})", f"result = {call}\nprint(result)", f"{call}", f"assert {call}, 'falsy'",
                      f"print('=', {call})"])
    code = f"from mod import {', '.join(names)}\n{before}{how}\n"
    if rng.random() < 0.5:
        return "-c", code.replace("\n", "; ").rstrip("; ") if rng.random() < 0.5 and "\n" not in how else code
    return "script", code


def run_python(python: str, folder: str, argv: list[str]) -> tuple[str, int]:
    done = subprocess.run([python, *argv], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30,
                          env={"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"})
    return done.stdout.decode("utf-8", "replace"), done.returncode


def walk(folder: str, kind: str, code: str) -> tuple[str, int] | None:
    rules = type(load_domain("terminal").rules).__module__
    pyeval, pyrun = (importlib.import_module(f"{rules}.{name}") for name in ("pyeval", "pyrun"))

    def find(dotted: str) -> str | None:
        path = os.path.join(folder, *dotted.split(".")) + ".py"
        return path if os.path.exists(path) else None

    def read(path: str) -> str | None:
        return Path(path).read_text() if os.path.isfile(path) else None

    project = pyrun.Project(find=find, read=lambda p: Path(p).read_text(),
                            beside=frozenset(n[:-3] for n in os.listdir(folder) if n.endswith(".py")))
    if kind == "-c":
        return pyrun.run(code, pyeval.Machine(folder, read, []), project)
    path = os.path.join(folder, "main.py")
    return pyrun.run_script(path, code, pyeval.Machine(folder, read, [], "main.py"), project, path)


def compare(seed: int, count: int, python: str = "python3") -> tuple[int, int, int, list[str]]:
    """(answered by the walker, of those tracebacks, agreeing with `python`, the disagreements)."""
    rng = random.Random(seed)
    answered = tracebacks = agree = 0
    differ: list[str] = []
    for _ in range(count):
        text, names = module(rng)
        kind, code = driver(rng, names)
        with tempfile.TemporaryDirectory() as folder:
            Path(folder, "mod.py").write_text(text)
            Path(folder, "data.txt").write_text("3\n14\nseven\n")
            walked = walk(folder, kind, code)
            if walked is None:
                continue
            if kind == "script":
                Path(folder, "main.py").write_text(code)
            real = run_python(python, folder, ["-c", code] if kind == "-c" else ["main.py"])
            real = (real[0].replace(folder, "{folder}"), real[1])
            walked = (walked[0].replace(folder, "{folder}"), walked[1])
        answered += 1
        tracebacks += walked[1] != 0
        if walked == real:
            agree += 1
        else:
            differ.append(f"--- mod.py\n{text}\n--- {kind}\n{code}\n--- walked (exit {walked[1]})\n{walked[0]}"
                          f"--- {python} (exit {real[1]})\n{real[0]}")
    return answered, tracebacks, agree, differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--python", default="python3")
    parser.add_argument("--show", type=int, default=10, help="disagreements printed in full")
    args = parser.parse_args()
    answered, tracebacks, agree, differ = compare(args.seed, args.count, args.python)
    print(f"{args.count} programs: {answered} answered ({tracebacks} tracebacks), {agree} agree, {len(differ)} differ")
    for d in differ[:args.show]:
        print(d)


if __name__ == "__main__":
    main()
