"""The browser domain's demonstrations (issue 18): real pages of kinds of site the world model is
asked for, one site per kind, so that a world without examples of its own is shown the closest
kind (Domain.demonstrations_for) rather than one shop for every world.

    .venv/bin/python scripts/browser_demos.py [--out domains/browser/demonstrations.jsonl]

Each site is built here by a real program from PyPI, installed into a virtual environment of its
own, over real text (the descriptions the installed packages publish), served on 127.0.0.1 by
`python -m http.server` and fetched through mcp-world's shadow browser, as `record_pages.py` does:

- `docs`: a documentation site built by MkDocs 1.6 (its default theme): a home page and a page per
  library;
- `blog`: a blog built by Pelican 4.11 (its default theme): the article index and an article.

The shop (`books`, written by hand) is kept. None of these apps is among the recorded pages that
measure the browser (`fixtures/real/pages.jsonl.xz`: pydoc, http.server listings, Datasette), so
that measure stays on sites the prompt never showed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.executors.browser import ShadowBrowser  # noqa: E402
from mcp_world.world import parse_world  # noqa: E402

sys.path.insert(0, str(ROOT / "scripts"))
from record_pages import _wait  # noqa: E402

APPS = ["mkdocs==1.6.1", "pelican==4.11.0"]
DOCS = ["click", "jinja2", "markdown", "blinker"]  # their descriptions are Markdown
POSTS = ["mergedeep", "ordered-set", "platformdirs", "ghp-import"]
MAX_PAGE = 9_000  # a demonstration is paid for in every prompt of a world that shows it


def _described(python: Path, packages: list[str]) -> dict[str, dict[str, str]]:
    """Each package's version, summary and Markdown description, as the environment has them."""
    code = textwrap.dedent("""
        import json, sys
        from importlib import metadata
        out = {}
        for p in sys.argv[1:]:
            m = metadata.metadata(p)
            out[p] = {"version": m["Version"], "summary": m["Summary"], "text": m.get_payload() or ""}
        print(json.dumps(out))
    """)
    return json.loads(subprocess.run([str(python), "-c", code, *packages], check=True, capture_output=True,
                                     text=True).stdout)


def _short(markdown: str, paragraphs: int = 4) -> str:
    """The first paragraphs of a description (the site is an example: its pages stay small)."""
    parts = [p for p in markdown.split("\n\n") if p.strip() and not p.lstrip().startswith(("[!", "<", "!["))]
    return "\n\n".join(parts[:paragraphs]) + "\n"


def _docs_site(tmp: Path, env: Path) -> Path:
    described = _described(env / "bin" / "python", DOCS)
    src = tmp / "docs-src"
    (src / "docs").mkdir(parents=True)
    (src / "docs" / "index.md").write_text(
        "# Small libraries\n\nDocumentation of the small libraries this team builds on: an index of them "
        "here, and one page per library with what it does, the version we use and where to start.\n\n" +
        "".join(f"- [{p}]({p}.md): {d['summary']} ({d['version']})\n" for p, d in described.items()))
    for p, d in described.items():
        (src / "docs" / f"{p}.md").write_text(f"# {p} {d['version']}\n\n{d['summary']}\n\n{_short(d['text'])}")
    (src / "mkdocs.yml").write_text("site_name: Small libraries\nnav:\n  - Home: index.md\n" +
                                    "".join(f"  - {p}: {p}.md\n" for p in DOCS))
    subprocess.run([str(env / "bin" / "mkdocs"), "build", "-q", "-f", str(src / "mkdocs.yml"), "-d", str(tmp / "docs")],
                   check=True)
    return tmp / "docs"


def _blog_site(tmp: Path, env: Path) -> Path:
    described = _described(env / "bin" / "python", POSTS)
    content = tmp / "blog-src"
    content.mkdir()
    for n, (p, d) in enumerate(described.items(), 1):
        (content / f"{p}.md").write_text(
            f"Title: Why we use {p}\nDate: 2026-0{n}-1{n} 09:30\nCategory: Tools\n"
            f"Tags: python, {p}\nAuthor: Dana Reyes\nSummary: {d['summary']}\n\nWe use version {d['version']}.\n\n{_short(d['text'], 3)}")
    settings = tmp / "pelicanconf.py"
    settings.write_text('SITENAME = "Build notes"\nAUTHOR = "Dana Reyes"\nTIMEZONE = "UTC"\nDEFAULT_LANG = "en"\n'
                        "FEED_ALL_ATOM = None\nCATEGORY_FEED_ATOM = None\nRELATIVE_URLS = True\n"
                        "DEFAULT_PAGINATION = 10\nLINKS = ()\nSOCIAL = ()\n")
    subprocess.run([str(env / "bin" / "pelican"), str(content), "-o", str(tmp / "blog"), "-s", str(settings), "-q"],
                   check=True)
    return tmp / "blog"


async def _demos(site: Path, port: int, name: str, description: str, click: str) -> list[dict]:
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(site)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait(port)
        origin = f"http://127.0.0.1:{port}"
        browser = ShadowBrowser((origin,))
        world = parse_world({"name": name, "description": description, "domains": ["browser"]}, name)
        out, state = [], {}
        for tool, arguments in (("browser_navigate", {"url": origin + "/"}), ("browser_click", {"target": click})):
            real = await browser.observe(name, world, tool, arguments, state)
            if real is None:
                raise RuntimeError(f"{name}: {tool} {arguments} had no real page")
            if len(real.text) > MAX_PAGE:
                raise RuntimeError(f"{name}: {real.structured.get('url')} is {len(real.text)} characters, "
                                   f"more than a demonstration may be ({MAX_PAGE})")
            out.append({"tool": tool, "arguments": arguments, "observation": real.text, "world": name})
        return out
    finally:
        server.terminate()
        server.wait()


async def record(out: Path) -> None:
    kept = [json.loads(line) for line in out.read_text().splitlines() if line.strip()] if out.exists() else []
    demos = [d for d in kept if d.get("world") == "books"]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env = tmp / "apps-env"
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
        subprocess.run([str(env / "bin" / "pip"), "install", "-q", *APPS], check=True)
        demos += await _demos(_docs_site(tmp, env), 8771, "docs", "A documentation site built with MkDocs: "
                              "a home page and one page per library, with navigation and search.", DOCS[0])
        demos += await _demos(_blog_site(tmp, env), 8772, "blog", "A blog built with Pelican: articles with "
                              "their date, author, category and tags, and an index of them.",
                              f"Why we use {POSTS[-1]}")
    out.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in demos))
    for d in demos:
        print(f"{d['world']:6} {d['tool']:17} {json.dumps(d['arguments'])[:60]:60} {len(d['observation']):6} chars")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "domains" / "browser" / "demonstrations.jsonl")
    asyncio.run(record(ap.parse_args().out))


if __name__ == "__main__":
    main()
