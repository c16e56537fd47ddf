"""The terminal state's syntax errors (domains/terminal/rules/pysyntax.py) against python3: small
programs of the shapes agents write (functions, classes, loops, comprehensions, f-strings, dicts,
strings, decorators, `with` and `try` blocks), each broken by a random edit (a character dropped or
added, a bracket, colon, quote or comma put in, a line indented or outdented, a tab, a line doubled).
Each that python3 will not compile is run five ways, as the sandbox runs them: `python3 -c CODE`,
`python3 FILE` (in a folder of its own), `python3 -` (fed on stdin), `python3 -c 'import prog'` and
`python3 -m py_compile FILE`;
where the state answers, its output and exit code must be exactly Python's.

    .venv/bin/python benchmarks/pysyntax_vs_python.py [--seed 1] [--count 300] \
        [--python /usr/bin/python3]

Prints how many broken programs were tried, how many the state answered each way, and every
disagreement. Nothing but the python3 named runs the programs, in temporary folders.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domains.terminal.rules import pysyntax  # noqa: E402

PROGRAMS = [
    "def add(a, b):\n    return a + b\n\n\nprint(add(1, 2))\n",
    "import sys\n\nfor i, arg in enumerate(sys.argv):\n    if i and arg:\n        print(f'{i}: {arg!r}')\n",
    "class Box:\n    def __init__(self, value):\n        self.value = value\n\n    def half(self):\n"
    "        return self.value / 2\n",
    "items = [x * 2 for x in range(10) if x % 3]\ntotal = {k: v for k, v in zip('abc', items)}\nprint(total)\n",
    "try:\n    n = int('7')\nexcept ValueError as e:\n    print('bad', e)\nelse:\n    print(n)\nfinally:\n"
    "    pass\n",
    "with open('notes.txt') as f:\n    lines = [line.strip() for line in f]\nprint(len(lines))\n",
    "from dataclasses import dataclass\n\n\n@dataclass\nclass Note:\n    title: str\n    done: bool = False\n",
    "data = {\n    'name': \"notes\",\n    'tags': ['a', 'b'],\n    'count': 3,\n}\nprint(data['name'])\n",
    "def walk(tree, depth=0):\n    for key, value in tree.items():\n        print('  ' * depth + key)\n"
    "        if isinstance(value, dict):\n            walk(value, depth + 1)\n",
    "while True:\n    line = input()\n    if not line:\n        break\n    print(line.upper())\n",
    "x = 1\nif x > 0 and x < 10:\n    print('small')\nelif x >= 10:\n    print('big')\nelse:\n    print('neg')\n",
    "text = \"\"\"a long\nstring\"\"\"\nprint(text.splitlines())\n",
    "async def fetch(session, url):\n    async with session.get(url) as r:\n        return await r.text()\n",
    "lambda_sq = lambda v: v ** 2\nprint(list(map(lambda_sq, [1, 2, 3])))\n",
    "def f(*args, **kwargs):\n    return args, kwargs\n\n\nprint(f(1, 2, k=3))\n",
    "name = 'world'\nprint(f\"hello {name.title()} {len(name):>4}\")\n", "s = 'café' + \"naïve\"\nprint(s, b'x')\n",
    "match command.split():\n    case ['go', direction]:\n        print(direction)\n    case _:\n        pass\n",
    "nums = [1, 2, 3]\nassert sum(nums) == 6, 'sum'\ndel nums[0]\nglobal_count = 0\n",
    "import os\n\nfor root, dirs, files in os.walk('.'):\n    dirs[:] = [d for d in dirs if d != '.git']\n"
    "    print(root, len(files))\n",
    "def gen(n):\n    yield from range(n)\n\n\nprint(sum(gen(5)))\n",
]
INSERTS = ["(", ")", "[", "]", "{", "}", ":", ",", "'", '"', "\n", " ", "    ", "\t", "=", ".", "def ", "return",
           "f'", "\\", "@", "*", "if ", "else", "lambda", "0x", "1_"]


def broken(rng: random.Random) -> str:
    """A program with one to three random edits."""
    code = rng.choice(PROGRAMS)
    for _ in range(rng.randint(1, 3)):
        edit, at = rng.randrange(5), rng.randrange(len(code))
        if edit == 0:
            code = code[:at] + code[at + 1:]
        elif edit in (1, 2):
            code = code[:at] + rng.choice(INSERTS) + code[at:]
        else:
            lines = code.split("\n")
            i = rng.randrange(len(lines))
            lines[i] = ("    " + lines[i]) if edit == 3 else lines[i][rng.choice([1, 2, 4]):] \
                if rng.random() < 0.7 else lines[i] + "\n" + lines[i]
            code = "\n".join(lines)
    return code


def _compiles(code: str) -> bool:
    """This Python compiles the code (a name no file has: nothing of the host's is read)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(code, "/dev/null/prog.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _imported(error: SyntaxError | None) -> str | None:
    """What `python3 -c 'import prog'` prints where prog.py does not compile (pyimport.py's traceback)."""
    if error is None:
        return None
    return 'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n' + error.drawn  # type: ignore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--python", default="/usr/bin/python3", help="the world's python3 (the sandbox's)")
    options = parser.parse_args()
    rng = random.Random(options.seed)
    tried, answered, agree, wrong = 0, {"-c": 0, "file": 0, "stdin": 0, "import": 0, "py_compile": 0}, 0, []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "prog.py"
        while tried < options.count:
            code = broken(rng)
            if "\0" in code:
                continue
            if _compiles(code):
                continue  # (never run: only a program that does not compile, which runs nothing, is given to python3)
            path.write_text(code)
            runs = {
                "-c": ([options.python, "-c", code], pysyntax.error(code, "<string>")),
                "file": ([options.python, str(path)], pysyntax.error(code, str(path))),
                "stdin": ([options.python, "-"], pysyntax.error(code, "<stdin>")),
                "import": ([options.python, "-c", "import prog"], _imported(pysyntax.raised(code, str(path)))),
                "py_compile": ([options.python, "-m", "py_compile", "prog.py"],
                               pysyntax.py_compile_error(code, "prog.py")),
            }
            tried += 1
            for way, (argv, said) in runs.items():
                if said is None:
                    continue
                answered[way] += 1
                ran = subprocess.run(argv, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env={}, timeout=30, input=code if way == "stdin" else "")
                if ran.returncode != 1 or "Error" not in ran.stdout:
                    raise SystemExit(f"python3 ran a program this Python does not compile: {code!r}")
                if ran.stdout == said and ran.returncode == 1:
                    agree += 1
                else:
                    wrong.append((way, code, said, ran.stdout, ran.returncode))
    print(f"{tried} broken programs; answered: " + ", ".join(f"{k} {v}" for k, v in answered.items()) +
          f"; {agree} of {sum(answered.values())} exactly as {options.python} printed them")
    for way, code, said, real_said, code_rc in wrong:
        print(f"--- {way}: {code!r}\n  said: {said!r}\n  real: {real_said!r} (exit {code_rc})")


if __name__ == "__main__":
    main()
