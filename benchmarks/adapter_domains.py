"""An adapter per domain, on real steps of each: the MCP servers' mirror sessions (50 steps), real
web apps' pages (pydoc's 24, Datasette's first 30, a Pelican blog's and an MkDocs site's first 25)
and real GTK applications' accessibility trees (three episodes of each of the four desktop worlds),
teacher-forced (`mcp-world eval`), beside the bare model and the trivial baseline "repeat the
previous observation" (a GUI's screen before, "" at an episode's first step elsewhere), and what a
user is served with --state full (the state's answer where it answers, the model's elsewhere).
`serve` reads the result from the adapter's report.json (`domains`) and never serves an adapter on a
domain where it measured worse than the bare model. For browser pages it also prints the similarity
of their own content (their text but for what the site repeats on its pages), which a site's layout
given to the model does not raise.

    .venv/bin/python benchmarks/adapter_domains.py --adapter none --adapter adapters/devbox-rwml \
        --adapter adapters/corpus-sft [--sets heldout] [--work runs/domains] [--reuse] [--write adapters/corpus-sft]

The first --adapter is the baseline the others are compared with (paired bootstrap interval over the
same steps); --write puts the rows of the last one into that folder's report.json, with its change
over the default adapter when that was run too. `--sets heldout` takes only the worlds
scripts/domain_mix.py keeps out of training. About 25 minutes an adapter on 2 cores; --reuse keeps
the eval reports already in --work.

What a world's known pages (`seed.browser.pages`) bring, on sites never trained on: the same run
without them, then with a few real pages of each site known, paired on the pages at other URLs:

    .venv/bin/python benchmarks/adapter_domains.py --adapter adapters/domains-sft --sets pydoc,mkdocs --work runs/kp0
    .venv/bin/python benchmarks/adapter_domains.py --adapter adapters/domains-sft --sets pydoc,mkdocs \
        --known-pages 2 --work runs/kp2 --before runs/kp0
"""

from __future__ import annotations

import argparse
import functools
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.embedded import DEFAULT_ADAPTER  # noqa: E402
from mcp_world.importing import read_records  # noqa: E402
from mcp_world.metric import Embedder  # noqa: E402
from mcp_world.training import paired_change  # noqa: E402

REAL = ROOT / "fixtures" / "real"
# name: (domain, files, which worlds (name prefixes), episodes per world (None: all), steps scored (None: all))
SETS = {
    "mcp": ("mcp", ["git-mirror.jsonl", "memory-mirror.jsonl"], None, None, None),
    "pydoc": ("browser", ["pages.jsonl.xz"], ("pydoc",), None, 24),
    "datasette": ("browser", ["pages.jsonl.xz"], ("datasette",), None, 30),
    "pelican": ("browser", ["pages.jsonl.xz"], ("pelican",), None, 25),
    "mkdocs": ("browser", ["pages.jsonl.xz"], ("mkdocs",), None, 25),
    "desktop": ("os", ["desktop.jsonl.xz"], None, 3, None),
    # the worlds scripts/domain_mix.py holds out of training (an adapter trained on every domain)
    "desktop-heldout": ("os", ["desktop.jsonl.xz"], ("mousepad-python", "galculator"), 3, None),
    "git": ("mcp", ["git-mirror.jsonl"], None, None, None),
    # real MCP servers held out of scripts/domain_mix.py (scripts/record_mcp.py)
    "sqlite": ("mcp", ["mcp-servers.jsonl.xz"], ("sqlite",), None, None),
    "fetch": ("mcp", ["mcp-servers.jsonl.xz"], ("fetch",), None, None),
    # real searches and fetches on five local sites (scripts/record_search.py; no adapter trained on any)
    "search": ("search", ["search.jsonl.xz"], None, 6, None),
}
GROUPS = {"heldout": "pydoc,mkdocs,desktop-heldout,git,sqlite,fetch,search", "mcp-heldout": "git,sqlite,fetch"}
DESCRIBED = {
    "mcp": "fixtures/real/git-mirror.jsonl, fixtures/real/memory-mirror.jsonl",
    "git": "fixtures/real/git-mirror.jsonl (mcp-server-git, held out of scripts/domain_mix.py)",
    "sqlite": "fixtures/real/mcp-servers.jsonl.xz: mcp-server-sqlite (held out of scripts/domain_mix.py)",
    "fetch": "fixtures/real/mcp-servers.jsonl.xz: mcp-server-fetch (held out of scripts/domain_mix.py)",
    "pydoc": "pydoc's first 24 pages", "datasette": "Datasette's first 30", "pelican": "the Pelican blog's first 25",
    "mkdocs": "the MkDocs site's first 25",
    "desktop": "fixtures/real/desktop.jsonl.xz: the first 3 episodes of each of its 4 worlds",
    "desktop-heldout": "fixtures/real/desktop.jsonl.xz: the first 3 episodes of mousepad-python and galculator "
                       "(held out of scripts/domain_mix.py)",
    "search": "fixtures/real/search.jsonl.xz: the first 6 episodes of each of its 5 sites",
}


