"""The browser domain: a page is a whole HTML document; the state remembers the pages seen, the
back stack and what was typed into the current page's form, so going back, a snapshot, and typing
without submitting are answered from it."""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any, Literal
from urllib.parse import urldefrag, urljoin, urlsplit

import yaml
from lxml import etree, html as lxml_html
from pydantic import BaseModel, ConfigDict, Field, field_validator

from mcp_world.rules import (Call, Check, EpisodeView, FormatError, Lead, Moment, Parsed, Picture, Rules, TrainedAction,
                             UrlPattern, refuse_repetition)
from mcp_world.specs import Demonstration

MAX_PAGES = 8  # pages remembered per browser episode
MAX_BACK = 50  # how far back `browser_back` can go
MAX_KNOWN_PAGE = 64 * 1024  # bytes of one page a world declares (`seed.browser.pages`)
MAX_KNOWN_PAGES = 256 * 1024  # bytes of all of them (in each episode's state, logged with it)
SHOWN_KNOWN_PAGES = 2  # of a world's known pages, the first ones are shown to the model as examples


class BrowserState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    url: str = ""
    title: str = ""
    back_stack: list[str] = Field(default_factory=list)
    pages: dict[str, str] = Field(default_factory=dict)  # url -> the HTML shown there
    form: dict[str, str] = Field(default_factory=dict)  # target -> typed text, on the current page
    known: dict[str, str] = Field(default_factory=dict)  # the world's own pages (seed.browser.pages), never forgotten
    # After a call that may have changed what the site shows (a form sent by POST, a button), the
    # pages from before are no longer answered as they were: only those shown since (`fresh`).
    changed: bool = False
    fresh: list[str] = Field(default_factory=list)


class BrowserSeed(BaseModel):
    """`seed.browser`: where the browser starts, and the pages the world knows as they are (URL ->
    HTML, written by the world's author or recorded from the real site). A known page is answered
    as it is, its head and menus are the site's layout from the first step, and the first two are
    shown to the model as this site's own examples (instead of another site's). Anything else in
    the seed (a site map, notes) is shown to the model as written."""

    model_config = ConfigDict(extra="allow")
    start_url: str = ""
    pages: dict[str, str] = Field(default_factory=dict)

    @field_validator("pages")
    @classmethod
    def _whole_pages(cls, pages: dict[str, str]) -> dict[str, str]:
        total, keyed = 0, {}
        for url, html in pages.items():
            if not _page_key(url) or urlsplit(url).fragment:
                raise ValueError(f"{url!r} is not a page's whole URL (accepted: an http://, https:// or "
                                 "file:// URL with a host and a path, without a #part, e.g. https://shop.example/cart)")
            size = len(html.encode("utf-8"))
            total += size
            if size > MAX_KNOWN_PAGE:
                raise ValueError(f"{url} is {size:,} bytes; a known page may be at most {MAX_KNOWN_PAGE:,}")
            problem = _not_a_page(html)
            if problem:
                raise ValueError(f"{url} is not an HTML page ({problem}); a known page is the whole "
                                 "document the browser would show, <html> with a <body> that has content")
            keyed[_page_key(url)] = html
        if total > MAX_KNOWN_PAGES:
            raise ValueError(f"{total:,} bytes in all; the known pages may hold at most {MAX_KNOWN_PAGES:,} "
                             "(they are kept in each episode's state)")
        return keyed


