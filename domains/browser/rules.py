"""The browser domain: a page is a whole HTML document; the state remembers the pages seen, the
back stack and what was typed into the current page's form, so going back, a snapshot, and typing
without submitting are answered from it."""

from __future__ import annotations

import json
import re
from typing import Any, Literal
from urllib.parse import urldefrag, urljoin, urlsplit

from lxml import etree, html as lxml_html
from pydantic import BaseModel, ConfigDict, Field

from mcp_world.rules import (Call, Check, EpisodeView, FormatError, Moment, Parsed, Picture, Rules, TrainedAction,
                             UrlPattern, refuse_repetition)

MAX_PAGES = 8  # pages remembered per browser episode
MAX_BACK = 50  # how far back `browser_back` can go


class BrowserState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    url: str = ""
    title: str = ""
    back_stack: list[str] = Field(default_factory=list)
    pages: dict[str, str] = Field(default_factory=dict)  # url -> the HTML shown there
    form: dict[str, str] = Field(default_factory=dict)  # target -> typed text, on the current page


_HTML_HEAD = '<!DOCTYPE html>\n<html lang="en">\n<head>\n<link rel="canonical" href="'


class _Html:
    def prefill(self, call: Call) -> str:
        if call.tool == "browser_navigate":
            return _HTML_HEAD + _attr(str(call.arguments.get("url", ""))) + '">\n'
        goes = link_url(call.state, str(call.arguments.get("target", ""))) if call.tool == "browser_click" else \
            (list(call.state.get("back_stack") or []) or [None])[-1] if call.tool == "browser_back" else None
        return _HTML_HEAD + _attr(goes) + '">\n' if goes else _HTML_HEAD

    def parse(self, raw: str, call: Call) -> Parsed:
        text = raw.strip()
        if not text.lower().startswith("<!doctype html"):
            text = self.prefill(call) + raw
        text = text.strip()
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
        url = call.arguments.get("url") if call.tool == "browser_navigate" else \
            link_url(call.state, str(call.arguments.get("target", ""))) if call.tool == "browser_click" else \
            (list(call.state.get("back_stack") or []) or [None])[-1] if call.tool == "browser_back" else None
        if not url:
            url = canonical[0].strip() if canonical else call.state.get("url", "")
        status = 404 if re.search(r"\b(404|not found)\b", title, re.I) else 200
        return Parsed(text if text.endswith("\n") else text + "\n",
                      {"url": url, "status": status, "title": title}, repaired)


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")




def browser_answer(state: dict[str, Any], tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    s = BrowserState.model_validate(state)
    if tool == "browser_back" and s.back_stack and s.back_stack[-1] in s.pages:
        url = s.back_stack[-1]
        return s.pages[url], _page_structured(url, s.pages[url])
    if tool == "browser_navigate":
        url = str(arguments.get("url", ""))
        if url in s.pages:
            return s.pages[url], _page_structured(url, s.pages[url])
    if tool == "browser_click":
        url = link_url(state, str(arguments.get("target", "")))
        if url is not None and urldefrag(url)[0] in s.pages:  # a link to a page seen (a #part: the same page)
            page = s.pages[urldefrag(url)[0]]
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

    def initial(self, world: Any) -> dict[str, Any]:
        start = world.seed.get("browser")
        url = start.get("start_url", "") if isinstance(start, dict) else ""
        return BrowserState(url=url).model_dump()

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
