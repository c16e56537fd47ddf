"""The terminal state's `git diff` (domains/terminal/rules/gitdiff.py and xdiff.py, git's diff written
in Python) beside this machine's git, on generated edits: how many patches it writes, how many it
leaves to the model, and how many differ from git's (the patch, or `--numstat`'s counts).

    .venv/bin/python benchmarks/gitdiff_vs_git.py --kind text --seed 1 --count 600
    .venv/bin/python benchmarks/gitdiff_vs_git.py --kind code --seed 1 --count 300
    .venv/bin/python benchmarks/gitdiff_vs_git.py --kind many --seed 1 --count 200
    .venv/bin/python benchmarks/gitdiff_vs_git.py --kind stat --seed 1 --count 200

Kinds: `text`, lines of a small pool (code-like, blank, braces, a form feed, a `\\r`, letters past
ASCII) and numbered ones, with rewrites, inserts, deletions and moves, now and then without a final
newline; `code`, Python-like blocks (defs, classes, ifs, tabs and spaces) added, removed and edited,
where git's indent heuristic places them; `many`, blocks of new lines holding a line the old file
has many times (git's "multiple match" rule); `stat`, `git diff --stat` of several files with names
from 2 to 150 characters and changes from 1 to 1,900 lines (git's scaled graph, its names cut to
"..."). Git runs only in a temporary folder.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domains.terminal.rules import gitdiff, gitobjects  # noqa: E402

POOL = ["def f():", "    return 1", "", "", "x = 1", "import os", "class A:", "    pass", "# c", "}", "{", "\tif x:",
        "\t\ty()", "    def g(self):", "        return self", "print(x)", "$v", "_p = 2", "  ", "end", "\x0cpage", "a\rb",
        "é = 1", "ñame()"]
BODY = ["return x", "pass", "x = 1", "if x:", "    return y", "else:", "    return None", "}", "", "# done"]


def text_edit(rng: random.Random) -> tuple[str, str]:
    sparse = rng.random() < 0.4

    def line() -> str:
        if sparse and rng.random() < 0.5:
            return rng.choice(["", "}", "    }"]) + "\n"
        return (rng.choice(POOL) if rng.random() < 0.7 else f"line {rng.randint(0, 30)}") + "\n"

    old = [line() for _ in range(rng.randint(0, rng.choice([10, 40, 120])))]
    new = list(old)
    for _ in range(rng.randint(1, rng.choice([2, 6, 15]))):
        op, at = rng.random(), rng.randint(0, len(new))
        if op < 0.25 and new:
            new[min(at, len(new) - 1)] = line()
        elif op < 0.55:
            new[at:at] = [line() for _ in range(rng.randint(1, 4))]
        elif op < 0.8 and new:
            del new[min(at, len(new) - 1):min(at, len(new) - 1) + rng.randint(1, 4)]
        elif len(new) > 3:
            i, k = rng.randint(0, len(new) - 2), rng.randint(1, 3)
            block = new[i:i + k]
            del new[i:i + k]
            j = rng.randint(0, len(new))
            new[j:j] = block
    old_text, new_text = "".join(old), "".join(new)
    return (old_text[:-1] if old_text and rng.random() < 0.15 else old_text,
            new_text[:-1] if new_text and rng.random() < 0.15 else new_text)


def code_edit(rng: random.Random) -> tuple[str, str]:
    def block(indent: str) -> list[str]:
        lines = [indent + rng.choice(["def f():", "def g(x):", "class A:", "if x:", "for i in y:", "while 1:", "{"])]
        for _ in range(rng.randint(1, 4)):
            lines.append("" if rng.random() < 0.15 else indent + rng.choice(["    ", "\t", "        "]) + rng.choice(BODY))
        if rng.random() < 0.3:
            lines.append(indent + "}")
        return lines

    old: list[str] = []
    for _ in range(rng.randint(1, 8)):
        old += block(rng.choice(["", "", "    "])) + [""] * rng.choice([0, 1, 1, 2])
    new = list(old)
    for _ in range(rng.randint(1, 3)):
        at, op = rng.randint(0, len(new)), rng.random()
        if op < 0.5:
            new[at:at] = block(rng.choice(["", "    "])) + [""] * rng.choice([0, 1, 2])
        elif op < 0.8:
            del new[at:at + rng.randint(1, 5)]
        else:
            new[at:at] = [rng.choice(["    ", ""]) + rng.choice(BODY)]
    return "".join(x + "\n" for x in old), "".join(x + "\n" for x in new)


def many_edit(rng: random.Random) -> tuple[str, str]:
    old = [line for i in range(rng.randint(8, 30)) for line in (f"l{i}\n", rng.choice(["}\n", "\n"]))]
    new = list(old)
    for _ in range(rng.randint(1, 3)):
        block = [f"n{rng.randint(0, 10**6)}\n" if rng.random() < 0.8 else rng.choice(["}\n", "\n"])
                 for _ in range(rng.randint(3, 12))]
        at = rng.randint(0, len(new))
        new[at:at + (rng.randint(1, 6) if rng.random() < 0.5 else 0)] = block
    return "".join(old), "".join(new)


KINDS = {"text": text_edit, "code": code_edit, "many": many_edit}


def compare(kind: str, seed: int, count: int, show: int = 2) -> tuple[int, int, int]:
    """(patches written, left to the model, differing from git's) over `count` generated edits."""
    rng = random.Random(seed)
    taken = declined = differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        env = {"PATH": "/usr/bin:/bin", "HOME": tmp, "LANG": "C.UTF-8"}

        def git(*args: str) -> str:
            return subprocess.run(["git", *args], cwd=tmp, capture_output=True, env=env, check=True).stdout.decode(
                "utf-8", "surrogateescape")

        git("init", "-q")
        git("config", "user.name", "a")
        git("config", "user.email", "a@b.c")
        path = Path(tmp) / "f.txt"
        for _ in range(count):
            old, new = KINDS[kind](rng)
            if old == new:
                continue
            ours = gitdiff.patch("f.txt", old, new, gitobjects.blob_id(old), gitobjects.blob_id(new))
            if ours is None:
                declined += 1
                continue
            path.write_bytes(old.encode())
            git("add", "f.txt")
            git("commit", "-qm", "x", "--allow-empty")
            path.write_bytes(new.encode())
            taken += 1
            real, numbers = git("diff"), git("diff", "--numstat").split()[:2]
            counted = gitdiff.counts(old, new)
            if ours[0] != real or counted is None or [str(n) for n in counted] != numbers:
                differ += 1
                if differ <= show:
                    print(f"DIFFERS: {old!r} -> {new!r}\n  git:\n{real}\n  ours:\n{ours[0]}")
    return taken, declined, differ


def _changed_files(rng: random.Random) -> list[tuple[str, str, str]]:
    """(name, old text, new text) for a few files: names deep or long enough to be cut, changes
    small and large enough to be scaled."""
    files = []
    for i in range(rng.randint(1, 6)):
        folders = ["".join(rng.choice("abcdefgh_") for _ in range(rng.randint(1, rng.choice([3, 8, 20, 40]))))
                   for _ in range(rng.randint(0, 4))]
        name = "/".join(folders + [f"f{i}" + "x" * rng.randint(0, rng.choice([2, 10, 60])) + ".py"])
        kept = rng.randint(0, 300)
        old = [f"old {i} {j}\n" for j in range(kept)]
        new = old[rng.randint(0, kept):] + [f"new {j}\n" for j in range(rng.choice([0, 1, 2, 5, 30, 100, 400, 1500]))]
        if old != new:
            files.append((name, "".join(old), "".join(new)))
    return files


def compare_stats(seed: int, count: int, show: int = 2) -> tuple[int, int, int]:
    """(diffstats written, left to the model, differing from git's) over `count` generated repositories."""
    rng = random.Random(seed)
    taken = declined = differ = 0
    for _ in range(count):
        files = _changed_files(rng)
        with tempfile.TemporaryDirectory() as tmp:
            env = {"PATH": "/usr/bin:/bin", "HOME": tmp, "LANG": "C.UTF-8", "GIT_AUTHOR_NAME": "a",
                   "GIT_AUTHOR_EMAIL": "a@b.c", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b.c"}

            def git(*args: str) -> str:
                return subprocess.run(["git", *args], cwd=tmp, capture_output=True, env=env,
                                      check=True).stdout.decode()

            def write(name: str, text: str) -> None:
                (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
                (Path(tmp) / name).write_text(text)

            git("init", "-q")
            for name, old, _ in files:
                write(name, old)
            git("add", "-A")
            git("commit", "-qm", "x", "--allow-empty")
            for name, _, new in files:
                write(name, new)
            ours = gitdiff.body(sorted(((name, old, new, "", "") for name, old, new in files),
                                       key=lambda change: change[0].encode()), "stat")
            if ours is None:
                declined += 1
                continue
            taken += 1
            real = git("diff", "--stat")
            if ours != real:
                differ += 1
                if differ <= show:
                    print(f"DIFFERS:\n  git:\n{real}\n  ours:\n{ours}")
    return taken, declined, differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=sorted(KINDS) + ["stat"], default="text")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=600)
    args = parser.parse_args()
    if args.kind == "stat":
        taken, declined, differ = compare_stats(args.seed, args.count)
        print(f"diffstats, seed {args.seed}: {taken} written, {declined} left to the model, {differ} differ from git's")
        return
    taken, declined, differ = compare(args.kind, args.seed, args.count)
    print(f"{args.kind} edits, seed {args.seed}: {taken} patches written, {declined} left to the model, "
          f"{differ} differ from git's")


if __name__ == "__main__":
    main()
