"""The search domain: `web_search` answers numbered results, `web_fetch` a page as Markdown. The
web does not change mid-episode, so the same search or the same page again is answered from the
state with what was shown before."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcp_world.rules import (Call, Check, EpisodeView, FormatError, Moment, Parsed, Picture, Rules, UrlPattern,
                             refuse_repetition, short, sounds_like_commentary)


class SearchState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    listed: dict[str, str] = Field(default_factory=dict)  # url -> "title: snippet" of results shown
    searches: dict[str, str] = Field(default_factory=dict)  # "query|n" -> the results text
    pages: dict[str, str] = Field(default_factory=dict)  # url -> the Markdown fetched


_RESULT = re.compile(r"^\[(\d+)\] (\S+)\s*\nTitle: (.*)\nSnippet: (.*)\nDate: (.*)$", re.M)


class _Results:
    """`web_search`: numbered blocks `[n] url`, `Title:`, `Snippet:`, `Date:` (DESIGN.md); a block
    cut off at the token limit is dropped. `web_fetch`: the page as Markdown, not HTML."""

    def prefill(self, call: Call) -> str:
        return "[1] " if call.tool == "web_search" else ""

    def parse(self, raw: str, call: Call) -> Parsed:
        text = raw.replace("\r\n", "\n").strip()
        if call.tool != "web_search":
            return self._page(text, call)
        results = []
        for m in _RESULT.finditer(text):
            n, url, title, snippet, date = m.groups()
            if int(n) != len(results) + 1:
                break
            results.append({"n": int(n), "url": url, "title": title.strip(), "snippet": snippet.strip(),
                            "date": date.strip()})
        wanted = int(call.arguments.get("num_results", 10) or 10)
        results = results[:wanted]
        if not results:
            raise FormatError("the answer has no results in the layout `[1] url` / `Title:` / `Snippet:` / `Date:`")
        body = "".join(f"[{r['n']}] {r['url']}\nTitle: {r['title']}\nSnippet: {r['snippet']}\nDate: {r['date']}\n"
                       for r in results)
        return Parsed(body, {"query": call.arguments.get("query", ""), "results": results},
                      repaired=body.strip() != text.strip())

    def _page(self, text: str, call: Call) -> Parsed:
        fence = re.fullmatch(r"```(?:markdown|md)?\n(.*?)\n?```", text, re.S)
        if fence:
            text = fence.group(1).strip()
        if not text:
            raise FormatError("the fetched page is empty")
        if sounds_like_commentary(text):
            raise FormatError("the answer talks about the page instead of being its content")
        if re.match(r"\s*<(!doctype|html)", text, re.I):
            raise FormatError("the page came back as HTML; web_fetch returns Markdown")
        refuse_repetition(text, call)
        title = next((ln.lstrip("# ").strip() for ln in text.splitlines() if ln.startswith("# ")), "")
        return Parsed(text + "\n", {"url": call.arguments.get("url", ""), "title": title, "chars": len(text)})




def search_answer(state: dict[str, Any], tool: str, arguments: dict[str, Any]) -> str | None:
    """The same search or the same page again: the same answer (the web does not change mid-episode)."""
    s = SearchState.model_validate(state)
    if tool == "web_search":
        return s.searches.get(f"{arguments.get('query', '')}|{arguments.get('num_results', 10)}")
    if tool == "web_fetch":
        return s.pages.get(str(arguments.get("url", "")))
    return None


def search_apply(state: dict[str, Any], tool: str, arguments: dict[str, Any], text: str,
                 structured: dict[str, Any]) -> dict[str, Any]:
    s = SearchState.model_validate(state)
    if tool == "web_search":
        s.searches[f"{arguments.get('query', '')}|{arguments.get('num_results', 10)}"] = text
        for r in structured.get("results", []):
            s.listed[r["url"]] = f"{r['title']}: {r['snippet']}"
    elif tool == "web_fetch" and text:
        s.pages[str(arguments.get("url", ""))] = text
    for field_ in (s.listed, s.searches, s.pages):
        while len(field_) > 30:
            field_.pop(next(iter(field_)))
    return s.model_dump()


class SearchRules(Rules):
    state_model = SearchState

    def answer(self, state: dict[str, Any], call: Call) -> Parsed | None:
        text = search_answer(state, call.tool, call.filled())
        return _RESULTS.parse(text, Call(call.tool, call.arguments, state)) if text else None

    def apply(self, state: dict[str, Any], call: Call, text: str, structured: dict[str, Any]) -> dict[str, Any]:
        return search_apply(state, call.tool, call.filled(), text, structured)

    def summary(self, state: dict[str, Any]) -> str:
        s = SearchState.model_validate(state)
        return ("results shown so far: " + "; ".join(f"{u} ({t[:80]})" for u, t in list(s.listed.items())[-12:])
                if s.listed else "")

    def prefill(self, call: Call) -> str:
        return _RESULTS.prefill(call)

    def parse(self, raw: str, call: Call) -> Parsed:
        return _RESULTS.parse(raw, call)

    def picture(self, text: str, call: Call, where: str = "") -> Picture | None:
        """web_search's results as a results page (web_fetch's Markdown stays text)."""
        if call.tool != "web_search":
            return None
        results = [{"url": short(url, 300), "title": short(title, 200), "snippet": short(snippet, 400),
                    "date": short(date, 40)} for _, url, title, snippet, date in _RESULT.findall(text)[:100]]
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