def _page_key(url: str) -> str:
    """A page's URL as the state keys it: the path `/` where a site's URL has none."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https", "file") or not parts.netloc and parts.scheme != "file":
        return ""
    return parts._replace(path=parts.path or "/").geturl()


def _not_a_page(html: str) -> str:
    if "<body" not in html.lower():
        return "no <body>"
    try:
        doc = lxml_html.document_fromstring(html)
    except (etree.ParserError, ValueError) as err:
        return f"it does not parse: {err}"
    body = doc.find("body")
    if body is None or (not len(body) and not (body.text or "").strip()):
        return "its <body> is empty"
    return ""


def _seen_or_known(s: BrowserState, url: str) -> str | None:
    """The page at `url` as this episode last saw it, or as the world knows it; None once something
    may have changed it (a rule that cannot be exact leaves the page to the model)."""
    if s.changed and url not in s.fresh and _page_key(url) not in s.fresh:
        return None
    if url in s.pages:
        return s.pages[url]
    return s.known.get(_page_key(url))


def may_change(state: dict[str, Any], tool: str, arguments: dict[str, Any]) -> bool:
    """Whether the call may change what the site's pages show: a form sent other than by GET (or
    one whose form is not known), a click on what is neither a plain link nor a GET form's button."""
    if tool not in ("browser_click", "browser_type") or tool == "browser_type" and not arguments.get("submit"):
        return False
    target = str(arguments.get("target", ""))
    if tool == "browser_click" and link_url(state, target) is not None:
        return False
    page = _current_page(state)
    try:
        el = _element(lxml_html.document_fromstring(page), target) if page and target.strip() else None
    except (etree.ParserError, ValueError):
        el = None
    if el is None:
        return True
    form = next((a for a in el.iterancestors() if a.tag == "form"), None)
    sends = tool == "browser_type" or el.tag == "button" and (el.get("type") or "submit").lower() == "submit" \
        or el.tag == "input" and (el.get("type") or "").lower() in ("submit", "image")
    return not (form is not None and sends and (form.get("method") or "get").lower() == "get" and not el.get("onclick"))


_HTML_HEAD = '<!DOCTYPE html>\n<html lang="en">\n<head>\n<link rel="canonical" href="'


class _Html:
    def prefill(self, call: Call) -> str:
        goes = _destination(call)
        layout = site_layout(call.state, goes) if goes else None
        if layout is not None:  # a page of a site seen: its head, the model writes the title on
            return layout.prefill
        return _HTML_HEAD + _attr(goes) + '">\n' if goes else _HTML_HEAD

    def parse(self, raw: str, call: Call) -> Parsed:
        text = raw.strip()
        if text.lower().startswith("<html"):  # a whole page of its own (an engine that did not continue the prefill)
            text = "<!DOCTYPE html>\n" + text
        elif not text.lower().startswith("<!doctype"):
            text = self.prefill(call) + raw
        text = text.strip()
        goes = _destination(call)
        layout = site_layout(call.state, goes) if goes else None
        if layout is not None:
            text = layout.title_in_place(text)
        refuse_repetition(text, call)  # a head looping one <script> line to the limit: re-asked with a penalty
        if "<body" not in text.lower():
            raise FormatError("the answer is not an HTML document with a <body>")
        try:
            doc = lxml_html.document_fromstring(text)
        except (etree.ParserError, ValueError) as err:
            raise FormatError(f"the answer does not parse as HTML: {err}") from None
        body = doc.find("body")
        if body is None or (not len(body) and not (body.text or "").strip()):
            raise FormatError("the HTML document has an empty <body>")
        repaired = False
        if call.truncated or "</html>" not in text.lower():
            # Truncated at max_tokens: close the open elements, as a browser would.
            text = lxml_html.tostring(doc, doctype="<!DOCTYPE html>", encoding="unicode")
            repaired = True
        title_el = doc.find(".//title")
        title = (title_el.text or "").strip() if title_el is not None else ""
        canonical = doc.xpath('//link[@rel="canonical"]/@href')
        url = goes
        if not url:
            url = canonical[0].strip() if canonical else call.state.get("url", "")
        status = 404 if re.search(r"\b(404|not found)\b", title, re.I) else 200
        return Parsed(text if text.endswith("\n") else text + "\n",
                      {"url": url, "status": status, "title": title}, repaired)


def _destination(call: Call) -> str | None:
    """The URL the call goes to, where it is known before the page comes: the one navigated to, a
    plain link's, the top of the back stack."""
    if call.tool == "browser_navigate":
        return str(call.arguments.get("url", "")) or None
    if call.tool == "browser_click":
        return link_url(call.state, str(call.arguments.get("target", "")))
    if call.tool == "browser_back":
        return (list(call.state.get("back_stack") or []) or [None])[-1]
    return None


