"""An adapter per domain, on real steps of each: the MCP servers' mirror sessions (50 steps), real
web apps' pages (pydoc's 24 and Datasette's first 30) and real GTK applications' accessibility trees
(three episodes of each of the four desktop worlds), teacher-forced (`mcp-world eval`), beside the
bare model and the trivial baseline "repeat the previous observation" (a GUI's screen before, "" at
an episode's first step elsewhere), and what a user is served with --state full (the state's answer
where it answers, the model's elsewhere). `serve` reads the result from the adapter's report.json
(`domains`) and never serves an adapter on a domain where it measured worse than the bare model.

    .venv/bin/python benchmarks/adapter_domains.py --adapter none --adapter adapters/devbox-rwml \
        --adapter adapters/corpus-sft [--work runs/domains] [--reuse] [--write adapters/corpus-sft]

The first --adapter is the baseline the others are compared with (paired bootstrap interval over the
same steps); --write puts the rows of the last one into that folder's report.json. About 25 minutes
an adapter on 2 cores; --reuse keeps the eval reports already in --work.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.importing import read_records  # noqa: E402
from mcp_world.metric import Embedder  # noqa: E402
from mcp_world.training import paired_change  # noqa: E402

REAL = ROOT / "fixtures" / "real"
# name: (domain, files, which worlds, episodes per world (None: all), steps scored (None: all))
SETS = {
    "mcp": ("mcp", ["git-mirror.jsonl", "memory-mirror.jsonl"], None, None, None),
    "pydoc": ("browser", ["pages.jsonl.xz"], "pydoc", None, 24),
    "datasette": ("browser", ["pages.jsonl.xz"], "datasette", None, 30),
    "pelican": ("browser", ["pages.jsonl.xz"], "pelican", None, 25),
    "mkdocs": ("browser", ["pages.jsonl.xz"], "mkdocs", None, 25),
    "desktop": ("os", ["desktop.jsonl.xz"], None, 3, None),
}
DESCRIBED = {
    "mcp": "fixtures/real/git-mirror.jsonl, fixtures/real/memory-mirror.jsonl",
    "browser": "fixtures/real/pages.jsonl.xz: the first pages of each set in --sets (pydoc 24, Datasette 30, "
               "the Pelican blog 25, the MkDocs site 25)",
    "os": "fixtures/real/desktop.jsonl.xz: the first 3 episodes of each of its 4 worlds",
}


def subset(name: str, work: Path) -> Path:
    """The set's episodes as one file (the worlds and episodes it takes, in recorded order)."""
    _, files, world, per_world, _ = SETS[name]
    out = work / f"{name}.jsonl"
    taken: Counter = Counter()
    with out.open("w", encoding="utf-8") as f:
        for file in files:
            for line in read_lines(REAL / file):
                record = json.loads(line)
                w = record["world"]["name"]
                if world and not w.startswith(world) or per_world is not None and taken[w] >= per_world:
                    continue
                taken[w] += 1
                f.write(line.rstrip("\n") + "\n")
    return out


def read_lines(path: Path) -> list[str]:
    import lzma

    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line for line in f if line.strip()]


def run_eval(name: str, adapter: str, data: Path, work: Path, reuse: bool) -> dict:
    out = work / f"{name}-{adapter.replace('/', '_')}.json"
    if not (reuse and out.exists()):
        limit = SETS[name][4]
        cmd = [str(ROOT / ".venv" / "bin" / "mcp-world"), "eval", "--data", str(data), "--adapter", adapter,
               "--json", str(out), *(["--limit", str(limit)] if limit else [])]
        print("$", " ".join(cmd[1:]), flush=True)
        subprocess.run(cmd, check=True, cwd=ROOT)
    return {(s["episode"], s["step"]): s["similarity"] for s in json.loads(out.read_text())["steps"]}


def repeat_previous(data: Path, keys: set, embedder: Embedder) -> dict:
    scores = {}
    for rec in read_records(data):
        last = ""
        if rec.world.domains == ["os"]:
            last = rec.world.seed["os"]["tree"]
        for idx, step in enumerate(rec.steps):
            if (rec.id, idx) in keys:
                scores[(rec.id, idx)] = embedder.similarity(last, step.observation)
            last = step.observation
    return scores