def described(names: list[str]) -> str:
    pages = [DESCRIBED[n] for n in names if SETS[n][0] == "browser"]
    rest = [DESCRIBED[n] for n in names if SETS[n][0] != "browser"]
    return "; ".join(rest + (["fixtures/real/pages.jsonl.xz: " + ", ".join(pages)] if pages else []))


def shown(c: str) -> str:
    """A column's name in the tables: an adapter by its folder's name."""
    served = c.startswith("served ")
    name = c.removeprefix("served ")
    return ("served " if served else "") + (Path(name).name if name not in ("repeat previous", "before") else name)


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


def give_known_pages(name: str, data: Path, count: int) -> set:
    """Make `count` real pages of each site in the set's file pages its world knows
    (`seed.browser.pages`), as `world from-episodes` would from the steps the set does not score
    (after its first `limit`): the most visited; returns the scored steps at those URLs (answered
    from the state then, so left out of the comparison)."""
    from mcp_world.worldgen import known_pages

    limit = SETS[name][4]
    records = [json.loads(line) for line in read_lines(data)]
    order = [(r, i) for r in records for i in range(len(r["steps"]))]
    unscored: dict[str, list[dict]] = {}
    for r, i in order[limit:] if limit else []:
        unscored.setdefault(r["world"]["name"], []).append(r["steps"][i])
    known = {w: known_pages([{"steps": steps}], count) for w, steps in unscored.items()}
    with data.open("w", encoding="utf-8") as f:
        for r in records:
            r["world"].setdefault("seed", {}).setdefault("browser", {})["pages"] = known.get(r["world"]["name"], {})
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    for w, pages in known.items():
        print(f"{name}: {w} knows {', '.join(pages)}", flush=True)
    return {(r["id"], i) for r, i in (order[:limit] if limit else order)
            if (r["steps"][i].get("structured") or {}).get("url") in known.get(r["world"]["name"], {})}


def read_lines(path: Path) -> list[str]:
    import lzma

    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line for line in f if line.strip()]


def run_eval(name: str, adapter: str, data: Path, work: Path, reuse: bool) -> dict:
    return {k: s["similarity"] for k, s in eval_steps(name, adapter, data, work, reuse).items()}


def eval_steps(name: str, adapter: str, data: Path, work: Path, reuse: bool) -> dict:
    out = work / f"{name}-{adapter.replace('/', '_')}.json"
    if not (reuse and out.exists()):
        limit = SETS[name][4]
        cmd = [str(ROOT / ".venv" / "bin" / "mcp-world"), "eval", "--data", str(data), "--adapter", adapter,
               "--json", str(out), *(["--limit", str(limit)] if limit else [])]
        print("$", " ".join(cmd[1:]), flush=True)
        subprocess.run(cmd, check=True, cwd=ROOT)
    return {(s["episode"], s["step"]): s for s in json.loads(out.read_text())["steps"]}


def text_blocks(page: str) -> list[str]:
    """The visible text of a page's <body>, piece by piece (scripts and styles left out)."""
    import lxml.html
    from lxml import etree

    try:
        root = lxml.html.fromstring(page.encode("utf-8"))
    except (etree.ParserError, ValueError):
        return []
    for junk in root.xpath("//script|//style|//template|//head"):
        junk.drop_tree()
    return [" ".join(t.split()) for t in root.itertext() if t.strip()]


