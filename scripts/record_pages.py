"""Real browser episodes from local web apps (issue 18): pages served on 127.0.0.1 by programs that
come with Python — pydoc's documentation server over the installed modules, and `http.server`
over a few package folders (their directory listings) — and by Datasette (from PyPI, installed
into a virtual environment of its own) over a generated recipes database, with its tables, row
pages, filters and sorting; fetched through mcp-world's shadow browser (the same code as
`serve --shadow browser`), navigating and clicking links as an agent would.

    fixtures/real/pages.jsonl.xz      browser episodes (interchange format, xz-compressed)

    .venv/bin/python scripts/record_pages.py [--out fixtures/real/pages.jsonl.xz]

Each site is a world of its own (its name, what it serves, its origin); ports are fixed so the
recorded URLs are stable. Pages larger than 24 KB are left out of an episode (they say little
more and would dwarf the corpus).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import lzma
import random
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lxml import html as lxml_html  # noqa: E402

from mcp_world.executors.browser import ShadowBrowser  # noqa: E402
from mcp_world.world import parse_world  # noqa: E402

MAX_PAGE = 24_000
PYDOC_MODULES = ["textwrap", "keyword", "fnmatch", "colorsys", "shlex", "bisect", "glob", "difflib", "heapq",
                 "string", "json", "html", "getopt", "this", "sched", "graphlib"]
FOLDERS = ["idna", "certifi", "sniffio", "jmespath", "h11", "tomli"]


def _wait(port: int) -> None:
    for _ in range(100):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")


DATASETTE = "datasette==0.65.5"
CUISINES = ["Thai", "Italian", "Mexican", "Indian", "Japanese", "Greek", "Ethiopian", "French"]
DISHES = ["curry", "soup", "salad", "stew", "noodles", "tacos", "risotto", "flatbread", "dumplings", "pie"]
INGREDIENTS = ["basil", "garlic", "ginger", "lime", "tomato", "chickpeas", "rice", "lentils", "coconut milk",
               "feta", "oregano", "cumin", "cilantro", "miso", "tofu", "shallot", "chili", "lemon", "spinach",
               "mushroom", "potato", "onion", "yogurt", "honey", "sesame", "paprika", "leek", "corn"]


def _recipes_db(path: Path, rng: random.Random) -> None:
    """A small recipes database: recipes, ingredients and what each recipe uses (foreign keys, so
    Datasette links rows to rows)."""
    import sqlite3

    db = sqlite3.connect(path)
    db.executescript("""
        create table cuisines (id integer primary key, name text);
        create table ingredients (id integer primary key, name text, vegan integer);
        create table recipes (id integer primary key, name text, cuisine_id integer references cuisines(id),
                              minutes integer, difficulty text, rating real);
        create table recipe_ingredients (recipe_id integer references recipes(id),
                                         ingredient_id integer references ingredients(id), grams integer);
    """)
    db.executemany("insert into cuisines values (?, ?)", list(enumerate(CUISINES, 1)))
    db.executemany("insert into ingredients values (?, ?, ?)",
                   [(i, n, int(n not in ("feta", "yogurt", "honey"))) for i, n in enumerate(INGREDIENTS, 1)])
    for r in range(1, 121):
        main = rng.choice(INGREDIENTS)
        db.execute("insert into recipes values (?, ?, ?, ?, ?, ?)",
                   (r, f"{main.capitalize()} {rng.choice(DISHES)}", rng.randint(1, len(CUISINES)),
                    rng.choice([10, 15, 20, 30, 45, 60, 90]), rng.choice(["easy", "medium", "hard"]),
                    round(rng.uniform(2.5, 5.0), 1)))
        for ing in rng.sample(range(1, len(INGREDIENTS) + 1), 3):
            db.execute("insert into recipe_ingredients values (?, ?, ?)", (r, ing, rng.choice([20, 50, 100, 200])))
    db.commit()
    db.close()


def _links(page: str, pages_only: bool = False, origin: str = "") -> list[str]:
    try:
        doc = lxml_html.document_fromstring(page)
    except Exception:  # noqa: BLE001 - a page without links
        return []
    texts = []
    for a in doc.iter("a"):
        text = " ".join(a.text_content().split())
        href = a.get("href") or ""
        if pages_only and not href.endswith("/"):
            continue
        if any(x in href for x in (".json", ".csv", ".xml", "_export", "/-/")):  # data files, feeds, Datasette's own
            continue
        if origin and href.startswith(origin + "/"):  # a site that writes its own links absolute
            href = href[len(origin):]
        if text and href and not href.startswith(("#", "http", "file:", "mailto:")) and 2 < len(text) < 40:
            texts.append(text)
    return sorted(set(texts))


async def record_site(name: str, description: str, origin: str, starts: list[str], rng: random.Random,
                      episodes: int, pages_only: bool = False) -> list[dict]:
    """`pages_only`: follow only links to folders (a file server's files are not HTML pages)."""
    browser = ShadowBrowser((origin,))
    world = parse_world({"name": name, "description": description, "domains": ["browser"],
                         "seed": {"browser": {"start_url": ""}}}, name)
    out: list[dict] = []
    seen: set[tuple] = set()
    for k in range(episodes):
        key = f"{name}-{k}"
        steps: list[dict] = []
        state: dict = {}
        url = origin + rng.choice(starts)
        calls = [("browser_navigate", {"url": url})]
        while len(steps) < 5 and calls:
            tool, arguments = calls.pop(0)
            real = await browser.observe(key, world, tool, arguments, state)
            if real is None or len(real.text) > MAX_PAGE:
                break
            steps.append({"tool": tool, "arguments": arguments, "observation": real.text, "structured": real.structured})
            here = real.structured.get("url", "")
            links = [t for t in _links(real.text, pages_only, origin) if not (pages_only and here.endswith("/" + t))]
            roll = rng.random()
            if links and roll < 0.7:
                calls.append(("browser_click", {"target": rng.choice(links)}))
            elif len(steps) > 1 and roll < 0.85:
                calls.append(("browser_back", {}))
            else:
                others = [u for u in starts if origin + u != real.structured.get("url")]
                if not others:
                    break
                calls.append(("browser_navigate", {"url": origin + rng.choice(others)}))
        browser.end(key)
        walk = tuple((s["tool"], json.dumps(s["arguments"], sort_keys=True)) for s in steps)
        if steps and walk not in seen:  # the same walk twice is one episode
            seen.add(walk)
            out.append({"id": key, "world": world.model_dump(by_alias=True, exclude_defaults=True), "steps": steps})
    return out


async def record(out: Path) -> None:
    rng = random.Random(18)
    episodes: list[dict] = []
    procs = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            port = 8741
            # pydoc's server reads commands from its stdin and stops at its end: kept open
            procs.append(subprocess.Popen([sys.executable, "-m", "pydoc", "-n", "127.0.0.1", "-p", str(port)],
                                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          cwd=tmp))
            _wait(port)
            episodes += await record_site(
                "pydoc", "pydoc's documentation server (Python 3.11) on this machine, at http://127.0.0.1:8741: "
                "an index of the installed modules and one page per module.",
                f"http://127.0.0.1:{port}", [f"/{m}.html" for m in PYDOC_MODULES], rng, 24)
            site = Path(sysconfig.get_paths()["purelib"])
            for n, folder in enumerate(FOLDERS, 1):
                if not (site / folder).is_dir():
                    continue
                copy = Path(tmp) / folder
                shutil.copytree(site / folder, copy, ignore=shutil.ignore_patterns("__pycache__"))
                port = 8741 + n
                procs.append(subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                                               "--directory", str(copy)], stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL))
                _wait(port)
                folders = sorted(str(p.relative_to(copy)) + "/" for p in copy.rglob("*") if p.is_dir())
                episodes += await record_site(
                    f"files-{folder}", f"A folder of the Python package {folder} served by `python -m http.server` "
                    f"at http://127.0.0.1:{port}: its directory listings.",
                    f"http://127.0.0.1:{port}", ["/"] + ["/" + f for f in folders[:4]], rng, 3, pages_only=True)
            episodes += await _record_datasette(Path(tmp), rng, procs)
            for recorder in SITES.values():
                episodes += await recorder(Path(tmp), procs)
        finally:
            for p in procs:
                p.terminate()
                p.wait()
    _write(out, episodes)