# -- a site's layout ---------------------------------------------------------------------------------
# The pages of a site share their head: its stylesheets, scripts, icons and meta tags. A small model
# told the page before loses them (on the recorded real sites, repeating the page before scored 0.6-0.9
# on a site's second page, the model's page 0.3-0.65). So a page of a site the episode has seen starts
# from that site's head, as the latest page of it had it, less what belonged to that page alone (its
# title, description, its own URL in a link or meta tag); a canonical link points at the new URL, and
# relative links are made relative to it. The model writes the title and goes on; the title is then
# put back where the site has it.

_ATTR_URL = re.compile(r'\b(href|src|content)=("[^"]*"|\'[^\']*\')', re.I)
_TITLE_LINE = re.compile(r"^(\s*)<title>[^<]*</title>\s*$", re.I)
_OWN_TAGS = re.compile(r'\b(name|property)=["\']?(description|og:(?!site_name)[\w:]+|twitter:[\w:]+)', re.I)
_FORMATS = (".json", ".xml", ".rss", ".atom", ".csv", ".txt", ".md")


_CONTENT = re.compile(r"""<h1\b|<main\b|<article\b|\brole=["']?main\b""", re.I)  # where a page's own content starts
_IN_PAGE = re.compile(r"""\bhref=["']?#[\w-]""", re.I)  # a link to a part of the page itself (its table of contents)
MAX_LAYOUT_BODY = 8_000  # characters of a site's shared body start put before the model's


class Layout(BaseModel):
    before: str  # the head up to where the title was (from <!DOCTYPE html>)
    after: str  # the rest of the head (without </head>)
    indent: str  # the title line's indentation
    body: str = ""  # from </head> to the line where the page's own content starts (its site's menus), or its <body> tag

    @property
    def prefill(self) -> str:
        return self.before + self.after + self.indent + "<title>"

    def title_in_place(self, text: str) -> str:
        """The page with the title the model wrote after the head moved back to where the site has it."""
        if not text.startswith(self.prefill.strip()):
            return text
        rest = text[len(self.prefill.strip()):]
        end = rest.find("</title>")
        if end == -1 or "<" in rest[:end]:
            return text
        title_line = self.indent + "<title>" + rest[:end] + "</title>\n"
        return (self.before + title_line + self.after).rstrip("\n") + "\n" + rest[end + len("</title>"):].lstrip("\n")


def site_layout(state: dict[str, Any], url: str) -> Layout | None:
    """The head of the latest page the episode saw on the site `url` is on (another page than `url`),
    made ready for `url`; None when there is none, or its head is not one element per line."""
    try:
        s = BrowserState.model_validate(state)
    except ValueError:
        return None
    here = urlsplit(url)
    if here.scheme not in ("http", "https", "file") or not here.netloc and here.scheme != "file":
        return None
    target = urldefrag(url)[0]
    pages = {**s.known, **s.pages}  # the world's own pages first: of equal kinship, the latest seen wins
    site = [u for u in pages if u not in (target, _page_key(target)) and urlsplit(u)[:2] == here[:2]]
    if not site:
        return None
    seen = max(reversed(site), key=lambda u: _kinship(u, target))  # the closest kind of page, then the latest
    page = pages[seen]
    close = re.search(r"</head\s*>", page, re.I)
    if close is None or not page.lstrip().lower().startswith("<!doctype"):
        return None
    head = page[:close.start()]
    tail = head[head.rfind("\n") + 1:]  # the indentation of </head>, or a last element on its line
    head = head[:len(head) - len(tail)] if not tail.strip() else head + "\n"
    lines = head.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if _TITLE_LINE.match(line)), None)
    if at is None or sum("<title" in line.lower() for line in lines) != 1:
        return None
    old_title = re.sub(r"</?title>", "", lines[at], flags=re.I).strip()
    kept: list[list[str]] = [[], []]
    for i, line in enumerate(lines):
        if i == at:
            continue
        if i > 0 and not line.strip():
            kept[i > at].append(line)
            continue
        moved = _for_page(line, seen, target, old_title)
        if moved is not None:
            kept[i > at].append(moved)
    before, after = ("".join(part) for part in kept)
    if not before.endswith("\n") or after and not after.endswith("\n"):
        return None
    return Layout(before=before, after=after, indent=_TITLE_LINE.match(lines[at]).group(1).lstrip("\n"),
                  body=_body_start(page, close.start(), seen, target))


