"""Real search steps (issue 18): searches and page fetches an agent makes on real local sites,
answered by mcp-world's real search engine (`serve --shadow search`: the sites crawled, each search
ranked over their pages, each fetched page's main content as Markdown) — the same code.

    fixtures/real/search.jsonl.xz     search episodes (interchange format, xz-compressed)

    .venv/bin/python scripts/record_search.py [--out fixtures/real/search.jsonl.xz]

The sites are scripts/record_pages.py's: a Pelican blog and an MkDocs handbook (built from the
descriptions of installed packages), Datasette over a generated recipes database, pydoc's server
over the installed modules, and `http.server` over a folder of notes in Markdown. Each is a world of
its own (domains: [search]; what it is, in `seed.search.notes`; its origin, in `seed.search.sites`;
no known pages: the world model answers). An episode: a search made of words from one of the site's pages (or a question about
it), a fetch of a result, then a follow-up search, a link of the fetched page, another result, a
page that is not there, a search nothing matches, or the same search again.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import lzma
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from record_pages import (_package_notes, _serve_folder, _wait, datasette_site,  # noqa: E402
                          mkdocs_site, pelican_site)

from mcp_world.executors.search import ShadowSearch, SiteLimits  # noqa: E402
from mcp_world.executors.browser import BrowserLimits  # noqa: E402
from mcp_world.world import parse_world  # noqa: E402

STOP = set("a an and are as at be by can for from has have how i in is it its of on or that the this to "
           "was what when which with you your pydoc module python".split())
QUESTIONS = ["what is {}", "how to use {}", "{} example", "{} documentation"]
MAX_OBSERVATION = 24_000


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z][A-Za-z0-9_]{2,}", text) if w.lower() not in STOP]


def _query(page: dict, rng: random.Random) -> str:
    """Words an agent would type to find this page: from its title, or a sentence of it, or a question."""
    title = _words(re.sub(r"^(Pydoc: module|Pydoc:|Dependency Digest -|Team handbook -)", "", page["title"]))
    body = [w for w in _words(page["content"][:3000]) if not w.startswith("http")]
    roll = rng.random()
    if title and roll < 0.45:
        extra = rng.sample(body, min(len(body), rng.choice([0, 1, 2])))
        return " ".join(dict.fromkeys([*title[:3], *extra])).lower()
    if title and roll < 0.65:
        return rng.choice(QUESTIONS).format(" ".join(title[:2]).lower())
    if len(body) >= 3:
        start = rng.randrange(0, max(1, len(body) - 3))
        return " ".join(body[start:start + rng.choice([2, 3, 4])]).lower()
    return " ".join(title or body or ["index"]).lower()


def _page_links(markdown: str, origin: str) -> list[str]:
    return sorted({u.split("#")[0] for u in re.findall(r"\]\((" + re.escape(origin) + r"/[^)\s]*)\)", markdown)
                   if "?" not in u})


async def record_site(name: str, description: str, origin: str, rng: random.Random, episodes: int,
                      limits: SiteLimits = SiteLimits()) -> list[dict]:
    engine = ShadowSearch((origin,), BrowserLimits(timeout_s=30), limits)
    pages = await engine.index()
    print(f"{name}: {len(pages)} pages indexed in {engine.crawl_seconds:.1f} s", flush=True)
    world = parse_world({"name": name, "description": f"The web here is one site. {description}",
                         "domains": ["search"],
                         "seed": {"search": {"notes": f"Every search and page is of the site at {origin}: "
                                                      f"{description}", "sites": [origin]}}}, name)
    urls = [u for u in pages if u.rstrip("/") != origin]
    out, seen = [], set()
    for k in range(episodes):
        key = f"{name}-{k}"
        steps: list[dict] = []
        target = pages[rng.choice(urls)]
        calls = [("web_search", {"query": _query(target, rng), "num_results": rng.choice([3, 5, 5, 10])})]
        while calls and len(steps) < 5:
            tool, arguments = calls.pop(0)
            real = await engine.observe(key, world, tool, arguments, {})
            if real is None or len(real.text) > MAX_OBSERVATION:
                break
            steps.append({"tool": tool, "arguments": arguments, "observation": real.text, "structured": real.structured})
            results = [r["url"] for r in real.structured.get("results", [])] if tool == "web_search" else []
            roll = rng.random()
            if results:
                pick = results[0] if roll < 0.6 else rng.choice(results)
                calls.append(("web_fetch", {"url": pick}))
            elif tool == "web_search":  # nothing found: another wording
                calls.append(("web_search", {"query": _query(pages[rng.choice(urls)], rng), "num_results": 5}))
            elif len(steps) < 4:
                links = _page_links(real.text, origin) if tool == "web_fetch" else []
                if links and roll < 0.35:
                    calls.append(("web_fetch", {"url": rng.choice(links)}))
                elif roll < 0.65:
                    calls.append(("web_search", {"query": _query(pages[rng.choice(urls)], rng),
                                                 "num_results": rng.choice([3, 5])}))
                elif roll < 0.75:
                    calls.append(("web_fetch", {"url": f"{origin}/{rng.choice(['notes', 'docs', 'about'])}/"
                                                       f"missing-{rng.randint(1, 99)}.html"}))
                elif roll < 0.85:
                    calls.append(("web_search", {"query": rng.choice(["zanzibar quokka", "xylophone tariffs 1802",
                                                                      "qwertzuiop"]), "num_results": 5}))
                else:
                    first = next((s for s in steps if s["tool"] == "web_search"), None)
                    if first:
                        calls.append(("web_search", dict(first["arguments"])))
        walk = tuple((s["tool"], json.dumps(s["arguments"], sort_keys=True)) for s in steps)
        if steps and walk not in seen:
            seen.add(walk)
            out.append({"id": key, "world": world.model_dump(by_alias=True, exclude_defaults=True), "steps": steps})
    engine.close()
    return out


def _notes_folder(tmp: Path) -> Path:
    """A folder of Markdown notes: each installed package's description, as its authors wrote it."""
    folder = tmp / "notes"
    folder.mkdir()
    for name, version, summary, text in _package_notes(4000):
        (folder / f"{name.lower()}.md").write_text(f"# {name} {version}\n\n{summary}\n\n{text}\n", encoding="utf-8")
    (folder / "index.html").write_text(f"<html><head><title>Package notes</title></head><body><h1>Package notes</h1>"
                                       f"<ul>{''.join(f'<li><a href={p.name}>{p.stem}</a></li>' for p in sorted(folder.glob('*.md')))}"
                                       f"</ul></body></html>", encoding="utf-8")
    return folder


