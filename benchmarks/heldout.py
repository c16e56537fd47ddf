"""Fidelity on worlds no training saw (issue 18): the held-out worlds of the real corpus
(`scripts/record_corpus.py`), per command family, for each world model given, beside the trivial
baseline "repeat the previous observation" — and what a user is served with `--state full`
(the state's answer where it has one, proven byte-exact by state_vs_real.py; the model elsewhere).

    .venv/bin/python benchmarks/heldout.py [--episodes-per-world 3] [--adapter none --adapter default]
        [--data fixtures/real/corpus-heldout.jsonl.xz] [--out benchmarks/results/heldout.json]

Each `--adapter` is scored with `mcp-world eval` (teacher-forced: every step predicted from the
real prefix of its episode) on the embedded engine; `none` is the bare model, `default` the shipped
adapter, a folder any other. The change between the first two comes with a 95% paired bootstrap
interval over the steps. Prints a table per family and writes every step's scores to --out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.importing import read_records, read_text  # noqa: E402

FAMILIES = ["listing", "reading", "search", "counting", "editing", "git", "python", "pipes", "errors", "navigate",
            "other"]


def family_of(command: str) -> str:
    """The kind of a command line, from the line itself (so any real data can be reported per family)."""
    c = command.strip()
    words = c.split()
    first = words[0] if words else ""
    if "|" in c.replace("||", ""):
        return "pipes"
    if first in ("cd", "pwd"):
        return "navigate"
    if first == "git":
        return "git"
    if first in ("python", "python3", "pip", "pytest"):
        return "python"
    if first in ("grep", "find", "rg"):
        return "search"
    if first in ("wc", "du", "sort", "uniq"):
        return "counting"
    if first in ("cat", "head", "tail", "less", "sed") and "-i" not in words[1:2]:
        return "reading"
    if first in ("ls", "tree", "stat", "file"):
        return "listing"
    if ">" in c or first in ("mkdir", "touch", "rm", "mv", "cp", "sed", "chmod", "rmdir", "printf", "echo", "diff"):
        return "editing"
    return "errors" if first not in _KNOWN else "other"


_KNOWN = {"ls", "cat", "cd", "pwd", "git", "python3", "python", "grep", "find", "wc", "du", "sort", "head", "tail",
          "sed", "mkdir", "touch", "rm", "mv", "cp", "echo", "printf", "chmod", "rmdir", "diff", "whoami", "hostname",
          "uname", "id", "date", "env", "which", "pip", "pytest", "less", "tree", "stat", "file", "uniq", "export",
          "unset", "seq", "expr", "yes", "history", "alias", "type", "basename", "dirname", "realpath", "readlink",
          "test", "df", "free", "nproc", "groups", "umask", "ulimit", "md5sum", "tac", "rev", "nl", "cut", "tr", "awk"}


def sample(path: Path, per_world: int, seed: int) -> list[str]:
    """`per_world` episodes of each world, as raw lines (the family labels kept)."""
    by_world: dict[str, list[str]] = defaultdict(list)
    for line in read_text(path).splitlines():
        if line.strip():
            by_world[json.loads(line)["world"]["name"]].append(line)
    rng = random.Random(seed)
    out = []
    for world in sorted(by_world):
        lines = by_world[world]
        out += rng.sample(lines, min(per_world, len(lines)))
    return out


def eval_steps(data: Path, adapter: str, work: Path) -> list[dict]:
    out = work / f"eval-{adapter.replace('/', '_')}.json"
    cmd = [sys.executable, "-m", "mcp_world", "eval", "--data", str(data), "--json", str(out),
           "--db", str(work / "eval.db")]
    if adapter != "default":
        cmd += ["--adapter", adapter]
    print("$", " ".join(cmd[2:]), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT)
    return json.loads(out.read_text())["steps"]


async def state_answers(records) -> dict[tuple[str, int], str]:
    """The steps the state answers when serving with --state full, and its answer."""
    from benchmarks.state_vs_real import replay

    return {(rec.id, idx): answer.text async for rec, idx, _, _, answer in replay(records) if answer is not None}


def bootstrap(deltas: list[float], n: int = 2000, seed: int = 0) -> tuple[float, float]:
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(deltas, k=len(deltas))) / len(deltas) for _ in range(n))
    return means[int(0.025 * n)], means[int(0.975 * n) - 1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT / "fixtures" / "real" / "corpus-heldout.jsonl.xz")
    ap.add_argument("--episodes-per-world", type=int, default=3)
    ap.add_argument("--adapter", action="append", default=[], help="none, default or a folder (repeatable)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reuse", type=Path, help="a folder of earlier eval-*.json to read instead of running eval")
    ap.add_argument("--rescore", type=Path, help="an earlier result (heldout.json): its models' per-step scores are "
                    "reused and the state and served columns made again with today's rules")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "heldout.json")
    args = ap.parse_args()
    adapters = args.adapter or ["none", "default"]

    from mcp_world.metric import Embedder

    work = args.reuse or Path(tempfile.mkdtemp(prefix="heldout-"))
    if args.rescore:
        earlier = json.loads(args.rescore.read_text())["steps_detail"]
        for adapter in adapters:
            rows = [{"episode": r["episode"], "step": r["step"], "similarity": r[f"model {adapter}"]} for r in earlier]
            (work / f"eval-{adapter.replace('/', '_')}.json").write_text(json.dumps({"steps": rows}))
        args.reuse = work
    lines = sample(args.data, args.episodes_per_world, args.seed)
    data = work / "sample.jsonl"
    data.write_text("".join(line + "\n" for line in lines))
    records = read_records(data)
    raw = [json.loads(line) for line in lines]
    steps = [(rec.id, idx, s, raw_s.get("family") or family_of(s.arguments.get("command", "")))
             for rec, r in zip(records, raw) for idx, (s, raw_s) in enumerate(zip(rec.steps, r["steps"]))]
    worlds = sorted({rec.world.name for rec in records})
    print(f"{len(records)} episodes, {len(steps)} steps from {len(worlds)} held-out worlds", flush=True)

    embedder = Embedder()
    scores: dict[str, dict[tuple[str, int], float]] = {}
    # The trivial baseline: each step's prediction is the previous step's real observation.
    prev: dict[tuple[str, int], float] = {}
    for rec in records:
        last = ""
        for idx, s in enumerate(rec.steps):
            prev[(rec.id, idx)] = embedder.similarity(last, s.observation)
            last = s.observation
    scores["repeat previous"] = prev
    answers = asyncio.run(state_answers(records))
    truth = {(rec.id, idx): s.observation for rec in records for idx, s in enumerate(rec.steps)}
    for adapter in adapters:
        cached = work / f"eval-{adapter.replace('/', '_')}.json"
        rows = json.loads(cached.read_text())["steps"] if args.reuse and cached.exists() else \
            eval_steps(data, adapter, work)
        model = {(r["episode"], r["step"]): r["similarity"] for r in rows}
        scores[f"model {adapter}"] = model
        served = {k: (embedder.similarity(answers[k], truth[k]) if k in answers else v) for k, v in model.items()}
        scores[f"served {adapter}"] = served

    names = list(scores)
    table: dict[str, dict[str, float]] = {}
    counts: dict[str, int] = defaultdict(int)
    for _, _, _, fam in steps:
        counts[fam] += 1
    print(f"\n{'family':10} {'steps':>5} {'state':>6} " + " ".join(f"{n:>16}" for n in names))
    for fam in [f for f in FAMILIES if counts[f]] + ["all"]:
        keys = [(e, i) for e, i, _, f in steps if fam in ("all", f)]
        row = {n: sum(scores[n].get(k, 0.0) for k in keys) / len(keys) for n in names}
        table[fam] = row
        answered = sum(k in answers for k in keys) / len(keys)
        print(f"{fam:10} {len(keys):5} {answered:6.0%} " + " ".join(f"{row[n]:16.3f}" for n in names))
    result = {"data": str(args.data.relative_to(ROOT) if args.data.is_relative_to(ROOT) else args.data),
              "worlds": worlds, "episodes": len(records), "steps": len(steps), "per_family": table,
              "state_answered": len(answers)}
    if len(adapters) >= 2:
        a, b = f"model {adapters[0]}", f"model {adapters[1]}"
        keys = list(scores[a])
        deltas = [scores[b][k] - scores[a][k] for k in keys]
        lo, hi = bootstrap(deltas)
        better = sum(d > 0.01 for d in deltas)
        worse = sum(d < -0.01 for d in deltas)
        print(f"\n{b} - {a}: {sum(deltas) / len(deltas):+.3f} (95% paired bootstrap {lo:+.3f} to {hi:+.3f}); "
              f"{better} steps better, {worse} worse")
        result["change"] = {"from": a, "to": b, "mean": sum(deltas) / len(deltas), "low": lo, "high": hi,
                            "better": better, "worse": worse}
    result["steps_detail"] = [{"episode": e, "step": i, "family": f, "command": s.arguments.get("command"),
                               "state": (e, i) in answers, **{n: round(scores[n].get((e, i), 0.0), 4) for n in names}}
                              for e, i, s, f in steps]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