def _body_start(page: str, close: int, seen: str, target: str) -> str:
    """The page's text from `</head>` (`close`) to the line where its own content starts (its first
    <h1>, <main>, <article> or role=main, or a link to a part of itself before that: its table of
    contents), links made relative to `target`: the site's banner and menus. Where the page marks no such line, or what comes before it is too long to be a menu, as
    far as its <body> tag."""
    line_start = page.rfind("\n", 0, close) + 1
    start = line_start if not page[line_start:close].strip() else close
    body = re.search(r"<body\b[^>]*>\n?", page[close:], re.I)
    if body is None:
        return ""
    content = _CONTENT.search(page, close + body.end())
    if content is not None:  # a table of the page's own parts before it (MkDocs' sidebar) is its own too
        content = _IN_PAGE.search(page, close + body.end(), content.start()) or content
    end = page.rfind("\n", 0, content.start()) + 1 if content is not None else 0
    if end <= close + body.end() or end - start > MAX_LAYOUT_BODY:
        end = close + body.end()  # no menus known: as far as the <body> tag
    return _links_for(page[start:end], seen, target)


def _kinship(seen: str, target: str) -> tuple[int, int]:
    """How alike two URLs of a site are in kind: the same number of path segments (a table and a
    table, an article and an article), then how many leading segments they share."""
    a, b = (urlsplit(u).path.strip("/").split("/") for u in (seen, target))
    return int(len(a) == len(b)), next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def _for_page(line: str, seen: str, target: str, old_title: str) -> str | None:
    """A head line of the page at `seen` as the page at `target` would have it; None when it belonged
    to the page at `seen` alone. A line of several elements loses only the <link> or <meta> that did."""
    body, end = (line[:-1], "\n") if line.endswith("\n") else (line, "")
    indent = body[:len(body) - len(body.lstrip())]
    kept = [indent]
    for piece in re.split(r"(?<=>)(?=<)", body.lstrip()):
        if _own(piece, seen, old_title):
            if not re.match(r"\s*<(link|meta)\b", piece, re.I):
                return None
            continue
        kept.append(piece)
    text = "".join(kept)
    if not text.strip():
        return None
    if re.search(r'\brel=["\']?canonical', text, re.I):
        return _ATTR_URL.sub(lambda m: f'{m.group(1)}="{_attr(target)}"' if m.group(1).lower() == "href" else m.group(0),
                             text) + end
    return _links_for(text, seen, target) + end


def _own(piece: str, seen: str, old_title: str) -> bool:
    """Whether a piece of a head line belongs to the page at `seen` alone: its description, title or
    URL (an og:url, the page in another format such as Datasette's .json)."""
    if _OWN_TAGS.search(piece) or len(old_title) >= 4 and old_title in piece:
        return True
    if re.search(r'\brel=["\']?canonical', piece, re.I):
        return False
    own = urlsplit(seen)
    for m in _ATTR_URL.finditer(piece):
        value = m.group(2)[1:-1]
        points = urlsplit(urljoin(seen, value))
        if points[:2] != own[:2] or value.strip() in ("", "#"):
            continue
        if (points.path, points.query) == (own.path, own.query):
            return True
        if own.path not in ("", "/") and points.path.startswith(own.path.rstrip("/") + ".") and \
                points.path.endswith(_FORMATS):
            return True
    return False


def _links_for(text: str, seen: str, target: str) -> str:
    """`text` from the page at `seen` with its relative links (href, src) made relative to `target`."""
    return _ATTR_URL.sub(lambda m: m.group(1) + "=" + _rebased(m.group(2), seen, target) if m.group(1).lower() != "content"
                         else m.group(0), text)


