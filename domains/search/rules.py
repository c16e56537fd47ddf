"""The search domain: `web_search` answers numbered results, `web_fetch` a page as Markdown. The
web does not change mid-episode, so the same search or the same page again is answered from the
state with what was shown before.

A world may declare pages its web has (`seed.search.pages`: URL -> Markdown, title and date). A
known page is fetched exactly as declared; a search lists the known pages that match it first,
ranked by BM25 over their titles and text with a snippet taken from the page, and the model writes
only the results after them (none when the known pages fill the list)."""

from __future__ import annotations

import datetime
import functools
import json
import math
from collections import Counter
import re
import threading
from collections.abc import Sequence
from typing import Any, Literal
from urllib.parse import urlsplit

import snowballstemmer
import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mcp_world.rules import (Call, Check, EpisodeView, FormatError, Moment, Parsed, Picture, Rules, UrlPattern,
                             refuse_repetition, short, sounds_like_commentary, unlooped)
from mcp_world.specs import Demonstration

MAX_KNOWN_PAGE = 32 * 1024  # bytes of Markdown a known page may have
MAX_KNOWN_PAGES = 256 * 1024  # and all of them together (they are kept in each episode's state)
SNIPPET_CHARS = 200
MAX_URL = 2048  # longer is no result's URL (browsers and servers refuse such URLs too)


class KnownPage(BaseModel):
    """A page of the world's web, as `web_fetch` returns it and a search result shows it."""

    model_config = ConfigDict(extra="forbid")
    content: str = Field(min_length=1)  # the page's main content as Markdown
    title: str = ""  # what a search result calls it; by default the content's `# ` heading
    date: str = Field(default="", pattern=r"^(\d{4}-\d{2}-\d{2})?$")  # YYYY-MM-DD, as a result shows it

    @field_validator("date", mode="before")
    @classmethod
    def _date(cls, value: Any) -> Any:
        return value.isoformat() if isinstance(value, datetime.date) else value  # YAML reads 2024-05-17 as a date

    @model_validator(mode="after")
    def _titled(self) -> "KnownPage":
        if re.match(r"\s*<(!doctype|html)", self.content, re.I):
            raise ValueError("its content is HTML; a fetched page is Markdown (web_fetch returns Markdown)")
        if not self.title:
            self.title = _heading(self.content)
        if not self.title:
            raise ValueError("it has no title: give `title`, or start the content with a `# ` heading")
        return self


class SearchSeed(BaseModel):
    """`seed.search` as a mapping: the pages the world's web is known to have (URL -> `content`,
    optional `title` and `date`); anything else (notes, facts) is shown to the model as written."""

    model_config = ConfigDict(extra="allow")
    pages: dict[str, KnownPage] = Field(default_factory=dict)
    # The web is these sites (origins, e.g. an intranet's or a local documentation site's): every
    # result is one of their pages. Empty: the whole web.
    sites: list[str] = Field(default_factory=list)

    @field_validator("sites", mode="before")
    @classmethod
    def _sites(cls, sites: Any) -> Any:
        if not isinstance(sites, list):
            return sites
        out = []
        for site in sites:
            origin = site_origin(str(site))
            if not origin:
                raise ValueError(f"{site!r} is not a site's origin (accepted: http:// or https://, a host and an "
                                 "optional port, nothing after it, e.g. http://127.0.0.1:8000 or https://docs.example.org)")
            out.append(origin)
        return out

    @field_validator("pages", mode="before")
    @classmethod
    def _pages(cls, pages: Any) -> Any:
        if not isinstance(pages, dict):
            return pages
        total, keyed = 0, {}
        for url, page in pages.items():
            if not page_key(str(url)):
                raise ValueError(f"{url!r} is not a page's whole URL (accepted: an http:// or https:// URL with a "
                                 "host, without a #part, e.g. https://science.nasa.gov/mission/voyager/)")
            if isinstance(page, str):
                page = {"content": page}
            size = len(str((page or {}).get("content", "")).encode("utf-8")) if isinstance(page, dict) else 0
            total += size
            if size > MAX_KNOWN_PAGE:
                raise ValueError(f"{url} is {size:,} bytes; a known page may be at most {MAX_KNOWN_PAGE:,}")
            try:
                keyed[str(url).strip()] = KnownPage.model_validate(page)
            except ValueError as err:
                first = err.errors()[0] if hasattr(err, "errors") else {"msg": str(err), "loc": ()}
                where = ".".join(map(str, first.get("loc", ())))
                raise ValueError(f"{url}{': ' + where if where else ''}: {first['msg'].removeprefix('Value error, ')} "
                                 "(accepted: the page's Markdown, or {content: Markdown, title: …, "
                                 "date: YYYY-MM-DD})") from None
        if total > MAX_KNOWN_PAGES:
            raise ValueError(f"{total:,} bytes in all; the known pages may hold at most {MAX_KNOWN_PAGES:,} "
                             "(they are kept in each episode's state)")
        return keyed