async def record(out: Path) -> None:
    rng = random.Random(18)
    episodes: list[dict] = []
    procs: list = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        try:
            origin, description, _ = pelican_site(tmp_path, procs, random.Random("pelican"))
            episodes += await record_site("search-pelican-blog", description, origin, rng, 14)
            origin, description, _ = mkdocs_site(tmp_path, procs, random.Random("mkdocs"))
            episodes += await record_site("search-mkdocs-handbook", description, origin, rng, 12)
            origin, description, _ = datasette_site(tmp_path, procs)
            episodes += await record_site("search-datasette-recipes", description, origin, rng, 12,
                                          SiteLimits(max_pages=120))
            port = 8781
            _serve_folder(_notes_folder(tmp_path), port, procs)
            episodes += await record_site("search-package-notes", f"A folder of Markdown notes, one per Python package "
                                          f"(its description as its authors wrote it), served by `python -m http.server` "
                                          f"at http://127.0.0.1:{port}.", f"http://127.0.0.1:{port}", rng, 10)
            port = 8782
            procs.append(subprocess.Popen([sys.executable, "-m", "pydoc", "-n", "127.0.0.1", "-p", str(port)],
                                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          cwd=tmp))
            _wait(port)
            episodes += await record_site("search-pydoc", f"pydoc's documentation server (Python 3.11) at "
                                          f"http://127.0.0.1:{port}: an index of the installed modules and one page "
                                          f"per module.", f"http://127.0.0.1:{port}", rng, 10, SiteLimits(max_pages=150))
        finally:
            for p in procs:
                p.terminate()
                p.wait()
    with lzma.open(out, "wt", encoding="utf-8", preset=9) as f:
        for e in episodes:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")
    steps = [s for e in episodes for s in e["steps"]]
    print(f"{out}: {len({e['world']['name'] for e in episodes})} sites, {len(episodes)} episodes, {len(steps)} steps "
          f"({sum(s['tool'] == 'web_search' for s in steps)} searches), {out.stat().st_size / 1024:.0f} KiB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "fixtures" / "real" / "search.jsonl.xz")
    asyncio.run(record(ap.parse_args().out))


if __name__ == "__main__":
    main()