def _rebased(quoted: str, seen: str, target: str) -> str:
    """A relative link on the page at `seen`, relative to the page at `target` (the same file)."""
    value = quoted[1:-1]
    if not value or value.startswith(("/", "#", "?")) or re.match(r"^[a-z][a-z0-9+.-]*:", value, re.I):
        return quoted
    points = urlsplit(urljoin(seen, value))
    base = urlsplit(target).path or "/"
    folder = base if base.endswith("/") else posixpath.dirname(base) + "/"
    rel = posixpath.relpath(points.path or "/", folder)
    if (points.path or "/").endswith("/") and rel != "." and not rel.endswith("/") and value.endswith("/"):
        rel += "/"
    rel += ("?" + points.query if points.query else "") + ("#" + points.fragment if points.fragment else "")
    return quoted[0] + rel + quoted[0]


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")




def browser_answer(state: dict[str, Any], tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    s = BrowserState.model_validate(state)
    if tool == "browser_back" and s.back_stack and s.back_stack[-1] in s.pages:
        url = s.back_stack[-1]
        return s.pages[url], _page_structured(url, s.pages[url])
    if tool == "browser_navigate":
        url = str(arguments.get("url", ""))
        page = _seen_or_known(s, url)
        if page is not None:
            return page, _page_structured(url, page)
    if tool == "browser_click":
        url = link_url(state, str(arguments.get("target", "")))
        page = _seen_or_known(s, urldefrag(url)[0]) if url is not None else None
        if page is not None:  # a link to a page seen or known (a #part: the same page)
            return page, _page_structured(url, page)
    if tool == "browser_snapshot" and s.url in s.pages:
        return _with_form(s.pages[s.url], s.form), _page_structured(s.url, s.pages[s.url])
    if tool == "browser_type" and not arguments.get("submit") and s.url in s.pages:
        form = {**s.form, str(arguments.get("target", "")): str(arguments.get("text", ""))}
        page = _with_form(s.pages[s.url], form)
        if page != s.pages[s.url] or not form:
            return page, _page_structured(s.url, s.pages[s.url])
    return None


def browser_apply(state: dict[str, Any], tool: str, arguments: dict[str, Any], html: str,
                  structured: dict[str, Any]) -> dict[str, Any]:
    s = BrowserState.model_validate(state)
    url = structured.get("url") or s.url
    if may_change(state, tool, arguments):
        s.changed, s.fresh = True, []
    if url and html and tool != "browser_snapshot" and not (tool == "browser_type" and not arguments.get("submit")):
        s.fresh = [u for u in s.fresh if u != url][-(MAX_PAGES - 1):] + [url]
    if tool == "browser_type" and not arguments.get("submit"):
        s.form[str(arguments.get("target", ""))] = str(arguments.get("text", ""))
        return s.model_dump()
    if tool == "browser_snapshot":
        return s.model_dump()
    if tool == "browser_back":
        if s.back_stack:
            s.back_stack.pop()
    elif url and url != s.url and s.url:
        s.back_stack.append(s.url)
        del s.back_stack[:-MAX_BACK]
    if url != s.url:
        s.form = {}
    s.url, s.title = url, structured.get("title", "")
    if url and html:
        s.pages.pop(url, None)
        s.pages[url] = _without_form(html)
        while len(s.pages) > MAX_PAGES:
            s.pages.pop(next(iter(s.pages)))
    return s.model_dump()


def _page_structured(url: str, html: str) -> dict[str, Any]:
    title = ""
    m = re.search(r"<title>(.*?)</title>", html, re.S | re.I)
    if m:
        title = m.group(1).strip()
    return {"url": url, "status": 404 if re.search(r"\b(404|not found)\b", title, re.I) else 200, "title": title}


def _find_field(doc: Any, target: str) -> Any:
    try:
        found = doc.cssselect(target)
    except Exception:  # noqa: BLE001 - not a selector: a label, placeholder or name
        found = []
    if found:
        return found[0]
    t = target.strip().lower()
    for el in doc.iter("input", "textarea"):
        if t in ((el.get("placeholder") or "").lower(), (el.get("name") or "").lower(), (el.get("id") or "").lower(),
                 (el.get("aria-label") or "").lower()):
            return el
    for label in doc.iter("label"):
        if " ".join(label.text_content().split()).lower() == t:
            ref = label.get("for")
            if ref:
                hits = doc.xpath(f'//*[@id="{ref}"]')
                if hits:
                    return hits[0]
            inner = label.xpath(".//input|.//textarea")
            if inner:
                return inner[0]
    return None


def _with_form(html: str, form: dict[str, str]) -> str:
    if not form:
        return html
    try:
        doc = lxml_html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return html
    changed = False
    for target, text in form.items():
        el = _find_field(doc, target)
        if el is None:
            continue
        if el.tag == "textarea":
            el.text = text
        else:
            el.set("value", text)
        changed = True
    if not changed:
        return html
    return lxml_html.tostring(doc, doctype="<!DOCTYPE html>", encoding="unicode") + "\n"


def _without_form(html: str) -> str:
    return html


class BrowserRules(Rules):
    state_model = BrowserState

    seed_model = BrowserSeed

    def initial(self, world: Any) -> dict[str, Any]:
        seed = world.seed_of("browser")
        if not isinstance(seed, BrowserSeed):
            return BrowserState().model_dump()
        return BrowserState(url=seed.start_url, known=dict(seed.pages)).model_dump()

    def seed_prompt(self, raw: Any) -> str | None:
        """The seed without the known pages' HTML (they are shown as examples): their URLs."""
        if not isinstance(raw, dict) or not raw.get("pages"):
            return None
        rest = {k: v for k, v in raw.items() if k != "pages"}
        text = yaml.safe_dump(rest, sort_keys=False, allow_unicode=True).strip() if rest else ""
        return (text + "\n" if text else "") + "pages the site is known to show: " + ", ".join(raw["pages"])

    def seed_demonstrations(self, world: Any, seen: bool = False) -> list[Demonstration]:
        """The first known pages, until the episode has a page of its own: from then on they lay out
        the site's pages, and the model copies no other page's content from them (measured: shown
        at every step, no better on any figure, and every prompt longer)."""
        seed = world.seed_of("browser")
        if seen or not isinstance(seed, BrowserSeed):
            return []
        return [Demonstration(tool="browser_navigate", arguments={"url": url}, observation=html,
                              structured=_page_structured(url, html), world=world.name)
                for url, html in list(seed.pages.items())[:SHOWN_KNOWN_PAGES]]

    def answer(self, state: dict[str, Any], call: Call) -> Parsed | None:
        page = browser_answer(state, call.tool, call.arguments)
        return Parsed(page[0], page[1]) if page else None

    def apply(self, state: dict[str, Any], call: Call, text: str, structured: dict[str, Any]) -> dict[str, Any]:
        return browser_apply(state, call.tool, call.arguments, text, structured)

    def summary(self, state: dict[str, Any]) -> str:
        s = BrowserState.model_validate(state)
        text = f"at {s.url or '(no page)'}" + (f" ({s.title})" if s.title else "")
        if s.back_stack:
            text += f"; back goes to {s.back_stack[-1]}"
        if s.form:
            text += "; typed: " + ", ".join(f"{k}={v!r}" for k, v in s.form.items())
        return text

    def prefill(self, call: Call) -> str:
        return _HTML.prefill(call)

    def lead(self, call: Call) -> Lead | None:
        """On a site seen: the model writes the title alone (a line, at most 48 tokens: a title that
        looped, as pydoc's Keywords page made the small model do, is cut where it repeats), then the
        page goes on from the rest of the site's head and its menus where they are known, and the
        model writes the rest."""
        goes = _destination(call)
        layout = site_layout(call.state, goes) if goes else None
        return Lead("</title>", "\n" + layout.body) if layout is not None else None

    def parse(self, raw: str, call: Call) -> Parsed:
        return _HTML.parse(raw, call)

    def continuation(self, answer: str, call: Call) -> str | None:
        """A page whose <head> ran to the token limit (scripts, styles, meta tags, or one line looped)
        goes on from its <body>: an unclosed script or style, a half-written tag and repeated lines
        are cut, the head is closed and the model writes the body in a second part. So does a page
        the model closed without a body. A page already in its body is closed by parse."""
        text = answer
        if "<body" in text.lower():
            return None
        text = re.sub(r"(\s*</(html|head)>)+\s*$", "", text, flags=re.IGNORECASE)  # closed without a body
        for tag in ("script", "style", "svg"):
            low = text.lower()
            start = low.rfind("<" + tag)
            if start != -1 and low.find("</" + tag, start) == -1:
                text = text[:start]
        if text.rfind("<") > text.rfind(">"):
            text = text[:text.rfind("<")]
        seen: set[str] = set()
        kept = []
        for line in text.split("\n"):  # a head that looped on one line keeps it once
            if line.strip() and line.strip() in seen:
                continue
            seen.add(line.strip())
            kept.append(line)
        text = "\n".join(kept)
        if "</head" not in text.lower():
            text = text.rstrip() + "\n</head>\n"
        return text.rstrip() + "\n<body>\n"

    def picture(self, text: str, call: Call, where: str = "") -> Picture | None:
        return Picture("page") if "<" in text else None  # the viewer frames it: no scripts, no network

    # Qwen-AgentWorld's format: BrowserGym's actions on element ids the page carries (agentworld.md).
    def trained_action(self, call: Call, moment: Moment) -> TrainedAction:
        return TrainedAction(browsergym_action(call, moment.screen or _current_page(moment.state)), "python")

    def trained_observation(self, text: str, call: Call, moment: Moment) -> str:
        return with_bids(text)

    def from_trained(self, raw: str, call: Call, moment: Moment) -> str:
        return _BID_ATTR.sub("", raw)

    def trained_screen(self, world: Any, state: dict[str, Any], where: str = "") -> str:
        return with_bids(_current_page(state))


# -- Qwen-AgentWorld's web format -------------------------------------------------------------------

_START_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9-]*)(?=[\s/>])")
_BID_ATTR = re.compile(r'\s+bid="[^"]*"')
_CLICKABLE = ("a", "button", "input", "select", "textarea", "label", "summary", "option")