def page_key(url: str) -> str:
    """A page's URL as the state keys it ('' when it is not a whole http(s) URL): the path `/` where
    it has none, and the same page with or without a trailing slash."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.fragment:
        return ""
    path = parts.path.rstrip("/") or "/"
    return parts._replace(netloc=parts.netloc.lower(), path=path).geturl()


def site_origin(text: str) -> str:
    """`scheme://host[:port]` as a site's origin ('' when `text` is not one: a path, a query)."""
    parts = urlsplit(text.strip())
    try:
        port = parts.port
    except ValueError:
        return ""
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/") or parts.query \
            or parts.fragment or parts.username or not re.fullmatch(r"[a-z0-9.-]+", parts.hostname.lower()):
        return ""
    return f"{parts.scheme}://{parts.hostname.lower()}" + (f":{port}" if port else "")


def on_sites(url: str, sites: Sequence[str]) -> bool:
    """Whether `url` is a page of one of `sites` (any page, when there are none)."""
    if not sites:
        return True
    parts = urlsplit(url)
    try:
        origin = f"{parts.scheme}://{(parts.hostname or '').lower()}" + (f":{parts.port}" if parts.port else "")
    except ValueError:
        return False
    return origin in sites


def _heading(markdown: str) -> str:
    return next((ln[2:].strip() for ln in markdown.splitlines() if ln.startswith("# ")), "")


# -- a search over the known pages -------------------------------------------------------------------

STOPWORDS = frozenset(
    "a an and are as at be by did do does for from had has have how i in is it its of on or that the this to "
    "was were what when where which who why will with vs".split())


# Snowball's stemmer keeps the word it is stemming on itself, and the server answers state steps in
# worker threads, several episodes at a time: one stemmer a thread.
_STEMMERS = threading.local()


def _terms(text: str) -> list[str]:
    """The words a search matches on: lower case, stemmed (launched, launches -> launch), the
    commonest left out."""
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = snowballstemmer.stemmer("english")
    return stemmer.stemWords([w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS])


def _plain(markdown: str) -> str:
    """A page's text as a snippet shows it: no headings' marks, links as their text, no emphasis."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    text = re.sub(r"^\s*\|.*$", "", text, flags=re.M)  # tables: a snippet is prose
    text = re.sub(r"<[^>\n]{0,500}>", " ", text)  # HTML inside Markdown (a README's banner): not shown
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", text)  # reference links: [text][ref]
    text = re.sub(r"^\s{0,3}(#{1,6}|[-*+]|\d+\.)\s+", "", text, flags=re.M)
    text = re.sub(r"(?<!\\)[*_`]+", "", text)
    return re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~])", r"\1", text)  # Markdown's escapes: \[main\] shows as [main]


@functools.lru_cache(maxsize=512)
def _page_terms(title: str, content: str) -> tuple[Counter[str], int]:
    """A page's words as a search counts them (a title's twice), and how many: once a page."""
    words = _terms(title) * 2 + _terms(content)
    return Counter(words), len(words)


@functools.lru_cache(maxsize=512)
def _sentences(title: str, content: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """A page's sentences as a snippet may show them (its title left out), each with its words."""
    body = _plain(content)
    found = [" ".join(s.split()) for s in re.split(r"(?<=[.!?])\s+|\n\s*\n", body) if s.strip() and s.strip() != title.strip()]
    return tuple((s, frozenset(_terms(s))) for s in found or [title.strip()])


