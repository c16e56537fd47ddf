"""The terminal state's `diff A B` (domains/terminal/rules/gnudiff.py: GNU diff's normal form, where
which lines it shows is certain) beside this machine's GNU diff, on the edits
benchmarks/gitdiff_vs_git.py generates: how many it writes, how many it leaves to the model, and
how many differ.

    .venv/bin/python benchmarks/gnudiff_vs_diff.py --kind text --seed 1 --count 600

Kinds as gitdiff_vs_git.py's: `text`, `code`, `many`. diff runs only on files in a temporary folder.
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

from benchmarks.gitdiff_vs_git import KINDS  # noqa: E402
from domains.terminal.rules import gnudiff  # noqa: E402


def compare(kind: str, seed: int, count: int, show: int = 2) -> tuple[int, int, int]:
    """(diffs written, left to the model, differing from GNU diff's) over `count` generated edits."""
    rng = random.Random(seed)
    taken = declined = differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        old_path, new_path = Path(tmp) / "a", Path(tmp) / "b"
        for _ in range(count):
            old, new = KINDS[kind](rng)
            if old == new:
                continue
            ours = gnudiff.normal(old, new)
            if ours is None:
                declined += 1
                continue
            taken += 1
            old_path.write_bytes(old.encode())
            new_path.write_bytes(new.encode())
            real = subprocess.run(["diff", str(old_path), str(new_path)], capture_output=True,
                                  env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}).stdout
            real = real.decode("utf-8", "surrogateescape")
            if ours != real:
                differ += 1
                if differ <= show:
                    print(f"DIFFERS: {old!r} -> {new!r}\n  diff:\n{real}\n  ours:\n{ours}")
    return taken, declined, differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=sorted(KINDS), default="text")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=600)
    args = parser.parse_args()
    taken, declined, differ = compare(args.kind, args.seed, args.count)
    print(f"{args.kind} edits, seed {args.seed}: {taken} diffs written, {declined} left to the model, "
          f"{differ} differ from GNU diff's")


if __name__ == "__main__":
    main()