def with_bids(page: str) -> str:
    """The page with a `bid` attribute on every element from `<body>` on, numbered in document order
    (BrowserGym marks elements the same way; the agent never sees them: `from_trained` removes them)."""
    page = _BID_ATTR.sub("", page)
    body = re.search(r"<body(?=[\s>])", page, re.I)
    head, rest = (page[: body.start()], page[body.start():]) if body else (page, "")
    numbers = iter(range(1, 1 << 30))
    return head + _START_TAG.sub(lambda m: f'{m.group(0)} bid="{next(numbers)}"', rest)


def _current_page(state: dict[str, Any]) -> str:
    try:
        s = BrowserState.model_validate(state)
    except ValueError:
        return ""
    return _with_form(s.pages[s.url], s.form) if s.url in s.pages else ""


def bid_of(page: str, target: str) -> str | None:
    """The `bid` of the element a target names on the page: a CSS selector, else a link's or button's
    visible text (or a field's label, placeholder or name), as our browser tools read targets."""
    if not page.strip():
        return None
    try:
        doc = lxml_html.document_fromstring(with_bids(page))
    except (etree.ParserError, ValueError):
        return None
    found = _element(doc, target)
    return found.get("bid") if found is not None else None


def _element(doc: Any, target: str) -> Any:
    """The element a target names: a CSS selector, else a field's label, placeholder or name, else
    a link's or button's visible text (exact, then a part of it), as our browser tools read it."""
    found = _find_field(doc, target)
    if found is None:
        t = " ".join(target.split()).lower()
        texts = [(el, " ".join(el.text_content().split()).lower() or (el.get("value") or "").lower())
                 for el in doc.iter(*_CLICKABLE)]
        found = next((el for el, text in texts if text == t), None)
        if found is None:
            found = next((el for el, text in texts if t and t in text), None)
    return found