def _ranking(known: dict[str, dict[str, str]], query: str) -> tuple[list[str], dict[str, float]]:
    """The known pages that match `query` (a word of it, other than the commonest, in the title or
    the text), best first, and the query's words' weights among them (IDF): Okapi BM25 (k1 1.2,
    b 0.75) with the title's words counted twice, times the share of the query's words the page has
    (as Lucene's classic `coord`: a page with more of them first); ties in the order the world
    declares them. Written out here rather than taken from a library: it is a few lines, and the
    core install has no numpy."""
    words = set(_terms(query))
    if not words or not known:
        return [], {}
    docs = {url: _page_terms(p["title"], p["content"]) for url, p in known.items()}
    avg = sum(n for _, n in docs.values()) / len(docs) or 1.0
    idf = {}
    for w in words:
        df = sum(1 for counts, _ in docs.values() if w in counts)
        idf[w] = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
    scores = {}
    for url, (counts, length) in docs.items():
        hits = [(w, counts[w]) for w in words if counts[w]]
        if hits:
            score = sum(idf[w] * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avg)) for w, tf in hits)
            scores[url] = score * len(hits) / len(words)
    order = {url: n for n, url in enumerate(known)}
    return sorted(scores, key=lambda u: (-scores[u], order[u])), idf


def ranked(known: dict[str, dict[str, str]], query: str) -> list[str]:
    """The known pages that match `query`, best first (`_ranking`)."""
    return _ranking(known, query)[0]