@functools.cache
def site_chrome(world: str) -> frozenset[str]:
    """The text a site repeats from page to page (its banner, menus, sidebar, footer): each piece
    found on at least half the distinct pages recorded on it (fixtures/real/pages.jsonl.xz)."""
    pages: dict[str, str] = {}
    for rec in read_records(REAL / "pages.jsonl.xz"):
        if rec.world.name == world:
            for step in rec.steps:
                pages[(step.structured or {}).get("url") or step.observation] = step.observation
    counts: Counter = Counter()
    for page in pages.values():
        counts.update(set(text_blocks(page)))
    return frozenset(t for t, n in counts.items() if n * 2 >= len(pages)) if len(pages) >= 4 else frozenset()


def page_content(page: str, chrome: frozenset[str]) -> str:
    """A page's own content as a reader sees it: its visible text but for what its site repeats."""
    return " ".join(t for t in text_blocks(page) if t not in chrome)


def content_scores(name: str, adapters: list[str], data: Path, work: Path, keys: set, embedder: Embedder) -> dict:
    """Per adapter (and for repeating the previous page), the similarity of each page's own content
    (`page_content`) to the real page's: what the model wrote, apart from a layout it was given."""
    real, previous, chrome = {}, {}, {}
    for rec in read_records(data):
        last = ""
        chrome[rec.id] = site_chrome(rec.world.name)
        for idx, step in enumerate(rec.steps):
            real[(rec.id, idx)] = page_content(step.observation, chrome[rec.id])
            previous[(rec.id, idx)] = page_content(last, chrome[rec.id])
            last = step.observation
    out = {"repeat previous": {k: embedder.similarity(previous[k], real[k]) for k in keys}}
    for a in adapters:
        steps = eval_steps(name, a, data, work, reuse=True)
        out[a] = {k: embedder.similarity(page_content(steps[k].get("prediction") or "", chrome[k[0]]), real[k])
                  for k in keys}
    return out


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
    ap.add_argument("--sets", default="mcp,pydoc,datasette,pelican,mkdocs,desktop",
                    help=f"which sets, of {', '.join(SETS)}; 'heldout' is {GROUPS['heldout']} (the worlds an adapter "
                         f"trained by scripts/domain_mix.py never saw), 'mcp-heldout' {GROUPS['mcp-heldout']}")
    ap.add_argument("--before", type=Path, default=None,
                    help="the --work folder of a run of the same sets with other code (a checkout before a change): "
                         "also print the last adapter's change from it, the model's pages and what is served, paired")
    ap.add_argument("--known-pages", type=int, default=0,
                    help="browser sets: give each site's world this many of its real pages (seed.browser.pages; the "
                         "most visited among the steps not scored) and score the pages at other URLs; with --before "
                         "DIR (the same run without) the change is what a world's known pages bring")
    args = ap.parse_args()
    adapters = args.adapter or ["none", "adapters/corpus-sft"]
    work = args.work or Path(tempfile.mkdtemp(prefix="domains-"))
    work.mkdir(parents=True, exist_ok=True)
    embedder = Embedder()
    per_domain: dict[str, dict[str, dict]] = {}
    state_steps: dict[str, int] = {}
    per_set: dict[str, dict[str, float]] = {}  # each set's mean per column (a server, a site)
    set_steps: dict[str, int] = {}
    data_of: dict[str, list[Path]] = {}
    contents: dict[str, dict] = {}  # the browser pages' own content, per adapter
    chosen = ",".join(GROUPS.get(n, n) for n in args.sets.split(",")).split(",")
    unknown = [n for n in chosen if n not in SETS]
    if unknown:
        raise SystemExit(f"--sets: no set {', '.join(unknown)}; the sets are {', '.join(SETS)} and {', '.join(GROUPS)}")
    sets_of: dict[str, list[str]] = {}
    for name, (domain, *_rest) in SETS.items():
        if name not in chosen:
            continue
        sets_of.setdefault(domain, []).append(name)
        data = subset(name, work)
        at_known = give_known_pages(name, data, args.known_pages) if args.known_pages and domain == "browser" else set()
        data_of.setdefault(domain, []).append(data)
        runs = {a: run_eval(name, a, data, work, args.reuse) for a in adapters}
        keys = set.intersection(*(set(r) for r in runs.values())) - at_known
        if at_known:
            print(f"{name}: {len(at_known)} scored steps are at a known page (answered from it) and left out", flush=True)
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
            per_set.setdefault(name, {})[a] = sum(scores[k] for k in keys) / len(keys) if keys else 0.0
        set_steps[name] = len(keys)
        if domain == "browser":  # the pages' own content, apart from the layout a page may start from
            content = content_scores(name, adapters, data, work, keys, embedder)
            if args.before:
                was = {(s["episode"], s["step"]): s for s in json.loads(made.read_text())["steps"]}
                records = read_records(data)
                chrome = {rec.id: site_chrome(rec.world.name) for rec in records}
                truth = {(rec.id, idx): page_content(st.observation, chrome[rec.id])
                         for rec in records for idx, st in enumerate(rec.steps)}
                content["before"] = {k: embedder.similarity(page_content(was[k].get("prediction") or "",
                                                                         chrome[k[0]]), truth[k]) for k in keys}
            for a, scores in content.items():
                contents.setdefault(a, {}).update(scores)
    base = adapters[0]
    if contents:
        keys = sorted(contents[base])
        print(f"\nbrowser pages' own content (their visible text but for what the site repeats on half its recorded "
              f"pages or more: banner, menus, footer), {len(keys)} pages:")
        for a, scores in contents.items():
            line = f"  {shown(a):>24} {sum(scores[k] for k in keys) / len(keys):.3f}"
            if a != base:
                d = paired_change([contents[base][k] for k in keys], [scores[k] for k in keys])
                line += (f"   {d['mean']:+.3f} over {shown(base)} ({d['low']:+.3f} to {d['high']:+.3f}; "
                         f"{d['better']} better, {d['worse']} worse)")
            print(line)
        if args.before:
            d = paired_change([contents["before"][k] for k in keys], [contents[adapters[-1]][k] for k in keys])
            print(f"  {shown(adapters[-1])} against before: {d['mean']:+.3f} ({d['low']:+.3f} to {d['high']:+.3f}; "
                  f"{d['better']} better, {d['worse']} worse)")
    columns = ["repeat previous", *adapters, *(f"served {a}" for a in adapters)]

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
                        "data": described(sets_of[domain]),
                        "command": "benchmarks/adapter_domains.py " + " ".join(f"--adapter {a}" for a in adapters)
                                   + f" --sets {args.sets}"}
        shipped = next((a for a in adapters[:-1] if Path(a).name == DEFAULT_ADAPTER.name), None)
        if shipped:  # what `serve` reads to serve this adapter in the default's place (embedded.measured_better)
            over_shipped = paired_change([runs[shipped][k] for k in keys], [runs[adapters[-1]][k] for k in keys])
            rows[domain].update({"shipped": DEFAULT_ADAPTER.name, "shipped_adapter": round(means[shipped], 3),
                                 "change_over_shipped": [round(over_shipped["mean"], 4), over_shipped["low"],
                                                         over_shipped["high"]]})
            print(f"{'':8} {adapters[-1]} over {shipped}: {over_shipped['mean']:+.3f} ({over_shipped['low']:+.3f} to "
                  f"{over_shipped['high']:+.3f}; {over_shipped['better']} better, {over_shipped['worse']} worse)")
    if len(per_set) > 1:
        print(f"\n{'set':16} {'steps':>5} " + " ".join(f"{shown(c)[-24:]:>24}" for c in columns))
        for name, means in per_set.items():
            print(f"{name:16} {set_steps[name]:>5} " + " ".join(f"{means[c]:>24.3f}" for c in columns))
    if args.write:
        report = args.write / "report.json"
        text = report.read_text()
        doc = json.loads(text)
        doc.setdefault("domains", {}).update(rows)
        second = (text.splitlines()[1:2] or [" "])[0]
        indent = len(second) - len(second.lstrip(" ")) or 1  # as the file was written (a small diff)
        report.write_text(json.dumps(doc, indent=indent, ensure_ascii=False) + "\n")
        print(f"\nwrote the rows of {adapters[-1]} into {report}")


if __name__ == "__main__":
    main()