def link_url(state: dict[str, Any], target: str) -> str | None:
    """Where a click on `target` goes, when the current page is known and the target is a plain link
    there: its href against the page's URL. None for anything a page's scripts or a form may handle
    (a button, an onclick, a new tab, a download, `javascript:`)."""
    try:
        s = BrowserState.model_validate(state)
    except ValueError:
        return None
    page = s.pages.get(s.url)
    if not page or not target.strip():
        return None
    try:
        doc = lxml_html.document_fromstring(page)
    except (etree.ParserError, ValueError):
        return None
    el = _element(doc, target)
    link = next((a for a in ([el] if el is not None else []) + list(el.iterancestors() if el is not None else [])
                 if a.tag == "a"), None)
    if link is None or any(link.get(k) is not None for k in ("onclick", "download")) or \
            (link.get("target") or "_self").lower() not in ("_self", "_top", "_parent") or el.get("onclick"):
        return None
    href = (link.get("href") or "").strip()
    if not href or href.lower().startswith(("javascript:", "mailto:", "data:")):
        return None
    url = urljoin(s.url, href)
    return url if urlsplit(url).scheme in ("http", "https", "file") else None


def browsergym_action(call: Call, page: str) -> str:
    """A browser tool call as BrowserGym's action code (`click("12")`, `fill("7", "milk")`, `goto(url)`)."""
    q = lambda value: json.dumps(str(value), ensure_ascii=False)  # noqa: E731 - a Python string literal
    args = call.arguments
    if call.tool == "browser_navigate":
        return f"goto({q(args.get('url', ''))})"
    if call.tool == "browser_back":
        return "go_back()"
    if call.tool == "browser_snapshot":
        return "noop()"
    target = str(args.get("target", ""))
    bid = bid_of(page, target) or target  # not on the page: the model sees a click on an element that isn't there
    if call.tool == "browser_click":
        return f"click({q(bid)})"
    code = f"fill({q(bid)}, {q(args.get('text', ''))})"
    return code + "\nkeyboard_press(\"Enter\")" if args.get("submit") else code


