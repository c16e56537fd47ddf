"""The real steps of every domain, split by world, for an adapter trained on all of them.

Train worlds (written to --out, one interchange file): every recorded browser site but pydoc and the
MkDocs handbook, the desktop's two Mousepad worlds of notes and todos, the MCP servers' sessions but
git's, sqlite's and fetch's, and a share (--terminal-share) of the terminal corpus's 45 train worlds'
episodes. Held-out worlds (never written here; `benchmarks/adapter_domains.py --sets heldout` scores
them): the pydoc and MkDocs sites, Mousepad on a Python project and galculator, the git, sqlite and
fetch MCP servers, and the terminal corpus's 19 held-out worlds (`benchmarks/heldout.py`).

    .venv/bin/python scripts/domain_mix.py --out runs/mix/train.jsonl

`--domain mcp --others-share 0.2` writes one domain's train worlds, with that share of every other
domain's train episodes beside them (so that an adapter continued on one domain keeps the others).
"""

from __future__ import annotations

import argparse
import json
import lzma
import random
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "fixtures" / "real"
# world-name prefixes held out of training, per file
HELD_OUT = {
    "pages.jsonl.xz": ("pydoc", "mkdocs"),
    "desktop.jsonl.xz": ("mousepad-python", "galculator"),
    "git-mirror.jsonl": ("git",),
    "memory-mirror.jsonl": (),
    "mcp-servers.jsonl.xz": ("sqlite", "fetch"),
}


def lines(path: Path) -> list[str]:
    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--terminal-share", type=float, default=0.25,
                    help="share of the terminal corpus's train episodes taken (the rest of the mix is every "
                         "train world of the other domains)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--domain", default=None, help="only this domain's train worlds in full (e.g. mcp)")
    ap.add_argument("--per-kind", type=int, default=None,
                    help="at most this many episodes of --domain's worlds of one kind (the world's name up to its "
                         "first '-': filesystem-sniffio and filesystem-idna are one kind), so one server does not "
                         "outweigh the others")
    ap.add_argument("--others-share", type=float, default=0.0,
                    help="with --domain: the share of the other domains' train episodes taken beside it")
    args = ap.parse_args()
    pick = random.Random(args.seed + 1)

    kinds: Counter = Counter()

    def keep(line: str) -> bool:
        world = json.loads(line)["world"]
        if args.domain is None:
            return True
        if args.domain not in world["domains"]:
            return pick.random() < args.others_share
        kinds[world["name"].split("-")[0]] += 1
        return args.per_kind is None or kinds[world["name"].split("-")[0]] <= args.per_kind

    taken: Counter = Counter()
    steps: Counter = Counter()
    out: list[str] = []
    for name, held in HELD_OUT.items():
        for line in lines(REAL / name):
            world = json.loads(line)["world"]["name"]
            if (world.startswith(held) if held else False) or not keep(line):
                continue
            out.append(line)
            taken[name] += 1
            steps[name] += len(json.loads(line)["steps"])
    terminal = lines(REAL / "corpus-train.jsonl.xz")
    random.Random(args.seed).shuffle(terminal)
    for line in terminal[:round(len(terminal) * args.terminal_share)]:
        if not keep(line):
            continue
        out.append(line)
        taken["corpus-train.jsonl.xz"] += 1
        steps["corpus-train.jsonl.xz"] += len(json.loads(line)["steps"])
    random.Random(args.seed).shuffle(out)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(out) + "\n", encoding="utf-8")
    for name in taken:
        print(f"{name}: {taken[name]} episodes, {steps[name]} steps")
    print(f"{args.out}: {len(out)} episodes, {sum(steps.values())} steps")


if __name__ == "__main__":
    main()