async def _record_datasette(tmp: Path, rng: random.Random, procs: list) -> list[dict]:
    origin, description, starts = datasette_site(tmp, procs)
    return await record_site("datasette-recipes", description, origin, starts, rng, 16)


def datasette_site(tmp: Path, procs: list) -> tuple[str, str, list[str]]:
    """Datasette over a generated recipes database, served: (origin, what it is, pages to start at)."""
    env = _site_env(tmp, "datasette", [DATASETTE])
    db = tmp / "recipes.db"
    _recipes_db(db, random.Random(7))
    port = 8760
    procs.append(subprocess.Popen([str(env / "bin" / "datasette"), "serve", str(db), "-h", "127.0.0.1", "-p", str(port),
                                   "--setting", "default_page_size", "10", "--setting", "suggest_facets", "off"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    _wait(port)
    starts = ["/", "/recipes", "/recipes/recipes", "/recipes/ingredients", "/recipes/cuisines",
              "/recipes/recipes?difficulty=easy", "/recipes/recipes?_sort_desc=rating", "/recipes/recipes/7",
              "/recipes/ingredients/3"]
    return (f"http://127.0.0.1:{port}", f"Datasette 0.65 at http://127.0.0.1:{port} serving a recipes database "
            "(recipes, cuisines, ingredients and what each recipe uses): table pages of 10 rows with filters and "
            "sorting, and one page per row.", starts)


# -- sites built by real generators from PyPI: a blog (Pelican) and a documentation site (MkDocs) ----
# Their pages share a layout (head, menus, sidebars) the way most sites an agent browses do. The
# articles are the descriptions of packages this project installs (real Markdown, as their authors
# wrote it), so the text is the same wherever the recorder runs with the same lock.

PELICAN = ["pelican==4.12.0", "markdown==3.11.3"]
MKDOCS = ["mkdocs==1.6.1"]
PACKAGES = {  # package: (the blog's category, the docs' section)
    "Jinja2": ("Templates", "Web"), "MarkupSafe": ("Templates", "Web"), "click": ("Command line", "Tools"),
    "typer": ("Command line", "Tools"), "requests": ("HTTP", "Web"), "httpx": ("HTTP", "Web"),
    "urllib3": ("HTTP", "Web"), "starlette": ("Servers", "Web"), "uvicorn": ("Servers", "Web"),
    "filelock": ("Files", "Tools"), "platformdirs": ("Files", "Tools"), "tomli_w": ("Formats", "Data"),
    "jsonpatch": ("Formats", "Data"), "attrs": ("Classes", "Data"), "idna": ("Text", "Data"),
    "tiktoken": ("Text", "Data"),
}


def _package_notes(limit: int = 2500) -> list[tuple[str, str, str, str]]:
    """(name, version, summary, Markdown) of each package in PACKAGES this Python has, the
    description cut at a paragraph before `limit` characters."""
    import importlib.metadata as md

    notes = []
    for name in PACKAGES:
        try:
            meta = md.metadata(name)
        except md.PackageNotFoundError:
            continue
        text = (meta.get_payload() or meta.get("Description") or "").strip()
        if len(text) > limit:
            cut = text.rfind("\n\n", 0, limit)
            text = text[:cut if cut > 0 else limit].rstrip()
        notes.append((name, meta["Version"], (meta.get("Summary") or "").strip(), text))
    return notes


def _site_env(tmp: Path, name: str, requirements: list[str]) -> Path:
    env = tmp / f"{name}-env"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    subprocess.run([str(env / "bin" / "pip"), "install", "-q", *requirements], check=True)
    return env


def _serve_folder(folder: Path, port: int, procs: list) -> None:
    procs.append(subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                                   "--directory", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    _wait(port)


async def _record_pelican(tmp: Path, procs: list) -> list[dict]:
    rng = random.Random("pelican")
    origin, description, starts = pelican_site(tmp, procs, rng)
    return await record_site("pelican-blog", description, origin, starts, rng, 14)


def pelican_site(tmp: Path, procs: list, rng: random.Random) -> tuple[str, str, list[str]]:
    """The Pelican blog, built and served: (origin, what it is, pages to start at)."""
    env = _site_env(tmp, "pelican", PELICAN)
    port = 8770
    origin = f"http://127.0.0.1:{port}"
    site = tmp / "blog"
    (site / "content" / "pages").mkdir(parents=True)
    notes = _package_notes()
    for n, (name, version, summary, text) in enumerate(notes):
        category = PACKAGES[name][0]
        tags = ", ".join(sorted({category.lower(), *(w.lower() for w in summary.split()[:12]
                                                     if len(w) > 5 and w.isalpha())}))[:80]
        day = f"2026-{1 + n % 11:02d}-{rng.randint(1, 28):02d} {rng.randint(8, 19):02d}:{rng.choice(['00', '30'])}"
        (site / "content" / f"{name.lower()}.md").write_text(
            f"Title: {name} {version}: {summary}\nDate: {day}\nCategory: {category}\nTags: {tags}\n"
            f"Slug: {name.lower()}\nAuthor: Dana Reyes\nSummary: {summary}\n\n{text}\n", encoding="utf-8")
    (site / "content" / "pages" / "about.md").write_text(
        "Title: About\n\nNotes on the Python packages one project depends on: what each does, as its "
        "authors describe it, one article per package.\n", encoding="utf-8")
    (site / "pelicanconf.py").write_text(f"""AUTHOR = "Dana Reyes"
SITENAME = "Dependency Digest"
SITEURL = "{origin}"
PATH = "content"
TIMEZONE = "UTC"
DEFAULT_LANG = "en"
DEFAULT_PAGINATION = 5
DEFAULT_DATE_FORMAT = "%a %d %B %Y"
LINKS = (("Python", "https://www.python.org/"), ("PyPI", "https://pypi.org/"))
SOCIAL = (("Mastodon", "https://mastodon.example/@dana"),)
""", encoding="utf-8")
    subprocess.run([str(env / "bin" / "pelican"), "content", "-o", "output", "-s", "pelicanconf.py", "-q"],
                   cwd=site, check=True)
    _serve_folder(site / "output", port, procs)
    starts = ["/", "/index2.html", "/categories.html", "/tags.html", "/archives.html", "/pages/about.html",
              "/category/http.html", "/jinja2.html", "/click.html", "/author/dana-reyes.html"]
    return (origin, f"A blog built with Pelican 4.12 (its default theme), served at {origin}: 'Dependency Digest', "
            "one article per Python package a project depends on, with categories, tags, archives and pages of "
            "five articles.", starts)


async def _record_mkdocs(tmp: Path, procs: list) -> list[dict]:
    rng = random.Random("mkdocs")
    origin, description, starts = mkdocs_site(tmp, procs, rng)
    return await record_site("mkdocs-handbook", description, origin, starts, rng, 14)


def mkdocs_site(tmp: Path, procs: list, rng: random.Random) -> tuple[str, str, list[str]]:
    """The MkDocs handbook, built and served: (origin, what it is, pages to start at)."""
    env = _site_env(tmp, "mkdocs", MKDOCS)
    port = 8771
    origin = f"http://127.0.0.1:{port}"
    site = tmp / "handbook"
    docs = site / "docs"
    docs.mkdir(parents=True)
    notes = _package_notes(2000)
    sections: dict[str, list[str]] = {}
    for name, version, summary, text in notes:
        section = PACKAGES[name][1]
        (docs / section.lower()).mkdir(exist_ok=True)
        (docs / section.lower() / f"{name.lower()}.md").write_text(
            f"# {name}\n\n*Version {version}.* {summary}\n\n{text}\n", encoding="utf-8")
        sections.setdefault(section, []).append(f"{section.lower()}/{name.lower()}.md")
    (docs / "index.md").write_text(
        "# Team handbook: dependencies\n\nWhat each package we depend on does, in its authors' words.\n\n"
        + "\n".join(f"- **{s}**: " + ", ".join(Path(p).stem for p in ps) for s, ps in sections.items()) + "\n",
        encoding="utf-8")
    nav = "\n".join([f"  - {s}:\n" + "\n".join(f"    - {p}" for p in ps) for s, ps in sections.items()])
    (site / "mkdocs.yml").write_text(f"site_name: Team handbook\nsite_url: {origin}/\nnav:\n  - Home: index.md\n"
                                     f"{nav}\n", encoding="utf-8")
    subprocess.run([str(env / "bin" / "mkdocs"), "build", "-q", "-d", str(site / "site")], cwd=site, check=True)
    _serve_folder(site / "site", port, procs)
    starts = ["/", "/web/jinja2/", "/web/httpx/", "/tools/click/", "/data/attrs/", "/tools/filelock/"]
    return (origin, f"A documentation site built with MkDocs 1.6 (its default theme), served at {origin}: a team "
            "handbook with one page per Python package the team depends on, in sections Web, Tools and Data, with "
            "a navigation bar and a table of contents on each page.", starts)


SITES = {"pelican": _record_pelican, "mkdocs": _record_mkdocs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "fixtures" / "real" / "pages.jsonl.xz")
    ap.add_argument("--sites", default="", help=f"record only these of {', '.join(SITES)} (comma-separated) and "
                    "replace their episodes in --out, keeping the others")
    args = ap.parse_args()
    if args.sites:
        asyncio.run(record_only(args.out, args.sites.split(",")))
    else:
        asyncio.run(record(args.out))


async def record_only(out: Path, names: list[str]) -> None:
    unknown = [n for n in names if n not in SITES]
    if unknown:
        raise SystemExit(f"--sites: unknown {', '.join(unknown)}; the sites are {', '.join(SITES)}")
    procs: list = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            new = [e for n in names for e in await SITES[n](Path(tmp), procs)]
        finally:
            for p in procs:
                p.terminate()
                p.wait()
    worlds = {e["world"]["name"] for e in new}
    kept = []
    if out.exists():
        with lzma.open(out, "rt", encoding="utf-8") as f:
            kept = [e for e in map(json.loads, f) if e["world"]["name"] not in worlds]
    _write(out, kept + new)


def _write(out: Path, episodes: list[dict]) -> None:
    with lzma.open(out, "wt", encoding="utf-8", preset=9) as f:
        for e in episodes:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")
    steps = sum(len(e["steps"]) for e in episodes)
    print(f"{out}: {len({e['world']['name'] for e in episodes})} sites, {len(episodes)} episodes, {steps} steps, "
          f"{out.stat().st_size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
