"""The real search engine: `web_fetch` and `web_search` over local sites (off by default).

`serve --shadow search --shadow-origin http://127.0.0.1:8000` makes every `web_fetch` of a page on
an allowlisted local origin also GET it for real and turn its main content into Markdown
(trafilatura, the extractor research crawlers use), and every `web_search` also search those sites
for real: as it starts (or at the first search) the server crawls them (from each origin's `/`, same-origin links,
HTML pages without a query string, within `SiteLimits`), and each search ranks the pages it found
with the search domain's own engine (BM25 over titles and text, a snippet from the page), so a real
result is laid out as a simulated one. A URL off the allowlist is never fetched: its page has no
real counterpart and stays the world model's. The index is the server's (the web does not change
between episodes); nothing is written to the sites.
"""

from __future__ import annotations

import asyncio
import datetime
import email.utils
import logging
import re
import time
from collections import deque
from dataclasses import dataclass
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

from lxml import etree, html as lxml_html

from ..errors import MCPWorldError
from .base import RealObservation
from .browser import BrowserLimits, Fetched, LocalSites

log = logging.getLogger("mcp_world")
PAGE_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("text/plain", "text/markdown", "text/x-markdown")
# data a fetcher shows as it is, in a code block (mcp-server-fetch returns such content raw, too)
RAW_TYPES = {"application/json": "json", "text/csv": "csv", "application/xml": "xml", "text/xml": "xml",
             "application/x-yaml": "yaml", "application/yaml": "yaml", "text/yaml": "yaml"}
SKIPPED = re.compile(r"\.(png|jpe?g|gif|svg|ico|webp|css|js|mjs|map|woff2?|ttf|pdf|zip|gz|tgz|xz|whl|tar|"
                     r"mp[34]|webm|json|xml|txt\.gz)$", re.I)


@dataclass(frozen=True)
class SiteLimits:
    """What the crawl for the real search may take: pages, seconds, bytes of Markdown a page keeps."""

    max_pages: int = 200
    max_seconds: float = 90.0
    max_page_chars: int = 64 * 1024


def _trafilatura() -> Any:
    try:
        import trafilatura
    except ImportError:  # pragma: no cover - the set-up installs it
        raise MCPWorldError("--shadow search turns real pages into Markdown with trafilatura: "
                            "pip install 'mcp-world[shadow]' (or trafilatura)") from None
    return trafilatura


def _rules() -> Any:
    from ..domain import load_domain

    return load_domain("search").rules


def _date(page: Fetched) -> str:
    """The day a result shows: the page's own date where its markup gives one (a blog post's
    published date: htmldate, explicit markup only, no guessing from the text), else the day it
    last changed (Last-Modified), else today (the day it was indexed)."""
    from htmldate import find_date

    kind = page.headers.get("content-type", "text/html").split(";")[0].strip().lower()
    try:
        found = find_date(page.text, extensive_search=False, original_date=True, url=page.url) \
            if kind in PAGE_TYPES and page.text.strip() else None
    except Exception:  # noqa: BLE001 - a page htmldate cannot read has no date of its own
        found = None
    if found:
        return found
    try:
        stamp = email.utils.parsedate_to_datetime(page.headers.get("last-modified", ""))
    except (TypeError, ValueError):
        stamp = None
    return (stamp.date() if stamp else datetime.date.today()).isoformat()


def _title(doc: Any) -> str:
    el = doc.find(".//title") if doc is not None else None
    text = " ".join((el.text_content() if el is not None else "").split())
    if not text and doc is not None:
        h1 = doc.find(".//h1")
        text = " ".join((h1.text_content() if h1 is not None else "").split())
    return text


def page_markdown(page: Fetched) -> tuple[str, str] | None:
    """A fetched page as `web_fetch` returns it: (title, Markdown beginning with `# title`); None
    when it is not a page (an image, a download)."""
    kind = page.headers.get("content-type", "text/html").split(";")[0].strip().lower()
    name = urlsplit(page.url).path.rstrip("/").rsplit("/", 1)[-1] or page.url
    body = page.text.strip()
    if kind in TEXT_TYPES:  # a Markdown or text file: its first heading names it, else its file name
        heading = re.search(r"^# +(.+)$", body, re.M)
        return (heading.group(1).strip(), body) if heading else (name, f"# {name}\n\n{body}")
    raw = RAW_TYPES.get(kind) or ("json" if kind.endswith("+json") else "xml" if kind.endswith("+xml") else "")
    if raw:
        return name, f"# {name}\n\n```{raw}\n{body}\n```"
    if kind not in PAGE_TYPES:
        return None
    try:
        doc = lxml_html.document_fromstring(page.text) if page.text.strip() else None
    except (etree.ParserError, ValueError):
        doc = None
    title = _title(doc)
    markdown = _trafilatura().extract(page.text, url=page.url, output_format="markdown", include_links=True,
                                      include_tables=True, include_comments=False, favor_recall=True) or ""
    if not markdown.strip() and doc is not None:  # nothing the extractor calls main content: the text
        markdown = "\n\n".join(" ".join(p.split()) for p in doc.text_content().split("\n\n") if p.strip())
    markdown = markdown.strip()
    title = title or urlsplit(page.url).path or page.url
    if not markdown.startswith("# "):
        markdown = f"# {title}\n\n{markdown}".rstrip()
    return title, markdown