def served_by_state(data: Path, embedder: Embedder) -> dict:
    """The similarity of the state's answer to the real observation, for each step the state answers
    when serving with --state full (the model answers the rest)."""
    import asyncio

    from benchmarks.heldout import state_answers

    records = read_records(data)
    truth = {(rec.id, idx): s.observation for rec in records for idx, s in enumerate(rec.steps)}
    return {k: embedder.similarity(text, truth[k]) for k, text in asyncio.run(state_answers(records)).items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--adapter", action="append", default=[], help="none or a folder (repeatable; the first is the "
                                                                   "baseline)")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--write", type=Path, default=None, help="put the last adapter's rows into its report.json")
    ap.add_argument("--sets", default=",".join(SETS), help=f"which sets (default: all of {', '.join(SETS)})")
    ap.add_argument("--before", type=Path, default=None,
                    help="the --work folder of a run of the same sets with other code (a checkout before a change): "
                         "also print the last adapter's change from it, the model's pages and what is served, paired")
    args = ap.parse_args()
    adapters = args.adapter or ["none", "adapters/corpus-sft"]
    work = args.work or Path(tempfile.mkdtemp(prefix="domains-"))
    work.mkdir(parents=True, exist_ok=True)
    embedder = Embedder()
    per_domain: dict[str, dict[str, dict]] = {}
    state_steps: dict[str, int] = {}
    data_of: dict[str, list[Path]] = {}
    for name, (domain, *_rest) in SETS.items():
        if name not in args.sets.split(","):
            continue
        data = subset(name, work)
        data_of.setdefault(domain, []).append(data)
        runs = {a: run_eval(name, a, data, work, args.reuse) for a in adapters}
        keys = set.intersection(*(set(r) for r in runs.values()))
        runs["repeat previous"] = repeat_previous(data, keys, embedder)
        # What a user is served with --state full: the state's answer where it answers, the model's elsewhere.
        answered = served_by_state(data, embedder)
        for a in adapters:
            runs[f"served {a}"] = {k: answered.get(k, v) for k, v in runs[a].items()}
        state_steps[domain] = state_steps.get(domain, 0) + len(keys & set(answered))
        if args.before:  # the same eval's results from the run before (the state's answers are this code's)
            made = args.before / f"{name}-{adapters[-1].replace('/', '_')}.json"
            if not made.exists():
                raise SystemExit(f"--before {args.before}: no {made.name} there (run the same sets with the code before)")
            before = {(s["episode"], s["step"]): s["similarity"] for s in json.loads(made.read_text())["steps"]}
            keys &= set(before)
            runs["before"], runs["served before"] = before, {k: answered.get(k, v) for k, v in before.items()}
        for a, scores in runs.items():
            per_domain.setdefault(domain, {}).setdefault(a, {}).update({k: scores[k] for k in keys})
    base = adapters[0]
    columns = ["repeat previous", *adapters, *(f"served {a}" for a in adapters)]
    def shown(c: str) -> str:  # a column's name in the table: an adapter by its folder's name
        served = c.startswith("served ")
        name = c.removeprefix("served ")
        return ("served " if served else "") + (Path(name).name if name != "repeat previous" else name)

    print(f"\n{'domain':8} {'steps':>5} " + " ".join(f"{shown(c)[-24:]:>24}" for c in columns) + "   change over " + base)
    rows = {}
    for domain, runs in per_domain.items():
        keys = sorted(runs[base])
        means = {c: sum(runs[c][k] for k in keys) / len(keys) for c in columns}
        change = paired_change([runs[base][k] for k in keys], [runs[adapters[-1]][k] for k in keys])
        print(f"{domain:8} {len(keys):>5} " + " ".join(f"{means[c]:>24.3f}" for c in columns) +
              f"   {change['mean']:+.3f} ({change['low']:+.3f} to {change['high']:+.3f}; "
              f"{change['better']} better, {change['worse']} worse)")
        served = f"served {adapters[-1]}"
        over = paired_change([runs["repeat previous"][k] for k in keys], [runs[served][k] for k in keys])
        print(f"{'':8} served {adapters[-1]} ({state_steps[domain]} steps from the state) over repeating the previous "
              f"observation: {over['mean']:+.3f} ({over['low']:+.3f} to {over['high']:+.3f}; "
              f"{over['better']} better, {over['worse']} worse)")
        if args.before:
            for was, now in (("before", adapters[-1]), ("served before", served)):
                d = paired_change([runs[was][k] for k in keys], [runs[now][k] for k in keys])
                print(f"{'':8} {now} against {was} ({args.before}): {sum(runs[was][k] for k in keys) / len(keys):.3f} "
                      f"-> {means[now]:.3f}, {d['mean']:+.3f} ({d['low']:+.3f} to {d['high']:+.3f}; {d['better']} better, "
                      f"{d['worse']} worse)")
        rows[domain] = {"bare": round(means[base], 3), "adapter": round(means[adapters[-1]], 3), "steps": len(keys),
                        "interval": [change["low"], change["high"]],
                        "repeat_previous": round(means["repeat previous"], 3),
                        "served": round(means[served], 3), "state_steps": state_steps[domain],
                        "served_over_repeat_previous": [over["low"], over["high"]],
                        **{f"{Path(a).name}": round(means[a], 3) for a in adapters[1:-1]},
                        "data": DESCRIBED[domain],
                        "command": "benchmarks/adapter_domains.py " + " ".join(f"--adapter {a}" for a in adapters)}
    if args.write:
        report = args.write / "report.json"
        doc = json.loads(report.read_text())
        doc.setdefault("domains", {}).update(rows)
        report.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"\nwrote the rows of {adapters[-1]} into {report}")


if __name__ == "__main__":
    main()