_HTML = _Html()
rules = BrowserRules()


# -- success checks for tasks ---------------------------------------------------------------------


class Visited(UrlPattern):
    """A page the browser showed during the episode: its URL equal to `url`, or matching `matches` (RE2)."""

    kind: Literal["visited"]

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        s = self.state(episode)
        seen = [st.structured.get("url") for st in episode.steps
                if st.domain == self.domain and st.structured and st.structured.get("url")]
        seen = [u for u in dict.fromkeys([*seen, *s.get("back_stack", []), *s.get("pages", {}), s.get("url", "")]) if u]
        hit = self.hits(seen)
        want = self.url or f"/{self.matches}/"
        return bool(hit), (f"visited {hit[0]}" if hit else f"never visited {want}; visited: {', '.join(seen[-8:]) or 'nothing'}")


class PageContains(Check):
    """The page the browser is on contains this text (in its HTML)."""

    kind: Literal["page_contains"]
    text: str = Field(min_length=1)

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        s = self.state(episode)
        page = s.get("pages", {}).get(s.get("url", ""), "")
        found = self.text.lower() in page.lower()
        return found, f"the page at {s.get('url') or '(none)'} {'contains' if found else 'lacks'} {self.text!r}"


class FormField(Check):
    """Text typed into a field (by the target the agent named), on the current page or submitted."""

    kind: Literal["form_field"]
    target: str = Field(min_length=1)
    equals: str | None = None
    contains: str | None = None

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        typed = [str(st.arguments.get("text", "")) for st in episode.steps
                 if st.domain == self.domain and "text" in st.arguments and not st.error
                 and self.target.lower() in str(st.arguments.get("target", "")).lower()]
        current = {k: v for k, v in self.state(episode).get("form", {}).items() if self.target.lower() in k.lower()}
        values = typed + list(current.values())
        ok = [v for v in values if (self.equals is None or v == self.equals) and (self.contains is None or self.contains in v)]
        return bool(ok), f"typed into {self.target!r}: {', '.join(repr(v) for v in values[-5:]) or 'nothing'}"


BrowserRules.checks = (Visited, PageContains, FormField)