def snippet(page: dict[str, str], query: str, idf: dict[str, float] | None = None) -> str:
    """The page's sentence with the most of the query's words, the rarer among the known pages
    weighing more (the first of equals; the page's first sentence after its title where none has
    any), cut at a word near SNIPPET_CHARS."""
    words = set(_terms(query))
    idf = idf or {}
    best = max(_sentences(page["title"], page["content"]),
               key=lambda s: sum(idf.get(w, 1.0) for w in words & s[1]))[0]  # max keeps the first of equals
    if len(best) <= SNIPPET_CHARS:
        return best
    return best[:SNIPPET_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + " ..."


def find_known(known: dict[str, dict[str, str]], url: str) -> str | None:
    """The URL a known page is declared under that `url` names (trailing slash, host's case ignored)."""
    key = page_key(url)
    return next((u for u in known if page_key(u) == key), None) if key else None


def known_results(known: dict[str, dict[str, str]], query: str, wanted: int,
                  ranking: tuple[list[str], dict[str, float]] | None = None) -> list[dict[str, str]]:
    """The results the known pages make for `query`, at most `wanted` (from `ranking` where the
    caller has it)."""
    order, idf = ranking if ranking is not None else _ranking(known, query)
    return [{"url": url, "title": known[url]["title"], "snippet": snippet(known[url], query, idf),
             "date": known[url]["date"]} for url in order[:wanted]]


def results_text(results: list[dict[str, str]]) -> str:
    return "".join(f"[{n}] {r['url']}\nTitle: {r['title']}\nSnippet: {r['snippet']}\nDate: {r['date']}\n"
                   for n, r in enumerate(results, 1))


class SearchState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    listed: dict[str, str] = Field(default_factory=dict)  # read by nothing now; episodes logged before `shown` have it
    # url -> [title, snippet] of results shown: a fetched page begins with them
    shown: dict[str, list[str]] = Field(default_factory=dict)
    searches: dict[str, str] = Field(default_factory=dict)  # "query|n" -> the results text
    pages: dict[str, str] = Field(default_factory=dict)  # url -> the Markdown fetched
    # the world's own pages (seed.search.pages), never forgotten: URL -> {content, title, date}
    known: dict[str, dict[str, str]] = Field(default_factory=dict)
    sites: list[str] = Field(default_factory=list)  # seed.search.sites: the only origins results are on


_RESULT = re.compile(r"^\[(\d+)\] (\S+)\s*\nTitle: (.*)\nSnippet: (.*)\nDate: (.*)$", re.M)
_RESULTS_LAYOUT = re.compile(r"^Title: .*\nSnippet: ", re.M)  # a result's lines, anywhere in a page


def _wanted(call: Call) -> int:
    try:
        return max(1, int(call.filled().get("num_results", 10) or 10))
    except (TypeError, ValueError):
        return 10


def _known_for(call: Call) -> list[dict[str, str]]:
    """The results the world's known pages make for this search (at most the number asked for)."""
    known = (call.state or {}).get("known") or {}
    return known_results(known, str(call.arguments.get("query", "")), _wanted(call)) if known else []


class _Results:
    """`web_search`: numbered blocks `[n] url`, `Title:`, `Snippet:`, `Date:` (DESIGN.md), each url
    a whole http(s) URL and listed once; a block cut off at the token limit is dropped; the world's
    known pages that match come first, and a result the model gives a known page's URL shows that
    page as it is known. `web_fetch`: the page as Markdown, not HTML, nor search results."""

    def prefill(self, call: Call) -> str:
        if call.tool != "web_search":
            return _page_start(call)
        known = _known_for(call)
        return results_text(known) + f"[{len(known) + 1}] "

    def parse(self, raw: str, call: Call) -> Parsed:
        text = raw.replace("\r\n", "\n").strip()
        if call.tool != "web_search":
            return self._page(text, call)
        query = str(call.arguments.get("query", ""))
        known_pages = (call.state or {}).get("known") or {}
        ranking = _ranking(known_pages, query)
        matching = set(ranking[0])
        results = known_results(known_pages, query, _wanted(call), ranking)
        urls = {page_key(r["url"]) for r in results}
        seen = {(r["title"], r["snippet"]) for r in results}
        bad = ""
        for m in _RESULT.finditer(text):
            _, url, title, snip, date = (g.strip() for g in m.groups())
            key = page_key(url) if len(url) <= MAX_URL else ""
            if not key:
                bad = bad or url
                continue
            if unlooped(url[:300]) != url[:300]:
                continue  # a URL the model looped in (…/voyager-genesis-genesis-genesis-…)
            if not on_sites(url, (call.state or {}).get("sites") or ()):
                bad = bad or url
                continue  # the world's web is its sites
            declared = find_known(known_pages, url)
            if declared is not None:  # a known page: as the world knows it, and only where it matches
                if declared not in matching:
                    continue
                page = known_pages[declared]
                url, title, snip, date = declared, page["title"], snippet(page, query, ranking[1]), page["date"]
            if key in urls or (title, snip) in seen:
                continue  # a real engine lists a page once (small models repeat a block until the limit)
            urls.add(key)
            seen.add((title, snip))
            # a result's lines are short (an engine that ignored its token limit may write on and on)
            results.append({"url": url, "title": short(title, 300), "snippet": short(snip, 600), "date": short(date, 40)})
        results = results[:_wanted(call)]
        if not results:
            raise FormatError("the answer has no results in the layout `[1] https://…` / `Title:` / `Snippet:` / "
                              "`Date:`" + (f" (a result began {short(bad, 60)!r}, which is not a URL of this web)"
                                           if bad else ""))
        body = results_text(results)
        return Parsed(body, {"query": query, "results": [{"n": n, **r} for n, r in enumerate(results, 1)]},
                      repaired=body.strip() != text.strip())

    def _page(self, text: str, call: Call) -> Parsed:
        fence = re.fullmatch(r"```(?:markdown|md)?\n(.*?)\n?```", text, re.S)
        if fence:
            text = fence.group(1).strip()
        text = re.sub(r"\A#[^\S\n]+", "# ", text)  # the title's heading, however it was spaced
        if not text:
            raise FormatError("the fetched page is empty")
        if sounds_like_commentary(text):
            raise FormatError("the answer talks about the page instead of being its content")
        if re.match(r"\s*(#\s*)?<(!doctype|html)", text, re.I):
            raise FormatError("the page came back as HTML; web_fetch returns Markdown")
        if _RESULTS_LAYOUT.search(text):
            raise FormatError("the page came back as search results; web_fetch returns the page's own content "
                              "as Markdown")
        echo = f"fetch {call.arguments.get('url', '')}".lower()
        kept = "\n".join(ln for ln in text.split("\n") if ln.strip().lower() != echo).strip()
        repaired = kept != text  # the action echoed back ("FETCH url", as the prompt shows it) is no part of the page
        text = kept or text
        if call.truncated:  # cut at the token limit: the unfinished last block goes, and a loop is kept once
            kept = _whole_blocks(text)
            repaired, text = repaired or kept != text, kept or text
        refuse_repetition(text, call)
        return Parsed(text + "\n", {"url": call.arguments.get("url", ""), "title": _heading(text), "chars": len(text)},
                      repaired=repaired)


def _whole_blocks(text: str, times: int = 3) -> str:
    """A page cut at the token limit, up to its last whole block (paragraphs, lists and code blocks
    are separated by blank lines), and up to the end of the first run of blocks that then repeats
    back to back `times` times (small models loop a paragraph until the limit); a code block left
    open is closed."""
    blocks = re.split(r"\n\s*\n", text.strip())
    if len(blocks) > 1:
        blocks = blocks[:-1]
    end = len(blocks)
    for start in range(len(blocks)):
        for size in range(1, min(8, (len(blocks) - start) // times) + 1):
            unit = blocks[start:start + size]
            if all(blocks[start + k * size:start + (k + 1) * size] == unit for k in range(1, times)):
                end = start + size
                break
        if end < len(blocks):
            break
    kept = "\n\n".join(blocks[:end])
    return kept + "\n```" if kept.count("```") % 2 else kept


def _page_start(call: Call) -> str:
    """How a fetched page begins: with its title (without it, the small model wrote search results
    again), and where a search listed it, with the title and the snippet that result showed (a
    result's snippet is a sentence of its page; a snippet cut short is left for the model to write)."""
    url = str(call.arguments.get("url", ""))
    shown = (call.state or {}).get("shown") or {}
    listed = shown.get(url) or next((v for u, v in shown.items() if page_key(u) == page_key(url) != ""), None)
    if not listed or not listed[0].strip():
        return "# "
    title, snip = listed[0].strip(), listed[1].strip()
    return f"# {title}\n\n" + ("" if not snip or snip.endswith(("...", "…")) else f"{snip}\n\n")


def search_answer(state: dict[str, Any], tool: str, arguments: dict[str, Any]) -> Parsed | None:
    """The same search or the same page again: the same answer (the web does not change mid-episode);
    a known page, as declared; a search the known pages fill, from them."""
    s = SearchState.model_validate(state)
    if tool == "web_search":
        wanted = Call(tool, arguments, state)
        seen = s.searches.get(f"{arguments.get('query', '')}|{arguments.get('num_results', 10)}")
        if seen:
            return _RESULTS.parse(seen, wanted)
        known = _known_for(wanted)
        if known and len(known) >= _wanted(wanted):
            return _RESULTS.parse(results_text(known), wanted)
        return None
    if tool == "web_fetch":
        url = str(arguments.get("url", ""))
        declared = find_known(s.known, url)
        if declared is not None:
            page = s.known[declared]
            return Parsed(page["content"].rstrip("\n") + "\n", {"url": url, "title": page["title"],
                                                                "chars": len(page["content"].rstrip("\n"))})
        seen = s.pages.get(url)
        return _RESULTS.parse(seen, Call(tool, arguments, state)) if seen else None
    return None


def search_apply(state: dict[str, Any], tool: str, arguments: dict[str, Any], text: str,
                 structured: dict[str, Any]) -> dict[str, Any]:
    s = SearchState.model_validate(state)
    if tool == "web_search":
        s.searches[f"{arguments.get('query', '')}|{arguments.get('num_results', 10)}"] = text
        for r in structured.get("results", []):
            s.shown[r["url"]] = [r["title"], r["snippet"]]
    elif tool == "web_fetch" and text and not structured.get("error"):  # a real fetch's failure is no page
        s.pages[str(arguments.get("url", ""))] = text
    for field_ in (s.shown, s.searches, s.pages):
        while len(field_) > 30:
            field_.pop(next(iter(field_)))
    return s.model_dump()


class SearchRules(Rules):
    state_model = SearchState
    seed_model = SearchSeed

    def initial(self, world: Any) -> dict[str, Any]:
        seed = world.seed_of("search")
        known = {url: p.model_dump() for url, p in seed.pages.items()} if isinstance(seed, SearchSeed) else {}
        sites = list(seed.sites) if isinstance(seed, SearchSeed) else []
        return SearchState(known=known, sites=sites).model_dump()

    def grammar(self, call: Call, grammar: str) -> str | None:
        """A web of given sites: every result's URL is on one of them."""
        sites = (call.state or {}).get("sites") or []
        if call.tool != "web_search" or not sites or "\nurl ::= " not in "\n" + grammar:
            return None
        alternatives = " | ".join(json.dumps(site) for site in sites)
        narrowed = re.sub(r"(?m)^url ::= .*$", lambda _: f'url ::= ({alternatives}) ("/" [^ \\n]{{0,160}})?', grammar)
        return re.sub(r"(?m)^(host|label) ::= .*\n?", "", narrowed)  # no longer used

    def seed_prompt(self, raw: Any) -> str | None:
        """The seed without the known pages: they are answered by the code, and the small model,
        shown their URLs, wrote them into every search."""
        if not isinstance(raw, dict) or "pages" not in raw:
            return None
        rest = {k: v for k, v in raw.items() if k != "pages"}
        if list(rest) == ["notes"]:
            return str(rest["notes"])
        return yaml.safe_dump(rest, sort_keys=False, allow_unicode=True) if rest else ""

    def seed_demonstrations(self, world: Any, seen: bool = False) -> list[Demonstration]:
        """The first known page as this web's example of a page, where the model is shown nothing
        of the episode (not its results: the small model copied them into searches they do not
        match; a search's known results come to it in the prefill)."""
        seed = world.seed_of("search")
        if seen or not isinstance(seed, SearchSeed) or not seed.pages:
            return []
        url, first = next(iter(seed.pages.items()))
        return [Demonstration(tool="web_fetch", arguments={"url": url}, observation=first.content.rstrip() + "\n",
                              world=world.name)]

    def site_results(self, pages: dict[str, dict[str, str]], query: str, wanted: int) -> Parsed:
        """A search over a real site's pages (the real search engine, executors/search.py): the
        pages that match, ranked and shown as a search over the known pages shows them."""
        results = known_results(pages, query, wanted)
        text = results_text(results) if results else f"No results found for {query!r}.\n"
        return Parsed(text, {"query": query, "results": [{"n": n, **r} for n, r in enumerate(results, 1)]})

    def answer(self, state: dict[str, Any], call: Call) -> Parsed | None:
        return search_answer(state, call.tool, call.filled())

    def apply(self, state: dict[str, Any], call: Call, text: str, structured: dict[str, Any]) -> dict[str, Any]:
        return search_apply(state, call.tool, call.filled(), text, structured)

    def prefill(self, call: Call) -> str:
        return _RESULTS.prefill(call)

    def history(self, call: Call, turns: Sequence[Any]) -> Sequence[Any]:
        """A search is shown the earlier searches that share a word with it, and a fetch the
        searches that listed its page; not the pages fetched, nor unrelated searches (searches do
        not build on one another, and the small model copied whatever came before: a search for
        Python dataclasses answered with the Golden Record's page)."""
        if call.tool == "web_search":
            words = set(_terms(str(call.arguments.get("query", ""))))
            return [t for t in turns if t.tool == "web_search"
                    and words & set(_terms(str(t.arguments.get("query", ""))))]
        key = page_key(str(call.arguments.get("url", "")))
        return [t for t in turns if t.tool == "web_search" and key
                and any(page_key(m.group(2)) == key for m in _RESULT.finditer(t.observation))]

    def max_tokens(self, call: Call) -> int | None:
        """What the results still to write need (about 90 tokens a result): the model writes none of
        those the known pages give, and ten results are not asked for where three are."""
        if call.tool != "web_search":
            return None
        return 90 * max(1, _wanted(call) - len(_known_for(call)))

    def parse(self, raw: str, call: Call) -> Parsed:
        return _RESULTS.parse(raw, call)

    def picture(self, text: str, call: Call, where: str = "") -> Picture | None:
        """web_search's results as a results page (web_fetch's Markdown stays text)."""
        if call.tool != "web_search":
            return None
        results = [{"url": short(url, 300), "title": short(title, 200), "snippet": short(snip, 400),
                    "date": short(date, 40)} for _, url, title, snip, date in _RESULT.findall(text)[:100]]
        return Picture("results", results=tuple(results)) if results else None

    def trained_observation(self, text: str, call: Call, moment: Moment) -> str:
        # Qwen-AgentWorld's search results come in a code fence; a fetched page is bare Markdown.
        return f"```\n{text.rstrip()}\n```" if call.tool == "web_search" else text


_RESULTS = _Results()
rules = SearchRules()


# -- success checks for tasks ---------------------------------------------------------------------


class Fetched(UrlPattern):
    """A page was fetched (web_fetch answered): its URL equal to `url` or matching `matches` (RE2)."""

    kind: Literal["fetched"]

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        pages = list(self.state(episode).get("pages", {}))
        return bool(self.hits(pages)), f"fetched: {', '.join(pages[-6:]) or 'nothing'}"


class Searched(Check):
    """A search was made whose query matches this pattern (RE2, case-insensitive)."""

    kind: Literal["searched"]
    matches: str = Field(min_length=1)
    times: int = Field(default=1, ge=1, le=100)

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        import re2

        queries = [str(s.arguments.get("query", "")) for s in episode.steps
                   if s.domain == self.domain and "query" in s.arguments and not s.error]
        hits = [q for q in queries if re2.search("(?i)" + self.matches, q)]
        return len(hits) >= self.times, f"{len(hits)} matching search(es); queries: {', '.join(map(repr, queries[-5:])) or 'none'}"


SearchRules.checks = (Fetched, Searched)