def _links(page: Fetched) -> list[str]:
    try:
        doc = lxml_html.document_fromstring(page.text)
    except (etree.ParserError, ValueError):
        return []
    found = []
    for a in doc.iter("a"):
        href = (a.get("href") or "").strip()
        if href and not href.startswith(("mailto:", "javascript:", "data:")):
            found.append(urldefrag(urljoin(page.url, href))[0])
    return found


class ShadowSearch(LocalSites):
    """Real `web_fetch` of allowlisted local pages, and a real search over those sites."""

    domain = "search"

    def __init__(self, origins: tuple[str, ...], limits: BrowserLimits = BrowserLimits(),
                 site: SiteLimits = SiteLimits()) -> None:
        super().__init__(origins, limits)
        _trafilatura()
        self.origins = tuple(o.rstrip("/") for o in origins)
        self.site = site
        self._index: dict[str, dict[str, str]] | None = None
        self._indexing: asyncio.Lock | None = None
        self.crawl_seconds = 0.0

    def covers(self, tool: str, arguments: dict[str, Any]) -> bool:
        """Whether this action has a real counterpart here (else it is simulated, known pages
        answered from the state): a search, or a fetch of a page on an allowed origin."""
        return tool == "web_search" or tool == "web_fetch" and self.fetcher.allowed(str(arguments.get("url", "")).strip())

    async def observe(self, episode_id: str, world: Any, tool: str, arguments: dict[str, Any],
                      state: dict[str, Any]) -> RealObservation | None:
        if tool == "web_fetch":
            url = str(arguments.get("url", "")).strip()
            return await self._fetch(url) if self.fetcher.allowed(url) else None
        if tool == "web_search":
            pages = await self.index()
            query = str(arguments.get("query", ""))
            try:
                wanted = max(1, int(arguments.get("num_results", 10) or 10))
            except (TypeError, ValueError):
                wanted = 10
            found = _rules().site_results(pages, query, wanted)
            return RealObservation(found.text, found.structured, {**found.structured, "indexed_pages": len(pages)})
        return None

    async def _fetch(self, url: str) -> RealObservation:
        page = await self.fetcher.get(url)
        if page is None:
            return self._failed(url, "the site did not answer (or redirected off the allowed sites)")
        if page.status >= 400:
            return self._failed(url, f"HTTP {page.status}", page.status)
        made = await asyncio.to_thread(page_markdown, page)
        if made is None:
            kind = page.headers.get("content-type", "?").split(";")[0]
            return self._failed(url, f"not a page ({kind}); web_fetch returns pages as Markdown", page.status)
        title, markdown = made
        structured = {"url": url, "title": title, "chars": len(markdown)}
        return RealObservation(markdown + "\n", structured, {**structured, "status": page.status,
                                                              "final_url": page.url})

    @staticmethod
    def _failed(url: str, why: str, status: int = 0) -> RealObservation:
        structured = {"url": url, "error": why, **({"status": status} if status else {})}
        return RealObservation(f"error: could not fetch {url}: {why}\n", structured, structured)

    async def warm(self) -> None:
        """Crawl now (a server calls this as it starts), so that the first search does not wait for
        the whole crawl; a search made meanwhile waits for the rest of it."""
        pages = await self.index()
        log.info("the real search indexed %d pages of %s in %.1f s", len(pages), ", ".join(self.origins),
                 self.crawl_seconds)

    async def index(self) -> dict[str, dict[str, str]]:
        """The allowlisted sites' pages (URL -> title, Markdown, date), crawled at the first search
        (or as the server starts: `warm`)."""
        if self._index is not None:
            return self._index
        if self._indexing is None:
            self._indexing = asyncio.Lock()
        async with self._indexing:
            if self._index is None:
                self._index = await self._crawl()
        return self._index

    async def _crawl(self) -> dict[str, dict[str, str]]:
        started = time.monotonic()
        queue = deque(f"{o}/" for o in self.origins)
        seen, pages = set(queue), {}
        while queue and len(pages) < self.site.max_pages and time.monotonic() - started < self.site.max_seconds:
            url = queue.popleft()
            page = await self.fetcher.get(url)
            if page is None or page.status >= 400:
                continue
            made = await asyncio.to_thread(lambda: (page_markdown(page), _date(page)))  # noqa: B023 - awaited here
            if made[0] is None:
                continue
            (title, markdown), date = made
            pages.setdefault(page.url, {"title": title, "content": markdown[: self.site.max_page_chars], "date": date})
            if page.headers.get("content-type", "text/html").split(";")[0].strip().lower() not in PAGE_TYPES:
                continue
            for link in _links(page):
                parts = urlsplit(link)
                if link in seen or parts.query or SKIPPED.search(parts.path) or not self.fetcher.allowed(link):
                    continue
                seen.add(link)
                queue.append(link)
        self.crawl_seconds = time.monotonic() - started
        return pages

    def end(self, episode_id: str) -> None:
        pass  # nothing is kept per episode

    def close(self) -> None:
        self._index = None
